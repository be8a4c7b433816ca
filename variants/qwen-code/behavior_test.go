package qwencode_test

// Behaviour of the qwen-code spec on the shared runtime. Every expected value is written from upstream's
// code (@qwen-code/qwen-code 0.24.4: packages/core/src/tools/shell.ts's ShellTool and ShellToolInvocation,
// services/shellExecutionService.ts's childProcessFallback, tools/truncation.ts; see qwen-code.yaml's
// source notes) and what that CLI answered under make hosts, never captured from our own output. What no
// contract can fix in advance (a pid, a shell id, a file's name) is checked by its shape.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

const tool = "run_shell_command"

// result is the foreground template (ShellToolInvocation.execute), every line present.
func result(command, directory, output string, exit string, signal string) string {
	if directory == "" {
		directory = "(root)"
	}
	if output == "" {
		output = "(empty)"
	}
	return "Command: " + command + "\nDirectory: " + directory + "\nOutput: " + output + "\nError: (none)\nExit Code: " +
		exit + "\nSignal: " + signal + "\nProcess Group PGID: (none)"
}

func fail(msg string) *runtime.ToolError { return &runtime.ToolError{Type: "Error", Message: msg} }

func text(t *testing.T, got json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatalf("not a text result: %s", got)
	}
	return s
}

func TestBehavior(t *testing.T) {
	cases := []behavior.Case{
		{Name: "stdout only", Params: behavior.Cmd("echo hello"), Want: behavior.Fixed(result("echo hello", "", "hello", "0", "(none)"))},
		{Name: "stdout and stderr, exit 3", Params: behavior.Cmd("echo out; echo err >&2; exit 3"), Want: behavior.Fixed(result("echo out; echo err >&2; exit 3", "", "out\nerr", "3", "(none)"))},
		{Name: "empty output", Params: behavior.Cmd("true"), Want: behavior.Fixed(result("true", "", "", "0", "(none)"))},
		// handleExit: code null, signal os.constants.signals.SIGKILL.
		{Name: "killed by a signal", Params: behavior.Cmd("kill -9 $$"), Want: behavior.Fixed(result("kill -9 $$", "", "", "(none)", "9"))},
		// stripAnsi(combinedOutput).trim().
		{Name: "ANSI stripped, trimmed", Params: behavior.Cmd(`printf '\n  \033[31mred\033[0m  \n\n'`), Want: behavior.Fixed(result(`printf '\n  \033[31mred\033[0m  \n\n'`, "", "red", "0", "(none)"))},
		{Name: "stdin is closed", Params: behavior.Cmd("cat"), Want: behavior.Fixed(result("cat", "", "", "0", "(none)")), MaxTime: 10 * time.Second},
		{Name: "environment", Params: behavior.Cmd("echo $QWEN_CODE $TERM"), Want: behavior.Fixed(result("echo $QWEN_CODE $TERM", "", "1 xterm-256color", "0", "(none)"))},
		// Directory: the parameter as sent; the command runs there.
		{
			Name:   "absolute directory",
			Params: func(w *behavior.Workspace) map[string]any { return behavior.P("pwd", "directory", w.Real+"/sub") },
			Want:   func(w *behavior.Workspace) any { return result("pwd", w.Real+"/sub", w.Real+"/sub", "0", "(none)") },
		},
		{Name: "empty directory is the root", Params: behavior.CmdWith("echo root", "directory", ""), Want: behavior.Fixed(result("echo root", "", "root", "0", "(none)"))},
		{Name: "relative directory", Params: behavior.CmdWith("pwd", "directory", "sub"), Err: fail("Directory must be an absolute path.")},
		{
			Name:   "directory outside the workspace",
			Params: func(w *behavior.Workspace) map[string]any { return behavior.P("pwd", "directory", w.Outside) },
			ErrFn: func(w *behavior.Workspace) *runtime.ToolError {
				return fail("Directory '" + w.Outside + "' is not within any of the registered workspace directories.")
			},
		},
		// child.on("error"): spawn bash ENOENT; spawn() throws ENOTDIR without the file.
		{
			Name:   "missing directory",
			Params: func(w *behavior.Workspace) map[string]any { return behavior.P("pwd", "directory", w.Real+"/missing") },
			Err:    fail("spawn bash ENOENT"),
		},
		{
			Name:   "directory is a file",
			Params: func(w *behavior.Workspace) map[string]any { return behavior.P("pwd", "directory", w.Real+"/file") },
			Err:    fail("spawn ENOTDIR"),
		},
		// The schema (Ajv) before validateToolParamValues.
		{Name: "missing command", Params: func(*behavior.Workspace) map[string]any { return map[string]any{} }, Err: fail("params must have required property 'command'")},
		{Name: "blank command", Params: behavior.Cmd("  \n"), Err: fail("Command cannot be empty.")},
		{Name: "timeout 0", Params: behavior.CmdWith("echo x", "timeout", 0), Err: fail("params/timeout must be >= 1")},
		{Name: "timeout above the maximum", Params: behavior.CmdWith("echo x", "timeout", 600001), Err: fail("params/timeout must be <= 600000")},
		{Name: "timeout with a fraction", Params: behavior.CmdWith("echo x", "timeout", 1.5), Err: fail("params/timeout must be integer")},
		{Name: "is_background not a boolean", Params: behavior.CmdWith("echo x", "is_background", "yes"), Err: fail("params/is_background must be boolean")},
		{Name: "command an array", Params: behavior.CmdWith("", "command", []any{"ls"}), Err: fail("params/command must be string")},
		// Ajv's coerceTypes: what make hosts saw 0.24.4 answer.
		{Name: "command a number", Params: behavior.CmdWith("", "command", 42), Want: behavior.Fixed(result("42", "", "bash: line 1: 42: command not found", "127", "(none)"))},
		{Name: "timeout a numeric string", Params: behavior.CmdWith("echo typed; tail -f /dev/null", "timeout", "300"), Want: behavior.Fixed("Command timed out after 300ms before it could complete. Below is the output before it timed out:\ntyped")},
		{Name: "timeout a string below the minimum", Params: behavior.CmdWith("echo x", "timeout", "0"), Err: fail("params/timeout must be >= 1")},
		{Name: "is_background \"false\"", Params: behavior.CmdWith("echo fg", "is_background", "false"), Want: behavior.Fixed(result("echo fg", "", "fg", "0", "(none)"))},
		// AbortSignal.timeout(effectiveTimeout): the group is killed, the output so far kept.
		{
			Name:   "timeout with partial output",
			Params: behavior.CmdWith("echo before; tail -f /dev/null", "timeout", 500),
			Want:   behavior.Fixed("Command timed out after 500ms before it could complete. Below is the output before it timed out:\nbefore"),
		},
		{
			Name:   "timeout without output",
			Params: behavior.CmdWith("tail -f /dev/null", "timeout", 300),
			Want:   behavior.Fixed("Command timed out after 300ms before it could complete. There was no output before it timed out."),
		},
		{Name: "timeout at the maximum runs", Params: behavior.CmdWith("echo max", "timeout", 600000), Want: behavior.Fixed(result("echo max", "", "max", "0", "(none)"))},
		{
			Name:   "output within the bound",
			Params: behavior.Cmd(behavior.Fill(29000)),
			Want:   behavior.Fixed(result(behavior.Fill(29000), "", strings.Repeat("a", 29000), "0", "(none)")),
		},
		{Name: "output over the bound is saved", Params: behavior.Cmd("seq 1 20000"), Check: checkSpilled},
		{Name: "background", Params: behavior.CmdWith("echo started", "is_background", true), Check: checkBackground},
	}
	behavior.Run(t, "qwen-code", tool, cases)
}

