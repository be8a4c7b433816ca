package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentbash/agentbash/conformance/cases"
	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// slowStart is how long mcpslow takes to start: more than a case's own bound.
const slowStart = cases.DefaultMaxElapsed + time.Second

// faultyMCP is an MCP server over stdio (the go-sdk's) for v's tools that misbehaves as real servers do:
//
//	mcpslow    takes slowStart to start serving (desktop-commander takes about 4 s)
//	mcpnotify  answers every call with an error until it gets the notification test/ready (npm
//	           @openai/codex-shell-tool-mcp waits for codex/sandbox-state/update)
//	mcpnoeof   does not exit at the end of its input, only on SIGTERM (desktop-commander)
//	mcpnoterm  exits neither at the end of its input nor on SIGTERM
//	mcpleave   each call also starts a `sleep 30` in a session of its own, in /, that it never ends
func faultyMCP(mode string, v *spec.Variant) int {
	if mode == "mcpnoterm" {
		signal.Ignore(syscall.SIGTERM)
	}
	if mode == "mcpslow" {
		time.Sleep(slowStart)
	}
	wd, _ := os.Getwd()
	eng, err := runtime.New(v, runtime.WithWorkspace(wd))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		return 1
	}
	defer eng.Close()
	var ready atomic.Bool
	srv := mcp.NewServer(&mcp.Implementation{Name: "faulty", Version: "0"}, nil)
	for i := range v.Tools {
		name := v.Tools[i].Name
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if mode == "mcpnotify" && !ready.Load() {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "not ready: send test/ready first"}}}, nil
			}
			if mode == "mcpleave" {
				sleep := exec.Command("sleep", "30")
				sleep.Dir = "/"
				sleep.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
				if err := sleep.Start(); err != nil {
					return nil, err
				}
			}
			res, err := eng.Call(ctx, name, req.Params.Arguments)
			var te *runtime.ToolError
			switch {
			case errors.As(err, &te):
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: te.Message}},
					Meta: mcp.Meta{"agentbash/errorType": te.Type}}, nil
			case err != nil:
				return nil, err
			}
			text := string(res)
			var s string
			if json.Unmarshal(res, &s) == nil {
				text = s
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	// The notification test/ready is taken off the input before the SDK reads it.
	in, feed := io.Pipe()
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			if bytes.Contains(sc.Bytes(), []byte(`"method":"test/ready"`)) {
				ready.Store(true)
				continue
			}
			if _, err := feed.Write(append(sc.Bytes(), '\n')); err != nil {
				return
			}
		}
		feed.Close()
	}()
	if err := srv.Run(context.Background(), &mcp.IOTransport{Reader: in, Writer: os.Stdout}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "fake:", err)
	}
	switch mode {
	case "mcpnoeof":
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		<-term
	case "mcpnoterm":
		select {} // the suite kills it
	}
	return 0
}

