package toolregistry_test

// Behaviour of the toolregistry spec on the shared runtime. Every expected value is written from upstream's
// contract (toolregistry-hub src/toolregistry_hub/bash_tool.py and ../../shared/upstream-facts.md), never
// captured from our own output.

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

const limit = 65536 // _MAX_OUTPUT_BYTES, per stream

func result(stdout, stderr string, code int) behavior.Obj {
	return behavior.Obj{{K: "stdout", V: stdout}, {K: "stderr", V: stderr}, {K: "exit_code", V: code}, {K: "timed_out", V: false}}
}

// timedOut is upstream's timeout result: TimeoutExpired carries bytes (never str), so the output is lost.
var timedOut = behavior.Obj{{K: "stdout", V: ""}, {K: "stderr", V: ""}, {K: "exit_code", V: -1}, {K: "timed_out", V: true}}

const marker = "\n... [output truncated]"

func TestBehavior(t *testing.T) {
	a := strings.Repeat
	decodeErr := func(msg string) *runtime.ToolError {
		return &runtime.ToolError{Type: "UnicodeDecodeError", Message: msg}
	}
	notFound := func(cwd string) *runtime.ToolError {
		return &runtime.ToolError{Type: "FileNotFoundError", Message: "Working directory does not exist: " + cwd}
	}
	cases := []behavior.Case{
		{Name: "stdout only", Params: behavior.Cmd("echo hi"), Want: behavior.Fixed(result("hi\n", "", 0))},
		{Name: "stderr only", Params: behavior.Cmd("echo oops >&2"), Want: behavior.Fixed(result("", "oops\n", 0))},
		{Name: "both", Params: behavior.Cmd("echo out; echo err >&2"), Want: behavior.Fixed(result("out\n", "err\n", 0))},
		{Name: "non-zero exit", Params: behavior.Cmd("echo x; exit 3"), Want: behavior.Fixed(result("x\n", "", 3))},
		{Name: "empty output", Params: behavior.Cmd("true"), Want: behavior.Fixed(result("", "", 0))},
		{Name: "signal", Params: behavior.Cmd("kill -9 $$"), Want: behavior.Fixed(result("", "", -9))},
		{Name: "stdin is closed", Params: behavior.Cmd("cat"), Want: behavior.Fixed(result("", "", 0)), MaxTime: 5 * time.Second},
		{Name: "unicode", Params: behavior.Cmd(`printf 'h\303\251llo \342\202\254 \360\237\230\200\n'`), Want: behavior.Fixed(result("héllo € 😀\n", "", 0))},
		{Name: "invalid UTF-8", Params: behavior.Cmd(`printf '\377\376'`), Err: decodeErr("'utf-8' codec can't decode byte 0xff in position 0: invalid start byte")},
		{Name: "truncated 3-byte sequence", Params: behavior.Cmd(`printf 'ab\342\202'`), Err: decodeErr("'utf-8' codec can't decode bytes in position 2-3: unexpected end of data")},
		{Name: "CRLF and lone CR", Params: behavior.Cmd(`printf 'a\r\nb\rc\n'; printf 'e\r' >&2`), Want: behavior.Fixed(result("a\nb\nc\n", "e\n", 0))},
		{Name: "limit-1", Params: behavior.Cmd(behavior.Fill(limit - 1)), Want: behavior.Fixed(result(a("a", limit-1), "", 0))},
		{Name: "limit", Params: behavior.Cmd(behavior.Fill(limit)), Want: behavior.Fixed(result(a("a", limit), "", 0))},
		{Name: "limit+1", Params: behavior.Cmd(behavior.Fill(limit + 1)), Want: behavior.Fixed(result(a("a", limit)+marker, "", 0))},
		{Name: "limit+1 on both streams", Params: behavior.Cmd(behavior.Fill(limit+1) + "; " + behavior.Fill(limit+1) + " >&2"), Want: behavior.Fixed(result(a("a", limit)+marker, a("a", limit)+marker, 0))},
		{
			// "€" is E2 82 AC: the cut keeps E2, decoded with errors="ignore" (dropped).
			Name:   "multibyte character split at the limit",
			Params: behavior.Cmd(behavior.Fill(limit-1) + `; printf '\342\202\254'`),
			Want:   behavior.Fixed(result(a("a", limit-1)+marker, "", 0)),
		},
		{Name: "timeout with partial output", Params: behavior.CmdWith("echo partial; sleep 5", "timeout", 1), Want: behavior.Fixed(timedOut), MaxTime: 3 * time.Second},
		{Name: "zero timeout expires at once", Params: behavior.CmdWith("echo hi", "timeout", 0), Want: behavior.Fixed(timedOut), MaxTime: 2 * time.Second},
		{Name: "negative timeout expires at once", Params: behavior.CmdWith("echo hi", "timeout", -5), Want: behavior.Fixed(timedOut), MaxTime: 2 * time.Second},
		{Name: "null timeout means none", Params: behavior.CmdWith("echo hi", "timeout", nil), Want: behavior.Fixed(result("hi\n", "", 0))},
		{Name: "large timeout", Params: behavior.CmdWith("echo hi", "timeout", 100000), Want: behavior.Fixed(result("hi\n", "", 0))},
		{
			Name:   "cwd relative",
			Params: behavior.CmdWith("pwd -P", "cwd", "sub"),
			Want:   func(w *behavior.Workspace) any { return result(w.Real+"/sub\n", "", 0) },
		},
		{
			Name: "cwd absolute",
			Params: func(w *behavior.Workspace) map[string]any {
				return behavior.P("pwd -P", "cwd", filepath.Join(w.Dir, "sub"))
			},
			Want: func(w *behavior.Workspace) any { return result(w.Real+"/sub\n", "", 0) },
		},
		{Name: "cwd outside is not confined", Params: behavior.CmdWith("pwd -P", "cwd", "/"), Want: behavior.Fixed(result("/\n", "", 0))},
		{
			Name:   "cwd symlink escaping is not confined",
			Params: behavior.CmdWith("pwd -P", "cwd", "escape"),
			Want:   func(w *behavior.Workspace) any { return result(w.Outside+"\n", "", 0) },
		},
		{Name: "cwd null is the default", Params: behavior.CmdWith("pwd -P", "cwd", nil), Want: func(w *behavior.Workspace) any { return result(w.Real+"\n", "", 0) }},
		{Name: "cwd missing", Params: behavior.CmdWith("pwd", "cwd", "nope"), Err: notFound("nope")},
		{Name: "cwd is a regular file", Params: behavior.CmdWith("pwd", "cwd", "file"), Err: notFound("file")},
		{
			Name:   "cwd empty",
			Params: behavior.CmdWith("pwd", "cwd", ""),
			Err:    &runtime.ToolError{Type: "FileNotFoundError", Message: "[Errno 2] No such file or directory: ''"},
		},
		{
			Name:   "missing command",
			Params: func(*behavior.Workspace) map[string]any { return map[string]any{} },
			Err:    &runtime.ToolError{Type: "TypeError", Message: "BashTool.execute() missing 1 required positional argument: 'command'"},
		},
		{Name: "empty command", Params: behavior.Cmd(""), Want: behavior.Fixed(result("", "", 0))},
		{
			// BashTool.execute(self, command, timeout=120, cwd=None) gets the arguments as keywords.
			Name:   "a parameter execute() does not take",
			Params: behavior.CmdWith("echo hi", "working_dir", "sub"),
			Err:    &runtime.ToolError{Type: "TypeError", Message: "BashTool.execute() got an unexpected keyword argument 'working_dir'"},
		},
		{
			Name:   "shell missing",
			Params: behavior.Cmd("echo hi"),
			Opts:   []runtime.Option{runtime.WithShell("/nonexistent/sh", "-c")},
			Err:    &runtime.ToolError{Type: "FileNotFoundError", Message: "[Errno 2] No such file or directory: '/nonexistent/sh'"},
		},
		{
			// A file without execute permission: exec fails with EACCES, even for root; nothing runs.
			Name:   "shell not executable",
			Params: behavior.Cmd("echo hi"),
			Opts:   []runtime.Option{runtime.WithShell("/etc/passwd", "-c")},
			Err:    &runtime.ToolError{Type: "PermissionError", Message: "[Errno 13] Permission denied: '/etc/passwd'"},
		},
	}
	behavior.Run(t, "toolregistry", "bash", cases)
}
