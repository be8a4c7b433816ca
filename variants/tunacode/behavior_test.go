package tunacode_test

// Behaviour of the tunacode spec on the shared runtime. Every expected value is written from upstream's
// contract (tunacode src/tunacode/tools/bash.py, pydantic-ai era, and ../../shared/upstream-facts.md), never
// captured from our own output. Commands avoid ; & ` $( and braces so that they stay valid once the
// policy work adds upstream's command checks.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

// format is upstream's _format_output with the standard command limit (5,000 characters).
func format(command string, code int, cwd, stdout, stderr string) string {
	if stdout == "" {
		stdout = "(no output)"
	}
	if stderr == "" {
		stderr = "(no errors)"
	}
	text := strings.Join([]string{
		"Command: " + command,
		fmt.Sprintf("Exit Code: %d", code),
		"Working Directory: " + cwd,
		"",
		"STDOUT:",
		stdout,
		"",
		"STDERR:",
		stderr,
	}, "\n")
	r := []rune(text)
	if len(r) <= 5000 {
		return text
	}
	end := string(r[2500:])
	if len(r) > 3500 {
		end = string(r[len(r)-1000:])
	}
	return string(r[:2500]) + "\n...\n[truncated]\n...\n" + end
}

func retry(msg string) *runtime.ToolError {
	return &runtime.ToolError{Type: "ModelRetry", Message: msg}
}

const (
	rangeMsg   = "Timeout must be between 1 and 300 seconds. Use shorter timeouts for quick commands, longer for builds/tests."
	timeoutFmt = "Command timed out after %v seconds: %s\nConsider using a longer timeout or breaking the command into smaller parts."
)

func cwdMsg(cwd string) string {
	return "Working directory '" + cwd + "' does not exist. Please verify the path or create the directory first."
}

