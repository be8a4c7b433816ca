package opencode_test

// Behaviour of the opencode spec on the shared runtime. Every expected value is written from upstream's
// code (opencode-ai 1.18.33's bundled ShellTool.run, the Truncate service's tail cut, the schema errors
// as the CLI words them; see opencode.yaml's source notes), never captured from our own output.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

// note is the <shell_metadata> block ShellTool.run appends when the timer fired.
func note(ms int) string {
	return "\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout " + strconv.Itoa(ms) +
		" ms. If this command is expected to take longer and is not waiting for interactive input, retry with a larger timeout value in milliseconds.\n</shell_metadata>"
}

// schemaError is the session's text for an argument the tool's Effect Schema refuses.
func schemaError(issue, key string) *runtime.ToolError {
	return &runtime.ToolError{Type: "Error", Message: "The bash tool was called with invalid arguments: SchemaError(" + issue +
		"\n  at [\"" + key + "\"]).\nPlease rewrite the input so it satisfies the expected schema."}
}

// seq is the output of `seq from to`.
func seq(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// wide is the output of `seq -f '%0100g' from to`: each number in 100 digits.
func wide(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%0100d\n", i)
	}
	return b.String()
}

func TestBehavior(t *testing.T) {
	behavior.Run(t, "opencode", "bash", []behavior.Case{
		// The all stream: stdout and stderr in one, and no exit code anywhere in the text.
		{Name: "both streams, no exit code", Params: behavior.Cmd("echo out; echo err >&2; exit 3"), Want: behavior.Fixed("out\nerr\n")},
		{Name: "output as it is", Params: behavior.Cmd(`printf '\n  a  \n\n'`), Want: behavior.Fixed("\n  a  \n\n")},
		// if (!output) output = "(no output)"
		{Name: "empty output", Params: behavior.Cmd("true"), Want: behavior.Fixed("(no output)")},
		{Name: "empty output of a failure", Params: behavior.Cmd("exit 1"), Want: behavior.Fixed("(no output)")},
		{Name: "blank command", Params: behavior.Cmd("   "), Want: behavior.Fixed("(no output)")},
		{Name: "bash", Params: behavior.Cmd(`echo "${BASH_VERSION:+bash}"`), Want: behavior.Fixed("bash\n")},
		{Name: "stdin ignored", Params: behavior.Cmd("cat; echo end"), Want: behavior.Fixed("end\n")},
		{Name: "invalid UTF-8 replaced", Params: behavior.Cmd(`printf 'a\377b\n'`), Want: behavior.Fixed("a\ufffdb\n")},
		// workdir: path.resolve(project, workdir); "" is the project.
		{Name: "workdir relative", Params: behavior.CmdWith("pwd", "workdir", "sub"), Want: func(w *behavior.Workspace) any { return w.Real + "/sub\n" }},
		{Name: "workdir empty", Params: behavior.CmdWith("pwd", "workdir", ""), Want: func(w *behavior.Workspace) any { return w.Real + "\n" }},
		{Name: "workdir outside", Params: behavior.CmdWith("pwd", "workdir", "escape"), Want: func(w *behavior.Workspace) any { return w.Outside + "\n" }},
		{Name: "workdir missing", Params: behavior.CmdWith("pwd", "workdir", "missing"),
			ErrFn: func(w *behavior.Workspace) *runtime.ToolError {
				return &runtime.ToolError{Type: "Error", Message: "NotFound: FileSystem.access (" + w.Dir + "/missing)"}
			}},
		// Bun's posix_spawn error for a working directory that is a file, naming the shell OpenCode chose.
		{Name: "workdir a file", Params: behavior.CmdWith("pwd", "workdir", "file"),
			ErrFn: func(*behavior.Workspace) *runtime.ToolError {
				return &runtime.ToolError{Type: "Error", Message: "ENOTDIR: not a directory, posix_spawn '" + acceptableShell() + "'"}
			}},
		// The schema's issues, before execute.
		{Name: "workdir null", Params: behavior.CmdWith("pwd", "workdir", nil), Err: schemaError("Expected string | undefined, got null", "workdir")},
		{Name: "timeout a fraction", Params: behavior.CmdWith("echo hi", "timeout", 1.5), Err: schemaError("Expected an integer, got 1.5", "timeout")},
		{Name: "missing command", Params: func(*behavior.Workspace) map[string]any { return map[string]any{} }, Err: schemaError("Missing key", "command")},
		{Name: "command of the wrong type", Params: func(*behavior.Workspace) map[string]any { return map[string]any{"command": 42} }, Err: schemaError("Expected string, got 42", "command")},
		{Name: "command null", Params: func(*behavior.Workspace) map[string]any { return map[string]any{"command": nil} }, Err: schemaError("Expected string, got null", "command")},
		{Name: "timeout a string", Params: behavior.CmdWith("echo hi", "timeout", "10"), Err: schemaError(`Expected number | undefined, got "10"`, "timeout")},
		{Name: "timeout zero", Params: behavior.CmdWith("echo hi", "timeout", 0), Err: schemaError("Expected a value greater than 0, got 0", "timeout")},
		{Name: "timeout negative", Params: behavior.CmdWith("echo hi", "timeout", -5), Err: schemaError("Expected a value greater than 0, got -5", "timeout")},
		// spawn("", {shell}) is Node's ERR_INVALID_ARG_VALUE.
		{Name: "empty command", Params: behavior.Cmd(""), Err: &runtime.ToolError{Type: "Error", Message: "The argument 'file' cannot be empty. Received ''"}},
		// The timer: the output so far, then the note (the text is never empty before it).
		{Name: "timeout keeps the output so far", Params: behavior.CmdWith("echo start; sleep 30; echo end", "timeout", 500),
			Want: behavior.Fixed("start\n" + note(500)), MaxTime: 20 * time.Second},
		{Name: "timeout without output", Params: behavior.CmdWith("sleep 30", "timeout", 300),
			Want: behavior.Fixed("(no output)" + note(300)), MaxTime: 20 * time.Second},
		// Within both bounds: 2000 lines is "1\n...\n1999\n" split into 2000 pieces.
		{Name: "1999 lines kept whole", Params: behavior.Cmd("seq 1999"), Want: behavior.Fixed(seq(1, 1999))},
		{Name: "51200 bytes kept whole", Params: behavior.Cmd(behavior.Fill(51200)), Want: behavior.Fixed(strings.Repeat("a", 51200))},
	})
}

