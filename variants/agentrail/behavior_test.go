package agentrail_test

// Behaviour of the agentrail spec on the shared runtime. Every expected value is written from upstream's
// contract (agentrail packages/capabilities/src/tools/bash.ts and ../../shared/upstream-facts.md), never
// captured from our own output.

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

const limit = 1 << 20 // MAX_OUTPUT_BYTES, per stream

const marker = "\n[output truncated]"

func content(text string) []any {
	return []any{behavior.Obj{{K: "type", V: "text"}, {K: "text", V: text}}}
}

// fg is upstream's foreground return value.
func fg(stdout, stderr string, code int) behavior.Obj {
	var parts []string
	if stdout != "" {
		parts = append(parts, stdout)
	}
	if stderr != "" {
		parts = append(parts, "[stderr]\n"+stderr)
	}
	if len(parts) == 0 {
		parts = append(parts, "(no output)")
	}
	parts = append(parts, fmt.Sprintf("\n[exit code: %d]", code))
	return behavior.Obj{
		{K: "content", V: content(strings.Join(parts, "\n"))},
		{K: "details", V: behavior.Obj{{K: "mode", V: "foreground"}, {K: "exit_code", V: code}, {K: "stdout", V: stdout}, {K: "stderr", V: stderr}}},
	}
}

// bg is upstream's background return value.
func bg(pid int, stdout, stderr string) behavior.Obj {
	parts := []string{fmt.Sprintf("Process is running in background (pid: %d)", pid)}
	if stdout != "" {
		parts = append(parts, stdout)
	}
	if stderr != "" {
		parts = append(parts, "[stderr]\n"+stderr)
	}
	return behavior.Obj{
		{K: "content", V: content(strings.Join(parts, "\n"))},
		{K: "details", V: behavior.Obj{{K: "mode", V: "background"}, {K: "pid", V: pid}, {K: "stdout", V: stdout}, {K: "stderr", V: stderr}}},
	}
}

// background checks a background result: the pid is the running shell's, and Close ends it.
func background(stdout, stderr string) func(*testing.T, *runtime.Engine, *behavior.Workspace, json.RawMessage) {
	return func(t *testing.T, eng *runtime.Engine, w *behavior.Workspace, got json.RawMessage) {
		var r struct {
			Details struct {
				Pid int `json:"pid"`
			} `json:"details"`
		}
		if err := json.Unmarshal(got, &r); err != nil || r.Details.Pid <= 0 {
			t.Fatalf("no pid in %s (%v)", behavior.Short(string(got)), err)
		}
		pid := r.Details.Pid
		behavior.Compare(t, got, bg(pid, stdout, stderr))
		if err := syscall.Kill(pid, 0); err != nil {
			t.Errorf("background shell %d is not running: %v", pid, err)
		}
		if err := eng.Close(); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("background shell %d survives Close (kill 0: %v)", pid, err)
		}
	}
}

var invalid = &runtime.ToolError{Type: "ToolValidationError", Message: `Invalid arguments for tool "Bash"`}

