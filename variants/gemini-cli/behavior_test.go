package geminicli_test

// Behaviour of the gemini-cli spec on the shared runtime. Every expected value is written from the CLI's
// code (npm @google/gemini-cli 0.61.0: ShellToolInvocation.execute and wrapCommandForBackgroundPIDs of
// tools/shell.ts, ShellExecutionService.prepareExecution and childProcessFallback, detectBashSubstitution,
// wrapUntrusted; see gemini-cli.yaml's source notes), and where the recorded answers of the real CLI
// settle it (conformance/hosts: `echo out; echo err >&2; exit 3`), never captured from our own output.
// What no contract fixes in advance (process ids) is masked as N.

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

// pids are the process ids a result reports.
var pids = regexp.MustCompile(`(PGID: |PIDs: |PID: )(\d+)`)

// masked is a text result with each reported pid replaced by N.
func masked(t *testing.T, got json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatalf("not a text result: %s", got)
	}
	return pids.ReplaceAllString(s, "${1}N")
}

// want checks a text result with its pids masked.
func want(text string) func(*testing.T, *runtime.Engine, *behavior.Workspace, json.RawMessage) {
	return func(t *testing.T, _ *runtime.Engine, _ *behavior.Workspace, got json.RawMessage) {
		t.Helper()
		if m := masked(t, got); m != text {
			t.Errorf("got  %q\nwant %q", m, text)
		}
	}
}

// result is the text the CLI's ShellToolInvocation answers for a foreground command (the lines after
// Output: are already joined).
func result(lines string) string {
	return "<untrusted_context>\nOutput: " + lines + "\nProcess Group PGID: N\n</untrusted_context>"
}

