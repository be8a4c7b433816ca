package rye_test

// Behaviour of the rye spec on the shared runtime. Every expected value is written from upstream's contract
// (rye-os rye/bash/bash.py and ../../shared/upstream-facts.md), never captured from our own output.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

const limit = 51200 // MAX_OUTPUT_BYTES, per stream

// result is upstream's success/non-zero envelope: output joins the non-empty parts with "\n".
func result(stdout, stderr string, code int, truncated bool) behavior.Obj {
	var parts []string
	if stdout != "" {
		parts = append(parts, stdout)
	}
	if stderr != "" {
		parts = append(parts, "[stderr]\n"+stderr)
	}
	return behavior.Obj{
		{K: "success", V: code == 0},
		{K: "output", V: strings.Join(parts, "\n")},
		{K: "stdout", V: stdout},
		{K: "stderr", V: stderr},
		{K: "exit_code", V: code},
		{K: "truncated", V: truncated},
	}
}

func failure(msg string) behavior.Obj {
	return behavior.Obj{{K: "success", V: false}, {K: "error", V: msg}}
}

func timedOut(timeout any) behavior.Obj {
	return behavior.Obj{{K: "success", V: false}, {K: "error", V: fmt.Sprintf("Command timed out after %v seconds", timeout)}, {K: "timeout", V: timeout}}
}

func cut(text string, total int) string {
	return text + fmt.Sprintf("\n... [output truncated, %d bytes total]", total)
}

