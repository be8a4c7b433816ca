package codegensandbox_test

// Behaviour of the codegensandbox spec on the shared runtime. Every expected value is written from
// upstream's contract (CodeGen-Sandbox internal/tools/bash.go, bash_output.go, kill_shell.go,
// shell_registry.go and ../../shared/upstream-facts.md), never captured from our own output. Results are MCP
// text; MCP error results are ToolError.

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

const limit = 100 * 1024 // bashOutputCapBytes, stdout and stderr combined

func toolErr(msg string) *runtime.ToolError {
	return &runtime.ToolError{Type: "ToolError", Message: msg}
}

// bp is a Bash call: description is required.
func bp(command string, kvs ...any) func(*behavior.Workspace) map[string]any {
	return func(*behavior.Workspace) map[string]any {
		return behavior.P(command, append([]any{"description", "test command"}, kvs...)...)
	}
}

func elided(n int) string { return fmt.Sprintf("\n... (output truncated, %d bytes elided)", n) }

func TestBash(t *testing.T) {
	a := strings.Repeat
	cases := []behavior.Case{
		{Name: "stdout only", Params: bp("echo hi"), Want: behavior.Fixed("hi\n")},
		{Name: "stderr only", Params: bp("echo oops >&2"), Want: behavior.Fixed("oops\n")},
		{Name: "both, interleaved as written", Params: bp("echo out; echo err >&2; echo out2"), Want: behavior.Fixed("out\nerr\nout2\n")},
		{Name: "non-zero exit", Params: bp("echo x; exit 3"), Want: behavior.Fixed("x\nexit: 3\n")},
		{Name: "no trailing newline", Params: bp("printf x; exit 2"), Want: behavior.Fixed("x\nexit: 2\n")},
		{Name: "empty output", Params: bp("true"), Want: behavior.Fixed("")},
		{Name: "empty output, non-zero exit", Params: bp("exit 5"), Want: behavior.Fixed("exit: 5\n")},
		{Name: "signal", Params: bp("kill -9 $$"), Want: behavior.Fixed("exit: -1\n")},
		{Name: "stdin is closed", Params: bp("cat"), Want: behavior.Fixed(""), MaxTime: 5 * time.Second},
		{Name: "unicode", Params: bp(`printf 'h\303\251llo \342\202\254 \360\237\230\200\n'`), Want: behavior.Fixed("héllo € 😀\n")},
		{Name: "invalid UTF-8", Params: bp(`printf '\377\376'`), Want: behavior.Fixed("\uFFFD\uFFFD\n")},
		{Name: "truncated 3-byte sequence", Params: bp(`printf 'ab\342\202'`), Want: behavior.Fixed("ab\uFFFD\uFFFD\n")},
		{Name: "CRLF and lone CR are kept", Params: bp(`printf 'a\r\nb\rc\n'`), Want: behavior.Fixed("a\r\nb\rc\n")},
		{Name: "limit-1", Params: bp(behavior.Fill(limit - 1)), Want: behavior.Fixed(a("a", limit-1) + "\n")},
		{Name: "limit", Params: bp(behavior.Fill(limit)), Want: behavior.Fixed(a("a", limit) + "\n")},
		{Name: "limit+1", Params: bp(behavior.Fill(limit + 1)), Want: behavior.Fixed(a("a", limit) + elided(1) + "\n")},
		{Name: "limit counts both streams", Params: bp(behavior.Fill(limit) + "; echo e >&2"), Want: behavior.Fixed(a("a", limit) + elided(2) + "\n")},
		{
			// "€" is E2 82 AC: the cut keeps E2, one U+FFFD per invalid byte.
			Name:   "multibyte character split at the limit",
			Params: bp(behavior.Fill(limit-1) + `; printf '\342\202\254'`),
			Want:   behavior.Fixed(a("a", limit-1) + "\uFFFD" + elided(2) + "\n"),
		},
		{
			Name:    "timeout with partial output",
			Params:  bp("echo partial; sleep 5", "timeout", 1),
			Want:    behavior.Fixed("partial\nbash: timed out after 1s\nexit: 124\n"),
			MaxTime: 3 * time.Second,
		},
		{
			Name:    "timeout, partial output without newline",
			Params:  bp("printf partial; sleep 5", "timeout", 1),
			Want:    behavior.Fixed("partial\nbash: timed out after 1s\nexit: 124\n"),
			MaxTime: 3 * time.Second,
		},
		{Name: "timeout kills the group", Params: bp("sleep 5 & sleep 5", "timeout", 1), Want: behavior.Fixed("bash: timed out after 1s\nexit: 124\n"), MaxTime: 3 * time.Second},
		{Name: "fractional timeout is truncated", Params: bp("sleep 5", "timeout", 1.9), Want: behavior.Fixed("bash: timed out after 1s\nexit: 124\n"), MaxTime: 3 * time.Second},
		{Name: "zero timeout is the default", Params: bp("echo hi", "timeout", 0), Want: behavior.Fixed("hi\n")},
		{Name: "fraction below one is the default", Params: bp("echo hi", "timeout", 0.5), Want: behavior.Fixed("hi\n")},
		{Name: "negative timeout is the default", Params: bp("echo hi", "timeout", -3), Want: behavior.Fixed("hi\n")},
		{Name: "string timeout is the default", Params: bp("echo hi", "timeout", "1"), Want: behavior.Fixed("hi\n")},
		{Name: "null timeout is the default", Params: bp("echo hi", "timeout", nil), Want: behavior.Fixed("hi\n")},
		{Name: "timeout above 600 is clamped", Params: bp("echo hi", "timeout", 601), Want: behavior.Fixed("hi\n")},
		{
			// Deviation: upstream fails with "bash: exec: WaitDelay expired before I/O complete" after 2 s.
			Name:    "a background child holding the pipe",
			Params:  bp("sleep 4 & echo hi"),
			Want:    behavior.Fixed("hi\n"),
			MaxTime: 3500 * time.Millisecond,
		},
		{Name: "runs from the workspace root", Params: bp("pwd -P"), Want: func(w *behavior.Workspace) any { return w.Real + "\n" }},
		{Name: "no working-directory parameter", Params: bp("pwd -P", "cwd", "/"), Want: func(w *behavior.Workspace) any { return w.Real + "\n" }},
		{Name: "missing command", Params: func(*behavior.Workspace) map[string]any { return map[string]any{"description": "d"} }, Err: toolErr("command is required")},
		// The server's middleware scrubs every text it returns (internal/scrub: 13 patterns in order, each
		// match replaced by [REDACTED:<name>]).
		{Name: "secrets scrubbed", Params: bp("echo API_KEY=abc123 password=hunter2"), Want: behavior.Fixed("[REDACTED:secret-env-assignment] [REDACTED:secret-env-assignment]\n")},
		{
			// sk-ant- comes before the general sk- pattern, so the key is named as Anthropic's.
			Name:   "the more specific pattern first",
			Params: bp("echo key: sk-ant-abcdefghijklmnopqrstuvwxyz"),
			Want:   behavior.Fixed("key: [REDACTED:anthropic-api-key]\n"),
		},
		{Name: "a private key block", Params: bp(`printf -- '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n'`), Want: behavior.Fixed("[REDACTED:pem-private-key]\n")},
		{Name: "a URL with a password", Params: bp("echo https://bob:pw@example.com/x"), Want: behavior.Fixed("[REDACTED:basic-auth-url]/x\n")},
		// ResolveWorkspace, before the arguments are validated: a single workspace is named after its root's
		// base name, and the name is trimmed.
		{
			Name: "workspace named",
			Params: func(w *behavior.Workspace) map[string]any {
				return bp("echo hi", "workspace", " "+filepath.Base(w.Dir)+" ")(w)
			},
			Want: behavior.Fixed("hi\n"),
		},
		{
			Name:   "workspace unknown",
			Params: bp("echo hi", "workspace", "nope"),
			ErrFn: func(w *behavior.Workspace) *runtime.ToolError {
				return toolErr(`unknown workspace "nope"; configured: ` + filepath.Base(w.Dir))
			},
		},
		{
			Name:   "workspace unknown comes before a missing command",
			Params: func(*behavior.Workspace) map[string]any { return map[string]any{"workspace": "nope"} },
			ErrFn: func(w *behavior.Workspace) *runtime.ToolError {
				return toolErr(`unknown workspace "nope"; configured: ` + filepath.Base(w.Dir))
			},
		},
		{
			// Error results are scrubbed too.
			Name:   "a secret in an error",
			Params: bp("echo hi", "workspace", "TOKEN=abc"),
			ErrFn: func(w *behavior.Workspace) *runtime.ToolError {
				return toolErr(`unknown workspace "[REDACTED:secret-env-assignment] configured: ` + filepath.Base(w.Dir))
			},
		},
		{Name: "empty command", Params: bp(""), Err: toolErr("command is required")},
		{Name: "command of another type", Params: func(*behavior.Workspace) map[string]any { return map[string]any{"command": 5, "description": "d"} }, Err: toolErr("command is required")},
		{Name: "missing description", Params: behavior.Cmd("echo hi"), Err: toolErr("description is required")},
		{Name: "empty description", Params: behavior.CmdWith("echo hi", "description", ""), Err: toolErr("description is required")},
		{Name: "command is checked first", Params: func(*behavior.Workspace) map[string]any { return map[string]any{} }, Err: toolErr("command is required")},
		{
			Name:   "shell missing",
			Params: bp("echo hi"),
			Opts:   []runtime.Option{runtime.WithShell("/nonexistent/bash", "-c")},
			Err:    toolErr("bash: fork/exec /nonexistent/bash: no such file or directory"),
		},
		{
			Name:   "shell missing in the background",
			Params: bp("echo hi", "run_in_background", true),
			Opts:   []runtime.Option{runtime.WithShell("/nonexistent/bash", "-c")},
			Err:    toolErr("bash-bg start: fork/exec /nonexistent/bash: no such file or directory"),
		},
		{Name: "run_in_background of another type is foreground", Params: bp("echo hi", "run_in_background", "yes"), Want: behavior.Fixed("hi\n")},
	}
	behavior.Run(t, "codegensandbox", "Bash", cases)
}