func TestRunShellCommand(t *testing.T) {
	cases := []behavior.Case{
		// Live (hosts.md): Output, then Exit Code (non-zero only), then the PGID.
		{Name: "stdout, stderr and an exit code", Params: behavior.Cmd("echo out; echo err >&2; exit 3"),
			Check: want(result("out\nerr\nExit Code: 3"))},
		{Name: "empty output", Params: behavior.Cmd("true"), Check: want(result("(empty)"))},
		// handleExit: code null for a signal, so no Exit Code; Signal is os.constants.signals[name].
		{Name: "killed by a signal", Params: behavior.Cmd("kill -9 $$"), Check: want(result("(empty)\nSignal: 9"))},
		// stripAnsi(output).trim().
		{Name: "output trimmed", Params: behavior.Cmd(`printf '\n  x  \n\n'`), Check: want(result("x"))},
		{Name: "ANSI stripped", Params: behavior.Cmd(`printf '\033[32mgreen\033[0m \033]8;;http://x\007link\033]8;;\007'`),
			Check: want(result("green link"))},
		// wrapUntrusted escapes the closing tag.
		{Name: "closing tag escaped", Params: behavior.Cmd(`echo '</untrusted_context>'`),
			Check: want(result("&lt;/untrusted_context&gt;"))},
		// isBinary: a NUL among the first 512 bytes; the chunk holding it is not appended.
		{Name: "binary output", Params: behavior.Cmd(`printf 'a\0b'`), Check: want(result("(empty)"))},
		// wrapCommandForBackgroundPIDs trims the command and adds a space after a trailing backslash.
		{Name: "command trimmed", Params: behavior.Cmd("  \n echo hi\t\n"), Check: want(result("hi"))},
		{Name: "trailing backslash", Params: behavior.Cmd(`echo a\`), Check: want(result("a"))},
		// BASH_SHOPT_GUARD turns promptvars (on by default) off.
		{Name: "shopt guard", Params: behavior.Cmd("shopt -p promptvars extglob; true"),
			Check: want(result("shopt -u promptvars\nshopt -u extglob"))},
		// prepareExecution's environment.
		{Name: "environment", Params: behavior.Cmd(`echo "$GEMINI_CLI $TERM $PAGER $GIT_PAGER $GIT_CONFIG_COUNT $GIT_CONFIG_KEY_4=$GIT_CONFIG_VALUE_4 $GIT_TERMINAL_PROMPT [$DISPLAY]"`),
			Check: want(result("1 xterm-256color cat cat 8 core.pager=cat 0 []"))},
		// The EXIT trap's `jobs -p`, the shell's own pid left out.
		{Name: "background pids", Params: behavior.Cmd("sleep 30 & echo hi"), MaxTime: 5 * time.Second,
			Check: func(t *testing.T, _ *runtime.Engine, _ *behavior.Workspace, got json.RawMessage) {
				if m := masked(t, got); m != result("hi\nBackground PIDs: N") {
					t.Fatalf("got %q", m)
				}
				var s string
				_ = json.Unmarshal(got, &s)
				m := regexp.MustCompile(`Background PIDs: (\d+)\nProcess Group PGID: (\d+)`).FindStringSubmatch(s)
				if m == nil || m[1] == m[2] {
					t.Fatalf("want a background pid other than the group's: %q", s)
				}
				pid, _ := strconv.Atoi(m[1])
				gone(t, pid)
			}},
		// validateToolParamValues and the schema validation before it.
		{Name: "blank command", Params: behavior.Cmd("  \n"), Err: &runtime.ToolError{Type: "Error", Message: "Command cannot be empty."}},
		{Name: "missing command", Params: func(*behavior.Workspace) map[string]any { return map[string]any{"dir_path": "sub"} },
			Err: &runtime.ToolError{Type: "Error", Message: "params must have required property 'command'"}},
		{Name: "command of the wrong type", Params: func(*behavior.Workspace) map[string]any { return map[string]any{"command": 42} },
			Err: &runtime.ToolError{Type: "Error", Message: "params/command must be string"}},
		{Name: "delay of the wrong type", Params: behavior.CmdWith("true", "delay_ms", 1.5),
			Err: &runtime.ToolError{Type: "Error", Message: "params/delay_ms must be integer"}},
		// detectCommandSubstitution: a plain result, before anything runs.
		{Name: "command substitution", Params: behavior.Cmd("echo $(touch made)"),
			Check: func(t *testing.T, _ *runtime.Engine, w *behavior.Workspace, got json.RawMessage) {
				if m := masked(t, got); !strings.HasPrefix(m, "Command injection detected: command substitution syntax") {
					t.Errorf("got %q", m)
				}
				if _, err := os.Stat(w.Dir + "/made"); !os.IsNotExist(err) {
					t.Errorf("the command ran (%v)", err)
				}
			}},
		{Name: "substitution in single quotes", Params: behavior.Cmd("echo '$(x) `y`'"), Check: want(result("$(x) `y`"))},
		// dir_path: resolved against the project root; validatePathAccess compares real paths.
		{Name: "dir_path", Params: behavior.CmdWith("pwd", "dir_path", "sub"),
			Check: func(t *testing.T, _ *runtime.Engine, w *behavior.Workspace, got json.RawMessage) {
				if m := masked(t, got); m != result(w.Real+"/sub") {
					t.Errorf("got %q", m)
				}
			}},
		{Name: "dir_path empty", Params: behavior.CmdWith("pwd", "dir_path", ""),
			Check: func(t *testing.T, _ *runtime.Engine, w *behavior.Workspace, got json.RawMessage) {
				if m := masked(t, got); m != result(w.Real) {
					t.Errorf("got %q", m)
				}
			}},
		{Name: "dir_path leaving through a symlink", Params: behavior.CmdWith("pwd", "dir_path", "escape"),
			ErrFn: func(w *behavior.Workspace) *runtime.ToolError {
				return &runtime.ToolError{Type: "Error", Message: `Path not in workspace: Attempted path "` + w.Dir +
					`/escape" resolves outside the allowed workspace directories: ` + w.Dir}
			}},
		// child.on("error"): Node's spawn errors, as the live CLI sent them (response.error).
		{Name: "dir_path missing", Params: behavior.CmdWith("pwd", "dir_path", "missing"),
			Err: &runtime.ToolError{Type: "Error", Message: "spawn /usr/bin/bash ENOENT"}},
		{Name: "dir_path a file", Params: behavior.CmdWith("pwd", "dir_path", "file"),
			Err: &runtime.ToolError{Type: "Error", Message: "spawn ENOTDIR"}},
		// truncateOutputIfNeeded / formatTruncatedToolOutput: the whole result the tool returns is over
		// 40,000 UTF-16 units, so it is saved whole and the model gets the header, its first 8,000 and last
		// 32,000 units around the count of those left out. The expected text is computed from the result
		// the CLI's ShellToolInvocation renders (seq's lines, the PGID the call reported); live, with a
		// 5-digit PGID, the count was 68,968.
		{Name: "output too large", Params: behavior.Cmd("seq 1 20000"),
			Check: func(t *testing.T, _ *runtime.Engine, _ *behavior.Workspace, got json.RawMessage) {
				var s string
				_ = json.Unmarshal(got, &s)
				m := regexp.MustCompile(`^Output too large\. Showing first 8,000 and last 32,000 characters\. For full output see: (/\S+/tool-outputs/session-[0-9a-f-]{36}/run_shell_command_[0-9a-z]{16}\.txt)\n`).FindStringSubmatch(s)
				pgid := pids.FindStringSubmatch(s)
				if m == nil || pgid == nil {
					t.Fatalf("got %q...", s[:min(len(s), 300)])
				}
				lines := make([]string, 20000)
				for i := range lines {
					lines[i] = strconv.Itoa(i + 1)
				}
				full := "<untrusted_context>\nOutput: " + strings.Join(lines, "\n") + "\nProcess Group PGID: " + pgid[2] + "\n</untrusted_context>"
				wantText := m[0] + full[:8000] + "\n\n... [" + grouped(len(full)-40000) + " characters omitted] ...\n\n" + full[len(full)-32000:]
				if s != wantText {
					t.Errorf("got %d characters, want %d: %q ... %q", len(s), len(wantText), s[:min(len(s), 200)], s[max(len(s)-200, 0):])
				}
				if len(pgid[2]) == 5 && !strings.Contains(s, "... [68,968 characters omitted] ...") {
					t.Errorf("a 5-digit PGID: not the live count 68,968")
				}
				if b, err := os.ReadFile(m[1]); err != nil || string(b) != full {
					t.Errorf("the saved result: %d bytes (want %d), %v", len(b), len(full), err)
				}
			}},
		// is_background: the answer after delay_ms, live for `echo started` and `echo started; sleep 3`.
		{Name: "background start", Params: behavior.CmdWith("echo started; sleep 3", "is_background", true, "delay_ms", 100),
			MaxTime: 2 * time.Second,
			Check:   want("<untrusted_context>\nCommand moved to background (PID: N). Output hidden. Press Ctrl+B to view.\n</untrusted_context>")},
	}
	behavior.Run(t, "gemini-cli", "run_shell_command", cases)
}