func TestBehavior(t *testing.T) {
	a := strings.Repeat
	cases := []behavior.Case{
		{Name: "stdout only", Params: behavior.Cmd("echo hi"), Want: behavior.Fixed(result("hi\n", "", 0, false))},
		{Name: "stderr only", Params: behavior.Cmd("echo oops >&2"), Want: behavior.Fixed(result("", "oops\n", 0, false))},
		{Name: "both", Params: behavior.Cmd("echo out; echo err >&2"), Want: behavior.Fixed(result("out\n", "err\n", 0, false))},
		{Name: "non-zero exit", Params: behavior.Cmd("echo x; echo y >&2; exit 3"), Want: behavior.Fixed(result("x\n", "y\n", 3, false))},
		{Name: "empty output", Params: behavior.Cmd("true"), Want: behavior.Fixed(result("", "", 0, false))},
		{Name: "signal", Params: behavior.Cmd("kill -9 $$"), Want: behavior.Fixed(result("", "", -9, false))},
		{Name: "stdin is closed", Params: behavior.Cmd("cat"), Want: behavior.Fixed(result("", "", 0, false)), MaxTime: 5 * time.Second},
		{Name: "unicode", Params: behavior.Cmd(`printf 'h\303\251llo \342\202\254 \360\237\230\200\n'`), Want: behavior.Fixed(result("héllo € 😀\n", "", 0, false))},
		{
			Name:   "invalid UTF-8",
			Params: behavior.Cmd(`printf '\377\376'`),
			Want:   behavior.Fixed(failure("'utf-8' codec can't decode byte 0xff in position 0: invalid start byte")),
		},
		{
			Name:   "truncated 3-byte sequence",
			Params: behavior.Cmd(`printf 'ab\342\202'`),
			Want:   behavior.Fixed(failure("'utf-8' codec can't decode bytes in position 2-3: unexpected end of data")),
		},
		{
			Name:   "invalid UTF-8 in stderr only",
			Params: behavior.Cmd(`echo fine; printf 'x\377' >&2`),
			Want:   behavior.Fixed(failure("'utf-8' codec can't decode byte 0xff in position 1: invalid start byte")),
		},
		{Name: "CRLF and lone CR", Params: behavior.Cmd(`printf 'a\r\nb\rc\n'; printf 'e\r\n' >&2`), Want: behavior.Fixed(result("a\nb\nc\n", "e\n", 0, false))},
		{Name: "limit-1", Params: behavior.Cmd(behavior.Fill(limit - 1)), Want: behavior.Fixed(result(a("a", limit-1), "", 0, false))},
		{Name: "limit", Params: behavior.Cmd(behavior.Fill(limit)), Want: behavior.Fixed(result(a("a", limit), "", 0, false))},
		{Name: "limit+1", Params: behavior.Cmd(behavior.Fill(limit + 1)), Want: behavior.Fixed(result(cut(a("a", limit), limit+1), "", 0, true))},
		{
			Name:   "limit+1 on stderr",
			Params: behavior.Cmd(behavior.Fill(limit+1) + " >&2"),
			Want:   behavior.Fixed(result("", cut(a("a", limit), limit+1), 0, true)),
		},
		{
			// CRLF becomes LF before the byte count: 51,201 raw bytes are 51,200 text bytes.
			Name:   "universal newlines before the limit",
			Params: behavior.Cmd(behavior.Fill(limit-1) + `; printf '\r\n'`),
			Want:   behavior.Fixed(result(a("a", limit-1)+"\n", "", 0, false)),
		},
		{
			// "€" is E2 82 AC: the cut keeps E2, decoded with errors="replace".
			Name:   "multibyte character split at the limit",
			Params: behavior.Cmd(behavior.Fill(limit-1) + `; printf '\342\202\254'`),
			Want:   behavior.Fixed(result(cut(a("a", limit-1)+"\uFFFD", limit+2), "", 0, true)),
		},
		{
			Name:    "timeout with partial output",
			Params:  behavior.CmdWith("echo partial; sleep 5", "timeout", 1),
			Want:    behavior.Fixed(timedOut(1)),
			MaxTime: 3 * time.Second,
		},
		{Name: "zero timeout expires at once", Params: behavior.CmdWith("echo hi", "timeout", 0), Want: behavior.Fixed(timedOut(0)), MaxTime: 2 * time.Second},
		{Name: "negative timeout expires at once", Params: behavior.CmdWith("echo hi", "timeout", -1), Want: behavior.Fixed(timedOut(-1)), MaxTime: 2 * time.Second},
		{Name: "null timeout means none", Params: behavior.CmdWith("echo hi", "timeout", nil), Want: behavior.Fixed(result("hi\n", "", 0, false))},
		{Name: "large timeout", Params: behavior.CmdWith("echo hi", "timeout", 100000), Want: behavior.Fixed(result("hi\n", "", 0, false))},
		{
			Name:   "working_dir relative",
			Params: func(w *behavior.Workspace) map[string]any { return behavior.P("pwd -P", "working_dir", "sub") },
			Want:   func(w *behavior.Workspace) any { return result(w.Real+"/sub\n", "", 0, false) },
		},
		{
			Name: "working_dir absolute",
			Params: func(w *behavior.Workspace) map[string]any {
				return behavior.P("pwd -P", "working_dir", filepath.Join(w.Dir, "sub"))
			},
			Want: func(w *behavior.Workspace) any { return result(w.Real+"/sub\n", "", 0, false) },
		},
		{
			Name:   "working_dir empty is the project root",
			Params: func(w *behavior.Workspace) map[string]any { return behavior.P("pwd -P", "working_dir", "") },
			Want:   func(w *behavior.Workspace) any { return result(w.Real+"\n", "", 0, false) },
		},
		{Name: "working_dir outside (..)", Params: behavior.CmdWith("pwd", "working_dir", ".."), Want: behavior.Fixed(failure("Working directory is outside the project workspace"))},
		{Name: "working_dir outside (absolute)", Params: behavior.CmdWith("pwd", "working_dir", "/"), Want: behavior.Fixed(failure("Working directory is outside the project workspace"))},
		{Name: "working_dir symlink escaping", Params: behavior.CmdWith("pwd", "working_dir", "escape"), Want: behavior.Fixed(failure("Working directory is outside the project workspace"))},
		{
			// Containment is checked before existence.
			Name:   "working_dir missing outside",
			Params: behavior.CmdWith("pwd", "working_dir", "../no-such-dir"),
			Want:   behavior.Fixed(failure("Working directory is outside the project workspace")),
		},
		{
			Name:   "working_dir missing",
			Params: behavior.CmdWith("pwd", "working_dir", "nope"),
			Want:   func(w *behavior.Workspace) any { return failure("Working directory not found: " + w.Real + "/nope") },
		},
		{
			Name:   "working_dir is a regular file",
			Params: behavior.CmdWith("pwd", "working_dir", "file"),
			Want:   func(w *behavior.Workspace) any { return failure("[Errno 20] Not a directory: '" + w.Real + "/file'") },
		},
		{
			// The project path is resolve()d: messages and the cwd name the real directory.
			Name:   "workspace given through a symlink",
			Linked: true,
			Params: behavior.CmdWith("pwd -P", "working_dir", "sub"),
			Want:   func(w *behavior.Workspace) any { return result(w.Real+"/sub\n", "", 0, false) },
		},
		{
			Name:   "workspace given through a symlink, working_dir missing",
			Linked: true,
			Params: behavior.CmdWith("pwd", "working_dir", "nope"),
			Want:   func(w *behavior.Workspace) any { return failure("Working directory not found: " + w.Real + "/nope") },
		},
		{
			Name:   "workspace given through a symlink, absolute working_dir through the link",
			Linked: true,
			Params: func(w *behavior.Workspace) map[string]any { return behavior.P("pwd -P", "working_dir", w.Dir+"/sub") },
			Want:   func(w *behavior.Workspace) any { return result(w.Real+"/sub\n", "", 0, false) },
		},
		{Name: "missing command", Params: func(*behavior.Workspace) map[string]any { return map[string]any{} }, Err: &runtime.ToolError{Type: "KeyError", Message: "'command'"}},
		{Name: "empty command", Params: behavior.Cmd(""), Want: behavior.Fixed(result("", "", 0, false))},
		// The runner passes the model's JSON values to Python unchecked (bash.py: subprocess.run(command,
		// shell=True, ..., timeout=timeout) after the working-directory checks; Popen runs list(command) for a
		// command that is not a str; communicate() adds the timeout to a float).
		{Name: "timeout with a fraction", Params: behavior.CmdWith("sleep 3", "timeout", 1.5), Want: behavior.Fixed(timedOut(1.5)), MaxTime: 3 * time.Second},
		{
			Name:    "timeout true is one second",
			Params:  behavior.CmdWith("sleep 3", "timeout", true),
			Want:    behavior.Fixed(behavior.Obj{{K: "success", V: false}, {K: "error", V: "Command timed out after True seconds"}, {K: "timeout", V: true}}),
			MaxTime: 3 * time.Second,
		},
		{Name: "timeout as a string", Params: behavior.CmdWith("sleep 3", "timeout", "1"), Want: behavior.Fixed(failure("unsupported operand type(s) for +: 'float' and 'str'"))},
		{Name: "timeout as a list", Params: behavior.CmdWith("sleep 3", "timeout", []any{1}), Want: behavior.Fixed(failure("unsupported operand type(s) for +: 'float' and 'list'"))},
		{Name: "timeout as an object", Params: behavior.CmdWith("sleep 3", "timeout", map[string]any{}), Want: behavior.Fixed(failure("unsupported operand type(s) for +: 'float' and 'dict'"))},
		{
			Name:   "command null",
			Params: func(*behavior.Workspace) map[string]any { return map[string]any{"command": nil} },
			Want:   behavior.Fixed(failure("'NoneType' object is not iterable")),
		},
		{
			Name:   "command as a number",
			Params: func(*behavior.Workspace) map[string]any { return map[string]any{"command": 42} },
			Want:   behavior.Fixed(failure("'int' object is not iterable")),
		},
		{
			// ["/bin/sh", "-c", "echo", "hi"]: echo runs with $0 = "hi" and prints an empty line.
			Name:   "command as a list",
			Params: func(*behavior.Workspace) map[string]any { return map[string]any{"command": []any{"echo", "hi"}} },
			Want:   behavior.Fixed(result("\n", "", 0, false)),
		},
		{
			Name: "command as a list with its arguments",
			Params: func(*behavior.Workspace) map[string]any {
				return map[string]any{"command": []any{`printf '%s,%s' "$0" "$1"`, "a", "b"}}
			},
			Want: behavior.Fixed(result("a,b", "", 0, false)),
		},
		{
			Name:   "command as a list with a number",
			Params: func(*behavior.Workspace) map[string]any { return map[string]any{"command": []any{"echo", 5}} },
			Want:   behavior.Fixed(failure("expected str, bytes or os.PathLike object, not int")),
		},
		{
			// The working directory is checked first, then subprocess.run meets the command.
			Name:   "command null, working_dir outside",
			Params: func(*behavior.Workspace) map[string]any { return map[string]any{"command": nil, "working_dir": "/"} },
			Want:   behavior.Fixed(failure("Working directory is outside the project workspace")),
		},
		{
			Name:   "shell missing",
			Params: behavior.Cmd("echo hi"),
			Opts:   []runtime.Option{runtime.WithShell("/nonexistent/sh", "-c")},
			Want:   behavior.Fixed(failure("[Errno 2] No such file or directory: '/nonexistent/sh'")),
		},
	}
	behavior.Run(t, "rye", "bash", cases)
}