var (
	startedRe = regexp.MustCompile(`^shell_id: ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\nstarted in background: `)
	rfc3339Re = regexp.MustCompile(`(?m)^started: (\S+)$`)
)

// backgroundCase starts command in the background, polls BashOutput until it shows status and output,
// then kills the shell and checks that it is gone.
func backgroundCase(command, status, output string) func(*testing.T, *runtime.Engine, *behavior.Workspace, json.RawMessage) {
	return func(t *testing.T, eng *runtime.Engine, w *behavior.Workspace, got json.RawMessage) {
		var text string
		if err := json.Unmarshal(got, &text); err != nil {
			t.Fatalf("result is not text: %s", behavior.Short(string(got)))
		}
		m := startedRe.FindStringSubmatch(text)
		if m == nil || text != m[0]+command+"\n" {
			t.Fatalf("start text %q, want \"shell_id: <uuid>\\nstarted in background: %s\\n\"", text, command)
		}
		id := m[1]
		ctx := behavior.Bounded(t)
		call := func(tool string, params map[string]any) (string, error) {
			raw, _ := json.Marshal(params)
			res, err := eng.Call(ctx, tool, raw)
			if err != nil {
				return "", err
			}
			var s string
			if err := json.Unmarshal(res, &s); err != nil {
				t.Fatalf("%s result is not text: %s", tool, behavior.Short(string(res)))
			}
			return s, nil
		}
		// Poll until the expected text shows (output arrives while the shell runs) or 10 s pass.
		var poll, want string
		deadline := time.Now().Add(10 * time.Second)
		for {
			var err error
			if poll, err = call("BashOutput", map[string]any{"shell_id": id}); err != nil {
				t.Fatalf("BashOutput: %v", err)
			}
			sm := rfc3339Re.FindStringSubmatch(poll)
			if sm == nil {
				t.Fatalf("no started line in %q", behavior.Short(poll))
			}
			if _, err := time.Parse(time.RFC3339, sm[1]); err != nil {
				t.Errorf("started %q is not RFC 3339: %v", sm[1], err)
			}
			want = "command: " + command + "\nstatus: " + status + "\nstarted: " + sm[1] + "\n\n" + output
			if poll == want || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if poll != want {
			t.Errorf("BashOutput differs at byte %d\n got %s\nwant %s", behavior.FirstDiff(poll, want), behavior.Short(behavior.Quote(poll)), behavior.Short(behavior.Quote(want)))
		}
		killed, err := call("KillShell", map[string]any{"shell_id": id})
		if err != nil || killed != "killed: "+id+"\n" {
			t.Errorf("KillShell = %q, %v; want %q", killed, err, "killed: "+id+"\n")
		}
		for _, tool := range []string{"BashOutput", "KillShell"} {
			_, err = call(tool, map[string]any{"shell_id": id})
			var te *runtime.ToolError
			if !errors.As(err, &te) || *te != *toolErr("unknown shell_id: " + id) {
				t.Errorf("%s after KillShell: %v, want ToolError unknown shell_id: %s", tool, err, id)
			}
		}
	}
}

func TestBackground(t *testing.T) {
	cases := []behavior.Case{
		{
			Name:   "completed",
			Params: bp("echo bg", "run_in_background", true),
			Check:  backgroundCase("echo bg", "completed (exit 0)", "--- stdout (3 bytes) ---\nbg\n--- stderr (0 bytes) ---\n"),
		},
		{
			Name:   "non-zero exit, no trailing newline",
			Params: bp("printf out; printf err >&2; exit 3", "run_in_background", true),
			Check:  backgroundCase("printf out; printf err >&2; exit 3", "completed (exit 3)", "--- stdout (3 bytes) ---\nout\n--- stderr (3 bytes) ---\nerr\n"),
		},
		{
			Name:   "running, the timeout is ignored",
			Params: bp("echo started; sleep 30", "run_in_background", true, "timeout", 1),
			Check:  backgroundCase("echo started; sleep 30", "running", "--- stdout (8 bytes) ---\nstarted\n--- stderr (0 bytes) ---\n"),
		},
		{
			Name:   "stream capped at 1 MiB",
			Params: bp(behavior.Fill(1<<20+1), "run_in_background", true),
			Check: backgroundCase(behavior.Fill(1<<20+1), "completed (exit 0)",
				"--- stdout (1048576 bytes) [TRUNCATED] ---\n"+strings.Repeat("a", 1<<20)+"\n--- stderr (0 bytes) ---\n"),
		},
		{
			Name:   "stream of exactly 1 MiB",
			Params: bp(behavior.Fill(1<<20), "run_in_background", true),
			Check: backgroundCase(behavior.Fill(1<<20), "completed (exit 0)",
				"--- stdout (1048576 bytes) ---\n"+strings.Repeat("a", 1<<20)+"\n--- stderr (0 bytes) ---\n"),
		},
	}
	behavior.Run(t, "codegensandbox", "Bash", cases)

	errCases := []struct {
		tool   string
		params map[string]any
		want   *runtime.ToolError
	}{
		{"BashOutput", map[string]any{}, toolErr("shell_id is required")},
		{"BashOutput", map[string]any{"shell_id": ""}, toolErr("shell_id is required")},
		{"BashOutput", map[string]any{"shell_id": 7}, toolErr("shell_id is required")},
		{"BashOutput", map[string]any{"shell_id": "nope"}, toolErr("unknown shell_id: nope")},
		{"KillShell", map[string]any{}, toolErr("shell_id is required")},
		{"KillShell", map[string]any{"shell_id": "nope"}, toolErr("unknown shell_id: nope")},
	}
	for _, tc := range errCases {
		t.Run(fmt.Sprintf("%s %v", tc.tool, tc.params), func(t *testing.T) {
			cases := []behavior.Case{{Name: "call", Params: func(*behavior.Workspace) map[string]any { return tc.params }, Err: tc.want}}
			behavior.Run(t, "codegensandbox", tc.tool, cases)
		})
	}
}