var savedRE = regexp.MustCompile(`^\.\.\.output truncated\.\.\.\n\nFull output saved to: (/[^\n]+)\n\n`)

// TestTruncated checks the cut past either bound: the tail (the last lines within 2000 pieces and 51200
// bytes, or the last 51200 bytes of a longer last line) after the notice, and the whole output in the file.
func TestTruncated(t *testing.T) {
	for _, tc := range []struct {
		name, command, whole, tail string
	}{
		// 2001 pieces: the last 2000 are "2".."2000" and the empty one after the last newline.
		{"one line too many", "seq 2000", seq(1, 2000), seq(2, 2000)},
		{"lines", "seq 5000", seq(1, 5000), seq(3002, 5000)},
		// One line of 60000 bytes: its last 51200.
		{"one long line", behavior.Fill(60000), strings.Repeat("a", 60000), strings.Repeat("a", 51200)},
		// 1000 lines of 100 bytes: the empty last piece, then 101 bytes a line (its newline counted) while
		// the sum stays within 51200: 506 lines, 495 to 1000.
		{"bytes before lines", "seq -f '%0100g' 1000", wide(1, 1000), wide(495, 1000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := runtime.New(mustSpec(t), runtime.WithWorkspace(t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			res, err := v.Call(behavior.Bounded(t), "bash", []byte(fmt.Sprintf(`{"command": %q}`, tc.command)))
			if err != nil {
				t.Fatal(err)
			}
			text := unquote(t, res)
			m := savedRE.FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("no truncation notice: %s", behavior.Short(behavior.Quote(text)))
			}
			if got := text[len(m[0]):]; got != tc.tail {
				t.Errorf("tail: %d bytes, want %d; first difference at %d", len(got), len(tc.tail), behavior.FirstDiff(got, tc.tail))
			}
			b, err := os.ReadFile(m[1])
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.whole {
				t.Errorf("the file holds %d bytes, want the whole output (%d)", len(b), len(tc.whole))
			}
		})
	}
}

func mustSpec(t *testing.T) *spec.Variant {
	t.Helper()
	v, err := variants.Spec("opencode")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func unquote(t *testing.T, res json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(res, &s); err != nil {
		t.Fatalf("not a text result: %s", res)
	}
	return s
}

// acceptableShell is the shell OpenCode 1.18.33 runs (Shell.acceptable): $SHELL when it is set, is not
// fish or nu and is a file; else the first bash on PATH; else /bin/sh.
func acceptableShell() string {
	if sh := os.Getenv("SHELL"); sh != "" && filepath.Base(sh) != "fish" && filepath.Base(sh) != "nu" {
		if fi, err := os.Stat(sh); err == nil && fi.Mode().IsRegular() {
			return sh
		}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}
