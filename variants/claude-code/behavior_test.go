package claudecode_test

// Behaviour of the claude-code spec on the shared runtime. Every expected text is what the real CLI
// (@anthropic-ai/claude-code 2.1.332, `claude -p`) sent the model for the same call, recorded against a fake
// model endpoint (make hosts -record, and the same harness with the calls below), or read from its code
// (see claude-code.yaml's source notes); never captured from our own output. What no contract can fix in
// advance (a task id, a file's path) is checked by its shape.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/policy"
	claudecode "github.com/agentbash/agentbash/variants/claude-code"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

// issue is the CLI's validation error for one zod issue of the input.
func issue(text string) *runtime.ToolError {
	return &runtime.ToolError{Type: "InputValidationError", Message: "<tool_use_error>InputValidationError: Bash failed due to the following issue:\n" + text + "</tool_use_error>"}
}

// issues is the CLI's validation error for several issues of the input.
func issues(lines ...string) *runtime.ToolError {
	return &runtime.ToolError{Type: "InputValidationError", Message: "<tool_use_error>InputValidationError: Bash failed due to the following issues:\n" + strings.Join(lines, "\n") + "</tool_use_error>"}
}

// sleepHelp ends the text of a blocked leading sleep.
const sleepHelp = ". To wait for a condition, use Monitor with an until-loop (e.g. `until <check>; do sleep 2; done`). To wait for a command you started, use run_in_background: true. Do not chain shorter sleeps to work around this block.</tool_use_error>"

// text is the result the model reads.
func text(t *testing.T, got json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatalf("not a text result: %s", got)
	}
	return s
}

// seqText is `seq 1 n` as the CLI shows it (the last newline trimmed).
func seqText(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if i > from {
			b.WriteByte('\n')
		}
		fmt.Fprint(&b, i)
	}
	return b.String()
}

var (
	persistedRE  = regexp.MustCompile(`^<persisted-output>\nOutput too large \(([^)]*)\)\. Full output saved to: (\S+)\n\nPreview \(first 2KB\):\n([\s\S]*)\n\.\.\.\n</persisted-output>$`)
	backgroundRE = regexp.MustCompile(`^Command running in background with ID: ([0-9a-f-]{36})\. Output is being written to: (\S+)/tasks/([0-9a-f-]{36})\.output\. You will be notified when it completes\. To check interim output, use Read on that file path\.$`)
	movedRE      = regexp.MustCompile(`^partial\nCommand did not complete within its 1s timeout and was moved to the background \(ID: ([0-9a-f-]{36})\)\. Output is being written to: \S+\.output\. You will be notified when it completes\. If it is still running after 10m in the background, it will be stopped and you will be notified\. It is running now: do not start a second copy while it runs\. If it is no longer needed, stop it with TaskStop\. To check interim output, use Read on that file path\.$`)
)

// hostRules are a user's permissions: deny rm, ask before git push.
var hostRules = []runtime.Option{runtime.WithPolicyOptions(policy.WithPermissions(policy.HostPermissions{
	Deny: []string{"Bash(rm:*)"}, Ask: []string{"Bash(git push:*)"}}))}