// Each way a real MCP server misbehaves is judged for what it is: a slow start is not a slow case, a server
// that needs a notification works once the spec names it, one that ends only on SIGTERM ends as the MCP
// lifecycle says a client ends it (a warning), one that does not end on SIGTERM either fails its case and
// is killed, and a process a server leaves behind fails the case and is killed. A failure in the baseline
// does not fail the run, and a run that fails says why.
func TestMisbehavingMCPServers(t *testing.T) {
	t.Parallel()
	v := mustVariant(t, "rye")
	one := only("stdout only")
	ready := []target.Notification{{Method: "test/ready"}}
	for _, tc := range []struct {
		mode     string
		notes    []target.Notification
		opts     []Option
		pass     bool
		problems []string // substrings of the failed case's text
		warning  string   // a substring of a warning
	}{
		{mode: "mcpslow", opts: []Option{StartupDeadline(slowStart + 20*time.Second)}, pass: true},
		{mode: "mcpslow", opts: []Option{StartupDeadline(time.Second)}, problems: []string{"start"}},
		{mode: "mcpnotify", notes: ready, pass: true},
		{mode: "mcpnotify", problems: []string{"not ready: send test/ready first"}},
		{mode: "mcpnoeof", pass: true, warning: "SIGTERM ended it"},
		{mode: "mcpnoterm", problems: []string{"did not exit within 3s of EOF, nor within 3s of SIGTERM; killed it"}},
		{mode: "mcpleave", problems: []string{"left a process running: pid ", "(sleep 30); killed it"}},
	} {
		name := tc.mode
		if tc.notes != nil || len(tc.opts) > 0 && !tc.pass {
			name += " " + strconv.Itoa(len(tc.notes)) + "/" + strconv.FormatBool(tc.pass)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg := MCP(fakeTarget(tc.mode, "rye").Argv...)
			tg.Notifications = tc.notes
			tg.ExitWait = 3 * time.Second
			r, err := Check(context.Background(), v, tg, append([]Option{one}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.pass {
				if r.Passed != 1 || !r.OK() {
					t.Fatalf("want the case passed and the run OK:\n%s", r.Summary())
				}
				if tc.warning != "" && !strings.Contains(strings.Join(r.Warnings, "\n"), tc.warning) {
					t.Errorf("no warning says %q: %q", tc.warning, r.Warnings)
				}
				return
			}
			if r.Failed != 1 || r.OK() || len(r.Why()) == 0 {
				t.Fatalf("want the case failed, and the run failed with a reason:\n%s", r.Summary())
			}
			text := r.Results[0].Text()
			for _, p := range tc.problems {
				if !strings.Contains(text, p) {
					t.Errorf("the failure does not say %q:\n%s", p, text)
				}
			}
			// Whatever the server left is gone.
			for _, m := range regexp.MustCompile(`pid (\d+) \(sleep`).FindAllStringSubmatch(text, -1) {
				pid, _ := strconv.Atoi(m[1])
				if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.HasPrefix(string(b), "sleep\x0030") {
					t.Errorf("pid %d (sleep 30) still runs", pid)
				}
			}
			// With the failure in a baseline, the run passes: nothing else counts against it.
			b := &Baseline{Variant: v.ID, Failures: []ExpectedFailure{{Case: r.Results[0].Case, Reason: "known"}}}
			r2, err := Check(context.Background(), v, tg, append([]Option{one, WithBaseline(b)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			if !r2.OK() || r2.Expected != 1 {
				t.Errorf("with the failure in the baseline: OK %v (why: %q), %d expected failures\n%s", r2.OK(), r2.Why(), r2.Expected, r2.Summary())
			}
		})
	}
}

// A session id a side's answer gave is masked where a text shows it (desktop-commander's "process 31158",
// the reference's "process 1"), and nowhere else; ls -l's link-count column, padded to the widest count of
// the listing (which the workspace's parent decides), is compared without its padding.
func TestMaskSessionIDsAndLinks(t *testing.T) {
	for _, tc := range []struct {
		ids      []string
		in, want string
	}{
		{[]string{"31158"}, "Input executed in process 31158", "Input executed in process <SESSION_ID>"},
		{[]string{"1"}, "Process started with PID 1 (shell: /bin/sh)", "Process started with PID <SESSION_ID> (shell: /bin/sh)"},
		{[]string{"7"}, "session #7 ended; 7 lines", "session #<SESSION_ID> ended; 7 lines"},
		{[]string{"31158"}, "exit 31158", "exit 31158"},
		{nil, "process 31158", "process 31158"},
	} {
		if got := NewMasker().SessionIDs(tc.ids...).Text(tc.in); got != tc.want {
			t.Errorf("%q with ids %q: %q, want %q", tc.in, tc.ids, got, tc.want)
		}
	}
	// The same listing under a parent with 12 links and with 9: the same masked text.
	wide := "drwxr-xr-x  2 u u 4096 Nov 26 14:00 .\ndrwxr-xr-x 12 u u 4096 Nov 26 14:00 ..\n-rw-r--r--  1 u u    0 Nov 26 14:00 f\n"
	narrow := "drwxr-xr-x 2 u u 4096 Nov 26 14:00 .\ndrwxr-xr-x 9 u u 4096 Nov 26 14:00 ..\n-rw-r--r-- 1 u u    0 Nov 26 14:00 f\n"
	if a, b := NewMasker().Text(wide), NewMasker().Text(narrow); a != b {
		t.Errorf("the link-count padding is not masked:\n%s\n%s", a, b)
	}
}

// A failure's JUnit message and its baseline reason are its first difference on one line, without the pid
// or path of the run; a target's tolerated misbehaviour is one warning per kind, with a count.
func TestFailureReportLines(t *testing.T) {
	t.Parallel()
	v := mustVariant(t, "rye")
	r, err := Check(context.Background(), v, fakeTarget("exitcode", "rye"), only("non-zero exit", "stdout only"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed != 1 {
		t.Fatalf("want 1 failure:\n%s", r.Summary())
	}
	var failed Result
	for _, res := range r.Results {
		if res.Status == Fail {
			failed = res
		}
	}
	const want = "$.exit_code: want 3, got 1"
	xml, err := JUnit(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(xml), `<failure message="`+want+`"`) || strings.Contains(string(xml), `message="$:"`) {
		t.Errorf("the JUnit failure message is not the first difference %q:\n%s", want, xml)
	}
	if got := reasonOf(failed); got != want {
		t.Errorf("baseline reason %q, want %q", got, want)
	}
	if errs := strings.Count(string(xml), "<error "); !strings.Contains(string(xml), fmt.Sprintf(`errors="%d"`, errs)) {
		t.Errorf("errors= does not count the <error> elements (%d):\n%s", errs, xml)
	}

	// A log line before each answer's first message: one warning of its kind, with its count.
	r, err = Check(context.Background(), v, MCP(fakeTarget("mcpsloppy", "rye").Argv...), only("stdout only", "stderr only", "empty output"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, w := range r.Warnings {
		if strings.Contains(w, "not JSON") {
			kinds = append(kinds, w)
		}
	}
	if len(kinds) != 1 || !strings.Contains(kinds[0], "(3 times; the first shown)") {
		t.Errorf("want one warning of the kind with its count (3 times): %q", r.Warnings)
	}
}