// sized writes big (n characters of content) so that the formatted text of `cat big` is total characters
// long, and returns the content.
func sized(t *testing.T, w *behavior.Workspace, total int, content func(n int) string) string {
	n := total - utf8.RuneCountInString(format("cat big", 0, w.Real, "x", "")) + 1
	s := content(n)
	if err := os.WriteFile(filepath.Join(w.Dir, "big"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBehavior(t *testing.T) {
	in := func(command string, stdout, stderr string, code int) func(*behavior.Workspace) any {
		return func(w *behavior.Workspace) any { return format(command, code, w.Real, stdout, stderr) }
	}
	as := func(n int) string { return strings.Repeat("a", n) }
	var cases []behavior.Case
	cases = append(cases, []behavior.Case{
		{Name: "stdout only", Params: behavior.Cmd("echo hi"), Want: in("echo hi", "hi", "", 0)},
		{Name: "stderr only", Params: behavior.Cmd("echo oops >/dev/stderr"), Want: in("echo oops >/dev/stderr", "", "oops", 0)},
		{Name: "both", Params: behavior.Cmd("echo out\necho err >/dev/stderr"), Want: in("echo out\necho err >/dev/stderr", "out", "err", 0)},
		{Name: "non-zero exit", Params: behavior.Cmd("echo x\nexit 3"), Want: in("echo x\nexit 3", "x", "", 3)},
		{Name: "empty output", Params: behavior.Cmd("true"), Want: in("true", "", "", 0)},
		{Name: "whitespace-only output is stripped", Params: behavior.Cmd(`printf '  \n\t\n'`), Want: in(`printf '  \n\t\n'`, "", "", 0)},
		{Name: "output is stripped", Params: behavior.Cmd(`printf '\n\n  hi  there \n\n'`), Want: in(`printf '\n\n  hi  there \n\n'`, "hi  there", "", 0)},
		{Name: "stdin is closed", Params: behavior.Cmd("cat"), Want: in("cat", "", "", 0), MaxTime: 5 * time.Second},
		{Name: "unicode", Params: behavior.Cmd(`printf 'h\303\251llo \342\202\254 \360\237\230\200\n'`), Want: in(`printf 'h\303\251llo \342\202\254 \360\237\230\200\n'`, "héllo € 😀", "", 0)},
		{Name: "invalid UTF-8", Params: behavior.Cmd(`printf '\377\376'`), Want: in(`printf '\377\376'`, "\uFFFD\uFFFD", "", 0)},
		{Name: "truncated 3-byte sequence", Params: behavior.Cmd(`printf 'ab\342\202'`), Want: in(`printf 'ab\342\202'`, "ab\uFFFD", "", 0)},
		{
			// ED A0 80 (an encoded surrogate): no valid prefix, so one U+FFFD per byte.
			Name:   "maximal subparts",
			Params: behavior.Cmd(`printf 'a\355\240\200b\342\202z'`),
			Want:   in(`printf 'a\355\240\200b\342\202z'`, "a\uFFFD\uFFFD\uFFFDb\uFFFDz", "", 0),
		},
		{Name: "CRLF and lone CR are kept", Params: behavior.Cmd(`printf 'a\r\nb\rc\r\n'`), Want: in(`printf 'a\r\nb\rc\r\n'`, "a\r\nb\rc", "", 0)},
	}...)
	// The whole formatted text is limited to 5,000 characters.
	for _, total := range []int{4999, 5000, 5001, 20000} {
		cases = append(cases, behavior.Case{
			Name: fmt.Sprintf("text of %d characters", total),
			Params: func(w *behavior.Workspace) map[string]any {
				sized(t, w, total, as)
				return behavior.P("cat big")
			},
			Want: func(w *behavior.Workspace) any {
				return format("cat big", 0, w.Real, sized(t, w, total, as), "")
			},
		})
	}
	cases = append(cases, behavior.Case{
		// Characters, not bytes: a multibyte character at the head's last index and one at the tail's first
		// are kept whole.
		Name: "multibyte characters at the cut",
		Params: func(w *behavior.Workspace) map[string]any {
			sized(t, w, 6000, multibyte(w))
			return behavior.P("cat big")
		},
		Want: func(w *behavior.Workspace) any {
			text := format("cat big", 0, w.Real, sized(t, w, 6000, multibyte(w)), "")
			r := []rune(text)
			if r[2499] != '€' || r[len(r)-1000] != 'é' {
				t.Errorf("test setup: runes at the cut are %q and %q", r[2499], r[len(r)-1000])
			}
			if utf8.RuneCountInString(text) != 3521 {
				t.Errorf("test setup: %d characters, want 3521", utf8.RuneCountInString(text))
			}
			return text
		},
	})
	cases = append(cases, []behavior.Case{
		{
			Name:    "timeout with partial output",
			Params:  behavior.CmdWith("echo partial\nsleep 5", "timeout", 1),
			Err:     retry(fmt.Sprintf(timeoutFmt, 1, "echo partial\nsleep 5")),
			MaxTime: 3 * time.Second,
		},
		{Name: "zero timeout expires at once", Params: behavior.CmdWith("echo hi", "timeout", 0), Err: retry(fmt.Sprintf(timeoutFmt, 0, "echo hi")), MaxTime: 2 * time.Second},
		{Name: "null timeout means none", Params: behavior.CmdWith("echo hi", "timeout", nil), Want: in("echo hi", "hi", "", 0)},
		{Name: "timeout 1 is in range", Params: behavior.CmdWith("echo hi", "timeout", 1), Want: in("echo hi", "hi", "", 0)},
		{Name: "timeout 300 is in range", Params: behavior.CmdWith("echo hi", "timeout", 300), Want: in("echo hi", "hi", "", 0)},
		{Name: "timeout above range", Params: behavior.CmdWith("echo hi", "timeout", 301), Err: retry(rangeMsg)},
		{Name: "negative timeout", Params: behavior.CmdWith("echo hi", "timeout", -1), Err: retry(rangeMsg)},
		{Name: "timeout is checked before cwd", Params: behavior.CmdWith("echo hi", "timeout", 301, "cwd", "nope"), Err: retry(rangeMsg)},
		{Name: "timeout is checked before the empty command", Params: behavior.CmdWith("", "timeout", 301), Err: retry(rangeMsg)},
		{Name: "cwd is checked before the empty command", Params: behavior.CmdWith(" ", "cwd", "nope"), Err: retry(cwdMsg("nope"))},
		{
			Name:   "cwd relative",
			Params: behavior.CmdWith("pwd -P", "cwd", "sub"),
			Want:   func(w *behavior.Workspace) any { return format("pwd -P", 0, "sub", w.Real+"/sub", "") },
		},
		{
			Name: "cwd absolute",
			Params: func(w *behavior.Workspace) map[string]any {
				return behavior.P("pwd -P", "cwd", filepath.Join(w.Dir, "sub"))
			},
			Want: func(w *behavior.Workspace) any {
				return format("pwd -P", 0, filepath.Join(w.Dir, "sub"), w.Real+"/sub", "")
			},
		},
		{Name: "cwd outside is not confined", Params: behavior.CmdWith("pwd -P", "cwd", "/"), Want: behavior.Fixed(format("pwd -P", 0, "/", "/", ""))},
		{
			Name:   "cwd symlink escaping is not confined",
			Params: behavior.CmdWith("pwd -P", "cwd", "escape"),
			Want:   func(w *behavior.Workspace) any { return format("pwd -P", 0, "escape", w.Outside, "") },
		},
		{Name: "cwd empty is the default", Params: behavior.CmdWith("pwd -P", "cwd", ""), Want: func(w *behavior.Workspace) any { return format("pwd -P", 0, w.Real, w.Real, "") }},
		{Name: "cwd null is the default", Params: behavior.CmdWith("pwd -P", "cwd", nil), Want: func(w *behavior.Workspace) any { return format("pwd -P", 0, w.Real, w.Real, "") }},
		{
			// Without cwd upstream reports os.getcwd(): the workspace with symlinks resolved.
			Name:   "workspace given through a symlink",
			Linked: true,
			Params: behavior.Cmd("pwd -P"),
			Want:   func(w *behavior.Workspace) any { return format("pwd -P", 0, w.Real, w.Real, "") },
		},
		{Name: "cwd missing", Params: behavior.CmdWith("pwd", "cwd", "nope"), Err: retry(cwdMsg("nope"))},
		{Name: "cwd is a regular file", Params: behavior.CmdWith("pwd", "cwd", "file"), Err: retry(cwdMsg("file"))},
		{Name: "missing command", Params: func(*behavior.Workspace) map[string]any { return map[string]any{} }, ErrType: "ValidationError"},
		{Name: "empty command", Params: behavior.Cmd(""), Err: retry("Empty command not allowed")},
		{Name: "blank command", Params: behavior.Cmd(" \t\n"), Err: retry("Empty command not allowed")},
		{Name: "env is merged", Params: behavior.CmdWith(`echo "$FOO"`, "env", map[string]any{"FOO": "bar baz"}), Want: in(`echo "$FOO"`, "bar baz", "", 0)},
		{
			Name:   "env overrides the inherited environment",
			Params: behavior.CmdWith(`echo "$FOO $KEEP"`, "env", map[string]any{"FOO": "new"}),
			Opts:   []runtime.Option{runtime.WithEnv([]string{"FOO=old", "KEEP=kept", "PATH=" + os.Getenv("PATH")})},
			Want:   in(`echo "$FOO $KEEP"`, "new kept", "", 0),
		},
		{
			// Upstream drops an entry whose value is not a string, silently; the others are still set.
			// pydantic validates dict[str, str]: a value that is not a string is refused (lax mode turns no
			// number into a string).
			Name:   "env with a non-string value",
			Params: behavior.CmdWith(`echo "[${ORACLE_NUM-unset}] $FOO"`, "env", map[string]any{"ORACLE_NUM": 5, "FOO": "kept"}),
			Err:    &runtime.ToolError{Type: "ValidationError", Message: "env.ORACLE_NUM: Input should be a valid string"},
		},
		{Name: "capture_output false", Params: behavior.CmdWith("echo hi\necho err >/dev/stderr", "capture_output", false), Want: in("echo hi\necho err >/dev/stderr", "", "", 0)},
		{
			Name:   "shell missing",
			Params: behavior.Cmd("echo hi"),
			Opts:   []runtime.Option{runtime.WithShell("/nonexistent/sh", "-c")},
			Err:    retry("Shell not found. Cannot execute command: echo hi\nThis typically indicates a system configuration issue."),
		},
	}...)
	behavior.Run(t, "tunacode", "bash", cases)
}

// multibyte is content of n characters whose formatted text has "€" at index 2499 (the head's last) and
// "é" at the tail's first character.
func multibyte(w *behavior.Workspace) func(n int) string {
	return func(n int) string {
		before := 2499 - utf8.RuneCountInString("Command: cat big\nExit Code: 0\nWorking Directory: "+w.Real+"\n\nSTDOUT:\n")
		suffix := utf8.RuneCountInString("\n\nSTDERR:\n(no errors)")
		tail := 1000 - suffix - 1 // characters after é
		mid := n - before - 1 - 1 - tail
		return strings.Repeat("a", before) + "€" + strings.Repeat("b", mid) + "é" + strings.Repeat("c", tail)
	}
}