func TestBash(t *testing.T) {
	cases := []behavior.Case{
		// Output: both streams in one, in order; leading blank lines and trailing white space trimmed.
		{Name: "stdout and stderr in order", Params: behavior.Cmd("echo out; echo err >&2"), Want: behavior.Fixed("out\nerr")},
		{Name: "leading blank lines go, indentation stays", Params: behavior.Cmd(`printf '\n\n  x'`), Want: behavior.Fixed("  x")},
		{Name: "white space around output", Params: behavior.Cmd(`printf '  padded  \n\n'; printf '\n  err  \n' >&2`), Want: behavior.Fixed("  padded  \n\n\n  err")},
		{Name: "CRLF kept", Params: behavior.Cmd(`printf 'a\r\nb\r\n'`), Want: behavior.Fixed("a\r\nb")},
		{Name: "no output", Params: behavior.Cmd("true"), Want: behavior.Fixed("(Bash completed with no output)")},
		{Name: "stdin is /dev/null", Params: behavior.Cmd("cat"), Want: behavior.Fixed("(Bash completed with no output)")},
		// A non-zero exit is an error result: "Exit code N", then the output.
		{Name: "non-zero exit", Params: behavior.Cmd("echo x; echo y >&2; exit 3"), Err: &runtime.ToolError{Type: "ShellError", Message: "Exit code 3\nx\ny"}},
		{Name: "exit without output", Params: behavior.Cmd("exit 1"), Err: &runtime.ToolError{Type: "ShellError", Message: "Exit code 1"}},
		{Name: "killed by a signal", Params: behavior.Cmd("kill -9 $$"), Err: &runtime.ToolError{Type: "ShellError", Message: "Exit code 1"}},
		// The error text past 10000 characters: 5000 + the marker + 5000, of "Exit code 2\n" and the first
		// 30000 characters of the output (10040 characters live).
		// A success over 30000 bytes is saved whole; the preview is its first 2000 characters cut back to
		// the last newline (seq 1 20000: 108894 bytes, "106.3KB", the preview ends at 527).
		{Name: "large output persisted", Params: behavior.Cmd("seq 1 20000"), Check: func(t *testing.T, _ *runtime.Engine, _ *behavior.Workspace, got json.RawMessage) {
			m := persistedRE.FindStringSubmatch(text(t, got))
			if m == nil {
				t.Fatalf("not a persisted-output block: %s", behavior.Short(string(got)))
			}
			if m[1] != "106.3KB" || m[3] != seqText(1, 527) {
				t.Errorf("size %q, preview ends %q", m[1], m[3][max(0, len(m[3])-10):])
			}
			b, err := os.ReadFile(m[2])
			if err != nil || string(b) != seqText(1, 20000)+"\n" {
				t.Errorf("the saved file: %d bytes, %v", len(b), err)
			}
		}},
		// 30000 bytes spill when they are more than 30000 bytes, whatever their characters: 29999
		// characters with two é are 30001 bytes.
		{Name: "the bound is in bytes", Params: behavior.Cmd(`printf '<\303\251'; head -c 29995 /dev/zero | tr '\0' a; printf '\303\251>'`), Check: func(t *testing.T, _ *runtime.Engine, _ *behavior.Workspace, got json.RawMessage) {
			m := persistedRE.FindStringSubmatch(text(t, got))
			if m == nil || m[1] != "29.3KB" || m[3] != "<é"+strings.Repeat("a", 1998) {
				t.Errorf("got %s", behavior.Short(string(got)))
			}
		}},
		{Name: "30000 bytes stay", Params: behavior.Cmd(behavior.Fill(30000)), Want: behavior.Fixed(strings.Repeat("a", 30000))},
		// Validation, as zod's issues reach the model.
		{Name: "missing command", Params: func(*behavior.Workspace) map[string]any { return map[string]any{} }, Err: issue("The required parameter `command` is missing")},
		{Name: "command of the wrong type", Params: func(*behavior.Workspace) map[string]any { return map[string]any{"command": 42} }, Err: issue("The parameter `command` type is expected as `string` but provided as `number`")},
		{Name: "timeout null", Params: behavior.CmdWith("echo none", "timeout", nil), Err: issue("The parameter `timeout` type is expected as `number` but provided as `null`")},
		{Name: "unknown key", Params: behavior.CmdWith("echo a", "foo", 1), Err: issue("An unexpected parameter `foo` was provided")},
		// Every issue of a call, one line each: the missing parameters, the unexpected ones (in the order
		// sent), then those of the wrong type (texts of the 2.1.332 CLI for these inputs).
		{Name: "every issue of a call", Params: func(*behavior.Workspace) map[string]any {
			return map[string]any{"timeout": "x", "zz": 1, "yy": 2}
		}, Err: issues("The required parameter `command` is missing", "An unexpected parameter `yy` was provided", "An unexpected parameter `zz` was provided", "The parameter `timeout` type is expected as `number` but provided as `string`")},
		{Name: "two parameters of the wrong type", Params: behavior.CmdWith("echo a", "timeout", nil, "run_in_background", "no"),
			Err: issues("The parameter `timeout` type is expected as `number` but provided as `null`", "The parameter `run_in_background` type is expected as `boolean` but provided as `string`")},
		{Name: "control character", Params: behavior.Cmd("echo \a"), Err: &runtime.ToolError{Type: "InputValidationError", Message: "<tool_use_error>InputValidationError: [\n  {\n    \"code\": \"custom\",\n    \"path\": [\n      \"command\"\n    ],\n    \"message\": \"command contains control characters that would be hidden in the approval dialog\"\n  }\n]</tool_use_error>"}},
		{Name: "tab and newline are not control characters here", Params: behavior.Cmd("echo 'a\tb'\necho c"), Want: behavior.Fixed("a\tb\nc")},
		{Name: "leading sleep followed by a command", Params: behavior.Cmd("sleep 30 & echo started"), Err: &runtime.ToolError{Type: "ToolError", Message: "<tool_use_error>Blocked: sleep 30 followed by: echo started" + sleepHelp}},
		{Name: "standalone leading sleep", Params: behavior.Cmd("sleep 25"), Err: &runtime.ToolError{Type: "ToolError", Message: "<tool_use_error>Blocked: standalone sleep 25" + sleepHelp}},
		{Name: "recorded parameters", Params: behavior.CmdWith("echo recorded", "description", "d", "dangerouslyDisableSandbox", true), Want: behavior.Fixed("recorded")},
		// Timeout: a command whose first word is sleep is killed (exit 143); the others move to the
		// background as a task.
		{Name: "timeout kills a leading sleep", Params: behavior.CmdWith("sleep 3; echo never", "timeout", 1000), Err: &runtime.ToolError{Type: "ShellError", Message: "Exit code 143\nCommand timed out after 1s"}},
		{Name: "timeout moves a command to the background", Params: behavior.CmdWith("echo partial; sleep 5; echo late", "timeout", 1000), Check: func(t *testing.T, _ *runtime.Engine, _ *behavior.Workspace, got json.RawMessage) {
			if !movedRE.MatchString(text(t, got)) {
				t.Errorf("got %s", behavior.Short(string(got)))
			}
		}},
		{Name: "a numeric string timeout is its number", Params: behavior.CmdWith("sleep 3; echo never", "timeout", " 1000 "), Err: &runtime.ToolError{Type: "ShellError", Message: "Exit code 143\nCommand timed out after 1s"}},
		{Name: "another string timeout is refused", Params: behavior.CmdWith("echo a", "timeout", "1e3"), Err: issue("The parameter `timeout` type is expected as `number` but provided as `string`")},
		{Name: "a boolean timeout is refused", Params: behavior.CmdWith("echo f", "timeout", true), Err: issue("The parameter `timeout` type is expected as `number` but provided as `boolean`")},
		{Name: "timeout above the maximum is clamped", Params: behavior.CmdWith("echo high", "timeout", 600001), Want: behavior.Fixed("high")},
		{Name: "timeout 0 is the default", Params: behavior.CmdWith("sleep 1; echo zero", "timeout", 0), Want: behavior.Fixed("zero")},
		// Permissions: the host's rules (settings.json's permissions), each subcommand checked apart; the
		// texts the CLI gave with deny ["Bash(rm:*)"] and ask ["Bash(git push:*)"].
		{Name: "permission denied in a compound command", Params: behavior.Cmd("echo a && rm -f does-not-exist-xyz"), Opts: hostRules,
			Err: &runtime.ToolError{Type: "PermissionDenied", Message: "Permission to use Bash with command echo a && rm -f does-not-exist-xyz has been denied."}},
		{Name: "permission asked", Params: behavior.Cmd("git push does-not-exist-remote"), Opts: hostRules,
			Err: &runtime.ToolError{Type: "PermissionDenied", Message: "Claude requested permissions to use Bash, but you haven't granted it yet."}},
		{Name: "permission allowed", Params: behavior.Cmd("echo fine"), Opts: hostRules, Want: behavior.Fixed("fine")},
	}
	behavior.Run(t, "claude-code", "Bash", cases)
}