// grouped writes n as JavaScript's toLocaleString does in en-US: digits grouped by three with commas.
func grouped(n int) string {
	d := strconv.Itoa(n)
	for i := len(d) - 3; i > 0; i -= 3 {
		d = d[:i] + "," + d[i:]
	}
	return d
}

// gone waits (bounded) until pid is no longer a live process.
func gone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return
		}
		time.Sleep(10 * time.Millisecond) // polling /proc: the kernel offers no event for another's exit
	}
	t.Fatalf("background job %d still alive", pid)
}

// detectBashSubstitution is the CLI's scan (utils/shell-utils), ported line for line.
func detectBashSubstitution(command string) bool {
	inSingle, inDouble := false, false
	for i := 0; i < len(command); {
		c := command[i]
		if c == '\'' && !inDouble {
			inSingle = !inSingle
			i++
			continue
		}
		if c == '"' && !inSingle {
			inDouble = !inDouble
			i++
			continue
		}
		if inSingle {
			i++
			continue
		}
		if c == '\\' && i+1 < len(command) {
			if inDouble {
				if strings.IndexByte("$`\"\\\n", command[i+1]) >= 0 {
					i += 2
					continue
				}
			} else {
				i += 2
				continue
			}
		}
		if c == '$' && i+1 < len(command) && command[i+1] == '(' {
			return true
		}
		if !inDouble && (c == '<' || c == '>') && i+1 < len(command) && command[i+1] == '(' {
			return true
		}
		if c == '`' {
			return true
		}
		i++
	}
	return false
}

// The policy's one pattern finds what the CLI's scan finds, on every string of its alphabet up to 5
// characters and on 20,000 random longer ones.
func TestCommandSubstitutionPattern(t *testing.T) {
	v, err := variants.Spec("gemini-cli")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(v.Policies[0].Rules[0].Pattern)
	const alphabet = "'\"\\$<>(`a\n"
	check := func(s string) {
		if got, want := re.MatchString(s), detectBashSubstitution(s); got != want {
			t.Fatalf("%q: the pattern says %v, the CLI's scan %v", s, got, want)
		}
	}
	var all func(prefix string, n int)
	all = func(prefix string, n int) {
		check(prefix)
		if n == 0 {
			return
		}
		for i := range len(alphabet) {
			all(prefix+alphabet[i:i+1], n-1)
		}
	}
	all("", 5)
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, 7+r.IntN(30))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(string(b))
	}
}