var spilledRE = regexp.MustCompile(`^Tool output was too large and has been truncated\.
The full output has been saved to: (/\S+/run_shell_command_[0-9a-f]{12}\.output)
To read the complete output, use the read_file tool with the absolute file path above\.
The truncated output below shows the beginning and end of the content\. The marker '\.\.\. \[CONTENT TRUNCATED\] \.\.\.' indicates where content was removed\.

Truncated part of the output:
Command: seq 1 20000
Directory: \(root\)
Output: 1
2
`)

// checkSpilled: the header, the head's whole lines, the separator, the tail's whole lines up to 20000 and
// the template's last lines; the file holds the whole output.
func checkSpilled(t *testing.T, _ *runtime.Engine, _ *behavior.Workspace, got json.RawMessage) {
	s := text(t, got)
	m := spilledRE.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("not a truncated answer: %s", behavior.Short(s))
	}
	const sep = "\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n"
	head, tail, ok := strings.Cut(s, sep)
	if !ok {
		t.Fatalf("no separator in %s", behavior.Short(s))
	}
	out := head[strings.Index(head, "Output: ")+len("Output: "):]
	if len(out) > 792 || strings.HasSuffix(out, "\n") || !strings.HasPrefix(out, "1\n2\n3\n") {
		t.Errorf("head %q: want whole lines from 1, within 792 characters", out)
	}
	const end = "\n20000\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)"
	if !strings.HasSuffix(tail, end) {
		t.Errorf("tail ends %q, want %q", tail[max(0, len(tail)-120):], end)
	}
	if n := len(strings.TrimSuffix(tail, end[len("\n20000"):])); n > 3169 {
		t.Errorf("tail of %d characters, want at most 3169", n)
	}
	b, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "1\n2\n") || !strings.HasSuffix(string(b), "\n19999\n20000\n") || strings.Count(string(b), "\n") != 20000 {
		t.Errorf("file %s holds %d bytes, not seq 1 20000", m[1], len(b))
	}
}

var backgroundRE = regexp.MustCompile(`^Background shell started\.
id: (bg_[0-9a-f]{8})
pid: [1-9][0-9]*
output file: (/\S+)/background-shells/[0-9a-f-]{36}/shell-(bg_[0-9a-f]{8})\.output
status file: /\S+/shell-bg_[0-9a-f]{8}\.status
To check whether this process is still running, Read the status file \(status: running\|completed\|failed\|cancelled\)\. `)

func checkBackground(t *testing.T, _ *runtime.Engine, _ *behavior.Workspace, got json.RawMessage) {
	s := text(t, got)
	m := backgroundRE.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("not a background answer: %s", behavior.Short(s))
	}
	if m[1] != m[3] {
		t.Errorf("id %s, file of %s", m[1], m[3])
	}
	if !filepath.IsAbs(m[2]) {
		t.Errorf("output file under %q: want an absolute path", m[2])
	}
	if !strings.HasSuffix(s, "Read the output file directly to view the captured output.") {
		t.Errorf("answer ends %q", s[max(0, len(s)-80):])
	}
}