func TestBehavior(t *testing.T) {
	a := strings.Repeat
	cases := []behavior.Case{
		{Name: "stdout only", Params: behavior.Cmd("echo hi"), Want: behavior.Fixed(fg("hi\n", "", 0))},
		{Name: "stderr only", Params: behavior.Cmd("echo oops >&2"), Want: behavior.Fixed(fg("", "oops\n", 0))},
		{Name: "both", Params: behavior.Cmd("echo out; echo err >&2"), Want: behavior.Fixed(fg("out\n", "err\n", 0))},
		{Name: "non-zero exit", Params: behavior.Cmd("echo x; exit 3"), Want: behavior.Fixed(fg("x\n", "", 3))},
		{Name: "empty output", Params: behavior.Cmd("true"), Want: behavior.Fixed(fg("", "", 0))},
		{Name: "signal reports 0", Params: behavior.Cmd("kill -9 $$"), Want: behavior.Fixed(fg("", "", 0))},
		{Name: "stdin is closed", Params: behavior.Cmd("cat"), Want: behavior.Fixed(fg("", "", 0)), MaxTime: 5 * time.Second},
		{Name: "unicode", Params: behavior.Cmd(`printf 'h\303\251llo \342\202\254 \360\237\230\200\n'`), Want: behavior.Fixed(fg("héllo € 😀\n", "", 0))},
		{Name: "invalid UTF-8", Params: behavior.Cmd(`printf '\377\376'`), Want: behavior.Fixed(fg("\uFFFD\uFFFD", "", 0))},
		{Name: "truncated 3-byte sequence", Params: behavior.Cmd(`printf 'ab\342\202'`), Want: behavior.Fixed(fg("ab\uFFFD", "", 0))},
		{Name: "maximal subparts", Params: behavior.Cmd(`printf 'a\355\240\200b\342\202z'`), Want: behavior.Fixed(fg("a\uFFFD\uFFFD\uFFFDb\uFFFDz", "", 0))},
		{Name: "CRLF and lone CR are kept", Params: behavior.Cmd(`printf 'a\r\nb\rc\n'`), Want: behavior.Fixed(fg("a\r\nb\rc\n", "", 0))},
		{Name: "limit-1", Params: behavior.Cmd(behavior.Fill(limit - 1)), Want: behavior.Fixed(fg(a("a", limit-1), "", 0))},
		{Name: "limit", Params: behavior.Cmd(behavior.Fill(limit)), Want: behavior.Fixed(fg(a("a", limit), "", 0))},
		{Name: "limit+1", Params: behavior.Cmd(behavior.Fill(limit + 1)), Want: behavior.Fixed(fg(a("a", limit)+marker, "", 0))},
		{Name: "limit+1 on stderr", Params: behavior.Cmd(behavior.Fill(limit+1) + " >&2"), Want: behavior.Fixed(fg("", a("a", limit)+marker, 0))},
		{
			// "€" is E2 82 AC: the cut keeps E2, which decodes to U+FFFD.
			Name:   "multibyte character split at the limit",
			Params: behavior.Cmd(behavior.Fill(limit-1) + `; printf '\342\202\254'`),
			Want:   behavior.Fixed(fg(a("a", limit-1)+"\uFFFD"+marker, "", 0)),
		},
		{
			Name:    "timeout moves the process to the background with partial output",
			Params:  behavior.CmdWith("echo partial; echo e >&2; sleep 30", "timeout", 1000),
			Check:   background("partial\n", "e\n"),
			MaxTime: 3 * time.Second,
		},
		{Name: "zero timeout backgrounds at once", Params: behavior.CmdWith("echo hi; sleep 30", "timeout", 0), Check: background("", ""), MaxTime: 2 * time.Second},
		{Name: "negative timeout", Params: behavior.CmdWith("echo hi", "timeout", -1), Err: invalid},
		{Name: "fractional timeout", Params: behavior.CmdWith("echo hi", "timeout", 1.5), Err: invalid},
		{Name: "string timeout", Params: behavior.CmdWith("echo hi", "timeout", "5"), Err: invalid},
		{Name: "null timeout", Params: behavior.CmdWith("echo hi", "timeout", nil), Err: invalid},
		{Name: "null working_directory", Params: behavior.CmdWith("pwd", "working_directory", nil), Err: invalid},
		{Name: "null command", Params: behavior.CmdWith("", "command", nil), Err: invalid},
		{Name: "large timeout", Params: behavior.CmdWith("echo hi", "timeout", 100000000), Want: behavior.Fixed(fg("hi\n", "", 0))},
		{
			Name:   "working_directory relative",
			Params: behavior.CmdWith("pwd -P", "working_directory", "sub"),
			Want:   func(w *behavior.Workspace) any { return fg(w.Real+"/sub\n", "", 0) },
		},
		{
			Name: "working_directory absolute",
			Params: func(w *behavior.Workspace) map[string]any {
				return behavior.P("pwd -P", "working_directory", filepath.Join(w.Dir, "sub"))
			},
			Want: func(w *behavior.Workspace) any { return fg(w.Real+"/sub\n", "", 0) },
		},
		{Name: "working_directory outside is not confined", Params: behavior.CmdWith("pwd -P", "working_directory", "/"), Want: behavior.Fixed(fg("/\n", "", 0))},
		{
			Name:   "working_directory symlink escaping is not confined",
			Params: behavior.CmdWith("pwd -P", "working_directory", "escape"),
			Want:   func(w *behavior.Workspace) any { return fg(w.Outside+"\n", "", 0) },
		},
		{
			Name:   "working_directory empty is the default",
			Params: behavior.CmdWith("pwd -P", "working_directory", ""),
			Want:   func(w *behavior.Workspace) any { return fg(w.Real+"\n", "", 0) },
		},
		{Name: "working_directory missing", Params: behavior.CmdWith("pwd", "working_directory", "nope"), Want: behavior.Fixed(fg("", "spawn /bin/sh ENOENT", 1))},
		{
			Name:   "working_directory is a regular file",
			Params: behavior.CmdWith("pwd", "working_directory", "file"),
			Err:    &runtime.ToolError{Type: "Error", Message: "spawn ENOTDIR"},
		},
		{
			// timeout 0 settles the result before spawn's asynchronous ENOENT: background, pid undefined.
			Name:   "zero timeout and a missing working_directory",
			Params: behavior.CmdWith("echo hi", "timeout", 0, "working_directory", "nope"),
			Want: behavior.Fixed(behavior.Obj{
				{K: "content", V: content("Process is running in background (pid: undefined)")},
				{K: "details", V: behavior.Obj{{K: "mode", V: "background"}, {K: "stdout", V: ""}, {K: "stderr", V: ""}}},
			}),
		},
		{
			// Node's setTimeout runs a delay over 2^31-1 ms as 1 ms: the process goes to the background at once.
			Name:    "timeout past the timer's range",
			Params:  behavior.CmdWith("sleep 1; echo late", "timeout", 2147483648),
			Check:   background("", ""),
			MaxTime: 900 * time.Millisecond,
		},
		{
			// detached: true is setsid: the shell leads a session of its own.
			Name:   "the shell leads its own session",
			Params: behavior.Cmd(`[ "$(ps -o sid= -p $$ | tr -d ' ')" = "$$" ] && echo session`),
			Want:   behavior.Fixed(fg("session\n", "", 0)),
		},
		{Name: "missing command", Params: func(*behavior.Workspace) map[string]any { return map[string]any{} }, Err: invalid},
		{Name: "command of another type", Params: func(*behavior.Workspace) map[string]any { return map[string]any{"command": 5} }, Err: invalid},
		{Name: "empty command", Params: behavior.Cmd(""), Want: behavior.Fixed(fg("", "", 0))},
		{
			Name:   "shell missing",
			Params: behavior.Cmd("echo hi"),
			Opts:   []runtime.Option{runtime.WithShell("/nonexistent/sh", "-c")},
			Want:   behavior.Fixed(fg("", "spawn /nonexistent/sh ENOENT", 1)),
		},
		{
			// A file without execute permission: exec fails with EACCES, even for root; nothing runs.
			Name:   "shell not executable",
			Params: behavior.Cmd("echo hi"),
			Opts:   []runtime.Option{runtime.WithShell("/etc/passwd", "-c")},
			Want:   behavior.Fixed(fg("", "spawn /etc/passwd EACCES", 1)),
		},
	}
	behavior.Run(t, "agentrail", "Bash", cases)
}

// A call of a tool the agent does not have is the core executor's ToolNotFoundError.
func TestUnknownTool(t *testing.T) {
	v, err := variants.Spec("agentrail")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	_, err = eng.Call(behavior.Bounded(t), "Grep", json.RawMessage(`{}`))
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Type != "ToolNotFoundError" || te.Message != "Tool not found: Grep" {
		t.Fatalf("got %v", err)
	}
}