// TestLongFailure: the error text past 10000 characters is its first 5000, the marker and its last 5000,
// of "Exit code 2\n" and the first 30000 characters of the output (10040 characters live for seq 1 20000).
func TestLongFailure(t *testing.T) {
	eng := open(t, behavior.NewWorkspace(t))
	_, err := eng.Call(behavior.Bounded(t), "Bash", json.RawMessage(`{"command":"seq 1 20000; exit 2"}`))
	te, ok := err.(*runtime.ToolError)
	if !ok {
		t.Fatalf("want a raised error, got %v", err)
	}
	full := "Exit code 2\n" + seqText(1, 20000)
	full = full[:len("Exit code 2\n")+30000]
	want := full[:5000] + "\n\n... [20012 characters truncated] ...\n\n" + full[len(full)-5000:]
	if te.Type != "ShellError" || te.Message != want {
		i := behavior.FirstDiff(te.Message, want)
		t.Errorf("%s, %d characters, want %d; first difference at %d: %q, want %q", te.Type, len(te.Message), len(want), i,
			te.Message[i:min(i+40, len(te.Message))], want[i:min(i+40, len(want))])
	}
}

// TestBackgroundTask: run_in_background answers at once with the task's id; TaskStop stops it with the
// CLI's JSON message and forgets it; a second stop (or an unknown id) is the CLI's error.
func TestBackgroundTask(t *testing.T) {
	w := behavior.NewWorkspace(t)
	eng := open(t, w)
	res, err := eng.Call(behavior.Bounded(t), "Bash", json.RawMessage(`{"command":"echo s; sleep 20","run_in_background":true}`))
	if err != nil {
		t.Fatal(err)
	}
	m := backgroundRE.FindStringSubmatch(text(t, res))
	if m == nil || m[1] != m[3] {
		t.Fatalf("not the background message: %s", res)
	}
	id := m[1]
	res, err = eng.Call(behavior.Bounded(t), "TaskStop", json.RawMessage(`{"task_id":"`+id+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"message":"Successfully stopped task: ` + id + ` (echo s; sleep 20)","task_id":"` + id + `","task_type":"local_bash","command":"echo s; sleep 20"}`
	if got := text(t, res); got != want {
		t.Errorf("TaskStop:\n got %s\nwant %s", got, want)
	}
	_, err = eng.Call(behavior.Bounded(t), "TaskStop", json.RawMessage(`{"task_id":"`+id+`"}`))
	if te, ok := err.(*runtime.ToolError); !ok || te.Message != "<tool_use_error>No task found with ID: "+id+"</tool_use_error>" {
		t.Errorf("a second stop: %v", err)
	}
}

// TestCarriedDirectory: the working directory persists between calls, variables do not; a command that
// fails after a cd leaves the directory as it was.
func TestCarriedDirectory(t *testing.T) {
	w := behavior.NewWorkspace(t)
	eng := open(t, w)
	for _, c := range []struct{ command, want string }{
		{"cd sub; export X=1", "(Bash completed with no output)"},
		{"pwd; echo \"[$X]\"", filepath.Join(w.Real, "sub") + "\n[]"},
		{"cd ..; exit 3", "error"},
		{"pwd", filepath.Join(w.Real, "sub")},
	} {
		raw, _ := json.Marshal(map[string]string{"command": c.command})
		res, err := eng.Call(behavior.Bounded(t), "Bash", raw)
		if c.want == "error" {
			if err == nil {
				t.Errorf("%s: a result, want an error", c.command)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.command, err)
		}
		if got := text(t, res); got != c.want {
			t.Errorf("%s: %q, want %q", c.command, got, c.want)
		}
	}
}

// open starts an engine of the variant in the workspace, closed with the test.
func open(t *testing.T, w *behavior.Workspace) *runtime.Engine {
	t.Helper()
	v, err := claudecode.Spec()
	if err != nil {
		t.Fatal(err)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(w.Dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// TestTimeoutTerm: a command killed at its timeout gets SIGTERM first, so a TERM trap runs (it writes a
// file), and the answer is the output at expiry: what the trap prints is not in it (the 2.1.332 CLI
// answered "Exit code 143\nCommand timed out after 1s\nbegun" and wrote the file).
func TestTimeoutTerm(t *testing.T) {
	w := behavior.NewWorkspace(t)
	eng := open(t, w)
	raw, _ := json.Marshal(map[string]any{"command": "sleep 4 | (echo begun; trap 'echo T; echo T > termed.txt' TERM; sleep 10)", "timeout": 1000})
	_, err := eng.Call(behavior.Bounded(t), "Bash", raw)
	want := &runtime.ToolError{Type: "ShellError", Message: "Exit code 143\nCommand timed out after 1s\nbegun"}
	var te *runtime.ToolError
	if !errors.As(err, &te) || *te != *want {
		t.Errorf("got %v, want %v", err, want)
	}
	if b, err := os.ReadFile(filepath.Join(w.Real, "termed.txt")); err != nil || string(b) != "T\n" {
		t.Errorf("the TERM trap's file: %q, %v", b, err)
	}
}
