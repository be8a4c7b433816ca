package conformance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

func TestMaskText(t *testing.T) {
	m := NewMasker("/tmp/run/t0001")
	for _, tc := range []struct{ in, want string }{
		{"/tmp/run/t0001/sub\n", "<WORKSPACE>/sub\n"},
		{"Working directory not found: /tmp/run/t0001/missing", "Working directory not found: <WORKSPACE>/missing"},
		{"/tmp/run/t0002/sub", "/tmp/run/t0002/sub"}, // another workspace stays
		{"Process is running in background (pid: 41234)", "Process is running in background (pid: <PID>)"},
		{"PID 7 exited; pid=8", "PID <PID> exited; pid=<PID>"},
		{"rapid 12", "rapid 12"},
		{"Background PIDs: 12, 345\nProcess Group PGID: 11", "Background PIDs: <PID>, <PID>\nProcess Group PGID: <PID>"},
		{"shell_id: 3f2b8c1e-9d4a-4b7e-8f00-0123456789ab\nstarted", "shell_id: <UUID>\nstarted"},
		{"shell_id: 4711", "shell_id: <ID>"},
		{"Background shell started.\nid: bg_3f2b8c1e\npid: 7\noutput file: /tmp/x/shell-bg_3f2b8c1e.output", "Background shell started.\nid: <ID>\npid: <PID>\noutput file: /tmp/x/shell-<ID>.output"},
		{"id: none\nvalid: 12", "id: none\nvalid: 12"},
		{"saved to: /tmp/agentbash-engine-2401/run_1.output", "saved to: <ENGINE_TMP>/run_1.output"},
		{"unknown shell_id: conformance-unknown", "unknown shell_id: conformance-unknown"},
		{"started: 2026-11-22T05:28:16Z", "started: <TIME>"},
		{"at 2026-11-22T05:28:16.123+01:00.", "at <TIME>."},
		{"drwxr-xr-x 2 root root 4096 Nov 22 05:53 .\n-rw-r--r-- 1 root root 0 Jan  2  2025 f", "drwxr-xr-x 2 root root 4096 <TIME> .\n-rw-r--r-- 1 root root 0 <TIME> f"},
		{"took 0.53s, then 12.5ms", "took <DURATION>, then <DURATION>"},
		{"total 8\ndrwxr-xr-x 2 root root 4096 Nov 22 05:53 .\ndrwxrwxrwt 91 root root 12288 Nov 22 05:50 ..\n-rw-r--r-- 1 root root 0 Nov 22 05:53 f\n",
			"total 8\ndrwxr-xr-x 2 root root 4096 <TIME> .\n<PARENT_DIR_LINE>\n-rw-r--r-- 1 root root 0 <TIME> f\n"},
		{"drwxr-xr-x. 3 me staff 96 Jan  2  2025 ..", "<PARENT_DIR_LINE>"},
		{"bash: timed out after 1s\nexit: 124", "bash: timed out after 1s\nexit: 124"},
		{"version 1.2.3", "version 1.2.3"},
		{"", ""},
	} {
		if got := m.Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMaskWorkspaceName: a workspace's name is masked where it stands alone, not inside a longer word.
func TestMaskWorkspaceName(t *testing.T) {
	m := NewMasker().Name("ws")
	for _, tc := range []struct{ in, want string }{
		{"unknown workspace ws; configured: ws, main", "unknown workspace <WORKSPACE_NAME>; configured: <WORKSPACE_NAME>, main"},
		{"ws", "<WORKSPACE_NAME>"},
		{"'ws'.", "'<WORKSPACE_NAME>'."},
		{"[REDACTED:aws-access-key]", "[REDACTED:aws-access-key]"},
		{"ws-ref wsx xws ws_1 ws2 héws", "ws-ref wsx xws ws_1 ws2 héws"},
		{"/srv/ws/sub", "/srv/<WORKSPACE_NAME>/sub"},
	} {
		if got := m.Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMaskSpecMasks: a spec's masks apply first, in order, to texts and to the strings of JSON answers,
// with groups; the suite's own masks still apply after them.
func TestMaskSpecMasks(t *testing.T) {
	m := NewMasker("/srv/ws").Masks([]spec.Mask{
		{Pattern: `saved to: \S+`, Replace: "saved to: <PATH>"},
		{Pattern: `\(ID: ([a-z])[0-9a-z]{8}\)`, Replace: "(ID: ${1}<ID>)"},
	})
	for _, tc := range []struct{ in, want string }{
		{"Full output saved to: /home/u/.claude/p/x.txt\n\nPreview", "Full output saved to: <PATH>\n\nPreview"},
		{"moved to the background (ID: bx2hu79o0). in /srv/ws", "moved to the background (ID: b<ID>). in <WORKSPACE>"},
		{"no mask here", "no mask here"},
	} {
		if got := m.Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// docs/spec.md's example: the host's path and ours compare equal.
	doc := NewMasker().Masks([]spec.Mask{{Pattern: `Full output saved to: \S+`, Replace: "Full output saved to: <PATH>"}})
	if a, b := doc.Text("Full output saved to: /home/u/.claude/projects/p/1f3a/tool-results/b2slvvo0w.txt"),
		doc.Text("Full output saved to: /tmp/agentbash-engine-1/tool-results/3.txt"); a != b {
		t.Errorf("%q != %q", a, b)
	}
	got := m.Value(map[string]any{"message": "saved to: /a/b"})
	if s := got.(map[string]any)["message"]; s != "saved to: <PATH>" {
		t.Errorf("in JSON: %q", s)
	}
}

func TestMaskSymlinkedWorkspace(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	link := filepath.Join(dir, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	m := NewMasker(link)
	for _, in := range []string{link + "/x", real + "/x"} {
		if got := m.Text(in); got != "<WORKSPACE>/x" {
			t.Errorf("Text(%q) = %q", in, got)
		}
	}
}

func TestMaskJSON(t *testing.T) {
	m := NewMasker("/ws/a")
	for _, tc := range []struct{ in, want string }{
		{`{"details":{"mode":"background","pid":123,"stdout":"/ws/a\n"}}`, `{"details":{"mode":"background","pid":"<PID>","stdout":"<WORKSPACE>\n"}}`},
		{`{"shell_id":"3f2b8c1e-9d4a-4b7e-8f00-0123456789ab"}`, `{"shell_id":"<UUID>"}`},
		{`{"shellId":42,"bash_id":"b7"}`, `{"bash_id":"<ID>","shellId":"<ID>"}`},
		{`{"shell_id":"conformance-unknown"}`, `{"shell_id":"conformance-unknown"}`},
		{`{"duration_ms":1234,"elapsed":"0.5s","exit_code":3}`, `{"duration_ms":"<DURATION>","elapsed":"<DURATION>","exit_code":3}`},
		{`[{"childPid":9},"pid 10"]`, `[{"childPid":"<PID>"},"pid <PID>"]`},
		{`"plain text"`, `"plain text"`},
	} {
		v, err := decodeJSON([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := show(m.Value(v)); got != tc.want {
			t.Errorf("Value(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestCompare(t *testing.T) {
	m := NewMasker()
	res := func(s string) Masked { return m.Answer(target.Answer{Result: json.RawMessage(s)}) }
	fail := func(typ, msg string) Masked {
		return m.Answer(target.Answer{Error: &runtime.ToolError{Type: typ, Message: msg}})
	}
	for _, tc := range []struct {
		name      string
		want, got Masked
		diff      []string // substrings; none: equal
	}{
		{"key order is ignored", res(`{"a":1,"b":"x"}`), res(`{"b":"x","a":1}`), nil},
		{"numbers by value", res(`{"a":1}`), res(`{"a":1.0}`), nil},
		{"a different number", res(`{"exit_code":3}`), res(`{"exit_code":4}`), []string{"$.exit_code: want 3, got 4"}},
		{"a missing key", res(`{"a":1,"b":2}`), res(`{"a":1}`), []string{"$.b: missing (want 2)"}},
		{"an extra key", res(`{"a":1}`), res(`{"a":1,"c":true}`), []string{"$.c: unexpected (got true)"}},
		{"a type", res(`{"a":"1"}`), res(`{"a":1}`), []string{`$.a: want a string "1", got a number 1`}},
		{"array length", res(`{"content":[{"t":"x"}]}`), res(`{"content":[]}`), []string{"$.content: want 1 elements, got 0"}},
		{"text byte-exact", res(`"a\r\nb\n"`), res(`"a\nb\n"`), []string{"texts differ at byte 1 (line 1, column 2)", `- "a\r"`, "+ a"}},
		{"text trailing newline", res(`"exit: 3\n"`), res(`"exit: 3"`), []string{"want 8 bytes, got 7 bytes"}},
		{"error vs result", fail("ValueError", "Blocked"), res(`{"stdout":""}`), []string{"want the error ValueError: Blocked", `got the result {"stdout":""}`}},
		{"result vs error", res(`"ok"`), fail("ToolError", "nope"), []string{`want the result "ok"`, "got the error ToolError: nope"}},
		{"error type", fail("ValueError", "x"), fail("RuntimeError", "x"), []string{`error.type: want "ValueError", got "RuntimeError"`}},
		{"error message", fail("ValueError", "x"), fail("ValueError", "y"), []string{"error.message"}},
		{"same error", fail("ValueError", "x"), fail("ValueError", "x"), nil},
		{"invalid JSON", res(`"ok"`), m.Answer(target.Answer{Result: json.RawMessage(`{oops`)}), []string{"not valid JSON"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare(tc.want, tc.got)
			if len(tc.diff) == 0 && d != "" {
				t.Fatalf("want no difference, got:\n%s", d)
			}
			if len(tc.diff) > 0 && d == "" {
				t.Fatal("want a difference, got none")
			}
			for _, s := range tc.diff {
				if !strings.Contains(d, s) {
					t.Errorf("diff does not contain %q:\n%s", s, d)
				}
			}
		})
	}
}

func TestTextDiffOfLongTexts(t *testing.T) {
	want := strings.Repeat("a", 100000) + "\n[output truncated]"
	got := strings.Repeat("a", 100000) + "\n[truncated]"
	d := textDiff(want, got)
	for _, s := range []string{"texts differ at byte 100002 (line 2, column 2)", `\n[output truncated]"...`, `\n[truncated]"...`} {
		if !strings.Contains(d, s) {
			t.Errorf("diff does not contain %q:\n%s", s, d)
		}
	}
	if len(d) > 1000 {
		t.Errorf("diff of a long text is %d bytes", len(d))
	}
}

// A sized case renders a result of exactly its length: tunacode's text at 5,000 characters is whole, at
// 5,001 it is cut.
func TestSizedCasesHitTheLimit(t *testing.T) {
	v := mustVariant(t, "tunacode")
	s, err := Open(context.Background(), v, InProcess(v), Filter(func(c Case) bool { return c.Size != nil }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.cases) != 3 {
		t.Fatalf("want 3 sized cases, got %d", len(s.cases))
	}
	for _, c := range s.cases {
		probe := filepath.Join(s.root, "probe-"+strings.ReplaceAll(c.Name, "/", "_"))
		params, err := s.calibrate(context.Background(), c, probe)
		if err != nil {
			t.Fatal(err)
		}
		eng, err := runtime.New(v, runtime.WithWorkspace(probe))
		if err != nil {
			t.Fatal(err)
		}
		res, err := eng.Call(context.Background(), c.Tool, params)
		eng.Close()
		if err != nil {
			t.Fatal(err)
		}
		var text string
		if err := json.Unmarshal(res, &text); err != nil {
			t.Fatal(err)
		}
		n := utf8.RuneCountInString(text)
		cut := strings.Contains(text, "[truncated]")
		switch c.Size.Want {
		case 4999, 5000:
			if n != c.Size.Want || cut {
				t.Errorf("%s: %d chars, cut %t", c.Name, n, cut)
			}
		case 5001:
			if !cut {
				t.Errorf("%s: not cut (%d chars)", c.Name, n)
			}
		}
	}
}

func TestReportSummaryAndJSON(t *testing.T) {
	r := &Report{Variant: "rye", Target: "wire: x"}
	r.add(Result{Case: "bash/a", Status: Pass})
	r.add(Result{Case: "bash/b", Status: Fail, Diff: "$.exit_code: want 3, got 4", Params: json.RawMessage(`{"command":"exit 3"}`)})
	r.add(Result{Case: "bash/c", Status: Skip, Reason: "not sent"})
	s := r.Summary()
	for _, want := range []string{"FAIL bash/b\n", "    $.exit_code: want 3, got 4\n", "SKIP bash/c: not sent\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if !strings.HasSuffix(s, "\n1 passed, 1 failed, 1 skipped\n") {
		t.Errorf("summary does not end in the counts:\n%s", s)
	}
	if r.OK() {
		t.Error("a report with a failure is OK")
	}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Passed != 1 || back.Failed != 1 || back.Skipped != 1 || len(back.Results) != 3 || back.Results[1].Status != Fail {
		t.Errorf("JSON round trip: %+v", back)
	}
}
