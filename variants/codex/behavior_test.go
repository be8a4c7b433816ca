package codex_test

// Behaviour of the codex spec on the shared runtime. Every expected value is written from upstream's code
// (openai/codex: tools/handlers/shell_spec.rs at 8a2c0cf, unified_exec/{mod,process_manager,
// head_tail_buffer,errors}.rs, tools/context.rs's ExecCommandToolOutput, utils/string's truncate.rs,
// tools/mod.rs's format_exec_output_for_model_freeform; see codex.yaml's source notes), never captured
// from our own output. What no contract can fix in advance (the chunk id, the wall time, a random session
// id) is checked by its shape and bounds.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

// reply is a unified exec answer, parsed from its text (ExecCommandToolOutput's response header, then the
// output).
type reply struct {
	chunk   string
	wall    float64
	exit    *int
	session string
	tokens  int
	output  string
}

var replyRE = regexp.MustCompile(`^Chunk ID: ([^\n]*)\nWall time: (\d+\.\d{4}) seconds\n(?:Process exited with code (-?\d+)|Process running with session ID (\d+))\nOriginal token count: (\d+)\nOutput:\n`)

func parse(t *testing.T, text string) reply {
	t.Helper()
	m := replyRE.FindStringSubmatchIndex(text)
	if m == nil {
		t.Fatalf("not a unified exec reply: %s", behavior.Short(behavior.Quote(text)))
	}
	g := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return text[m[2*i]:m[2*i+1]]
	}
	r := reply{chunk: g(1), session: g(4), output: text[m[1]:]}
	r.wall, _ = strconv.ParseFloat(g(2), 64)
	r.tokens, _ = strconv.Atoi(g(5))
	if s := g(3); s != "" {
		n, _ := strconv.Atoi(s)
		r.exit = &n
	}
	// generate_chunk_id: six random hex digits.
	if !regexp.MustCompile(`^[0-9a-f]{6}$`).MatchString(r.chunk) {
		t.Errorf("chunk id %q: want six hexadecimal digits", r.chunk)
	}
	return r
}

// callBound bounds every call and wait of these tests: a test that waits for a process fails after it
// rather than hanging.
const callBound = 30 * time.Second

// bounded returns a context that ends with the test or after callBound.
func bounded(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), callBound)
	t.Cleanup(cancel)
	return ctx
}

// tokens is approx_token_count: bytes / 4, rounded up.
func tokens(s string) int { return (len(s) + 3) / 4 }

type engine struct {
	*runtime.Engine
	ws *behavior.Workspace
}

func open(t *testing.T) *engine {
	t.Helper()
	v, err := variants.Spec("codex")
	if err != nil {
		t.Fatal(err)
	}
	ws := behavior.NewWorkspace(t)
	eng, err := runtime.New(v, runtime.WithWorkspace(ws.Dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return &engine{eng, ws}
}

// call runs a tool and returns its text, or fails the test (on a raised error too).
func (e *engine) call(t *testing.T, tool string, params map[string]any) string {
	t.Helper()
	text, err := e.try(tool, params)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, params, err)
	}
	return text
}

func (e *engine) try(tool string, params map[string]any) (string, error) {
	raw, _ := json.Marshal(params)
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	res, err := e.Call(ctx, tool, raw)
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(res, &s); err != nil {
		return "", fmt.Errorf("not a text result: %s", res)
	}
	return s, nil
}

// wantErr checks a raised FunctionCallError (the handler's RespondToModel text).
func wantErr(t *testing.T, err error, msg string) {
	t.Helper()
	var te *runtime.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("want FunctionCallError %q, got %v", msg, err)
	}
	if te.Type != "FunctionCallError" || te.Message != msg {
		t.Errorf("error %s: %q\nwant FunctionCallError: %q", te.Type, te.Message, msg)
	}
}

func exited(t *testing.T, r reply, code int, output string) {
	t.Helper()
	if r.exit == nil || *r.exit != code {
		t.Errorf("reply %+v: want exit code %d", r, code)
	}
	if r.session != "" {
		t.Errorf("reply has session %s: want none after an exit", r.session)
	}
	if r.output != output {
		t.Errorf("output %q, want %q", r.output, output)
	}
}

// running checks a reply for a session (a random id in 1000..99999) and returns its id.
func running(t *testing.T, r reply, output string) string {
	t.Helper()
	if r.exit != nil || r.session == "" {
		t.Fatalf("reply %+v: want a session", r)
	}
	if n, _ := strconv.Atoi(r.session); n < 1000 || n > 99999 {
		t.Errorf("session id %s: want 1000..99999 (random_range(1_000..100_000))", r.session)
	}
	if r.output != output {
		t.Errorf("output %q, want %q", r.output, output)
	}
	return r.session
}

func p(kvs ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kvs); i += 2 {
		m[kvs[i].(string)] = kvs[i+1]
	}
	return m
}

// TestExecCommand: commands that end within the window answer their exit code, the merged output and its
// approximate token count.
func TestExecCommand(t *testing.T) {
	a := strings.Repeat
	for _, tc := range []struct {
		name   string
		params map[string]any
		code   int
		output string
		tokens int // 0: tokens(output)
	}{
		{name: "stdout", params: p("cmd", "echo hi"), output: "hi\n"},
		{name: "stderr is merged in order", params: p("cmd", "echo out; echo err >&2; echo out2"), output: "out\nerr\nout2\n"},
		{name: "non-zero exit", params: p("cmd", "echo x; exit 3"), code: 3, output: "x\n"},
		{name: "killed by a signal", params: p("cmd", "kill -9 $$"), code: -1, output: ""},
		{name: "stdin is closed on pipes", params: p("cmd", "cat; echo after"), output: "after\n"},
		{name: "no output", params: p("cmd", "true"), output: ""},
		// UNIFIED_EXEC_ENV over the turn's environment.
		{name: "environment", params: p("cmd", `echo "$NO_COLOR $TERM $LANG $LC_ALL $PAGER $GIT_PAGER $GH_PAGER $CODEX_CI [$COLORTERM]"`),
			output: "1 dumb C.UTF-8 C.UTF-8 cat cat cat 1 []\n"},
		// String::from_utf8_lossy: one U+FFFD per maximal invalid subpart; the count is of the decoded text.
		{name: "invalid UTF-8", params: p("cmd", `printf 'a\377b\342\202'`), output: "a\uFFFDb\uFFFD"},
		{name: "CRLF kept", params: p("cmd", `printf 'a\r\nb'`), output: "a\r\nb"},
		{name: "relative workdir", params: p("cmd", "pwd", "workdir", "sub"), output: "SUB\n"},
		{name: "empty workdir is the cwd", params: p("cmd", "pwd", "workdir", ""), output: "WS\n"},
		// tty false: plain pipes; tty true: a PTY, whose line discipline writes "\r\n".
		{name: "pipes are no terminal", params: p("cmd", "[ -t 1 ] && echo tty || echo pipe"), output: "pipe\n"},
		{name: "tty", params: p("cmd", "[ -t 0 ] && [ -t 1 ] && echo tty; stty size", "tty", true), output: "tty\r\n24 80\r\n"},
		// formatted_truncate_text at 4 bytes a token: within the budget the output is whole.
		{name: "budget: exactly the budget", params: p("cmd", behavior.Fill(40), "max_output_tokens", 10), output: a("a", 40)},
		{
			// 41 bytes over a 40-byte budget: 20 kept at each end; the marker counts (41-40)/4 rounded up.
			name: "budget: one byte over", params: p("cmd", behavior.Fill(41), "max_output_tokens", 10), tokens: 11,
			output: "Warning: truncated output (original token count: 11)\nTotal output lines: 1\n\n" + a("a", 20) + "…1 tokens truncated…" + a("a", 20),
		},
		{
			// seq 1 1000 is 3893 bytes: 974 tokens; the 12-byte budget keeps "1\n2\n3\n" and "\n1000\n", and
			// the marker counts the 3881 bytes over it.
			name: "budget: lines and a large cut", params: p("cmd", "seq 1 1000", "max_output_tokens", 3), tokens: (seqLen(1000) + 3) / 4,
			output: fmt.Sprintf("Warning: truncated output (original token count: %d)\nTotal output lines: 1000\n\n1\n2\n3\n…%d tokens truncated…\n1000\n",
				(seqLen(1000)+3)/4, (seqLen(1000)-12+3)/4),
		},
		{
			// A multi-byte character across a cut is left out: the head ends at the last boundary within
			// its 2 bytes ("x", then "é" would end at 3), the tail starts at the first within its 2 ("z").
			name: "budget: character boundaries", params: p("cmd", `printf 'x\303\251'; `+behavior.Fill(100)+`; printf '\303\251z'`, "max_output_tokens", 1),
			tokens: 27,
			output: "Warning: truncated output (original token count: 27)\nTotal output lines: 1\n\nx…26 tokens truncated…z",
		},
		{
			// resolve_max_tokens(...).min(the model's policy, 10000 tokens): a larger request is capped.
			name: "budget: capped at 10000 tokens", params: p("cmd", behavior.Fill(40004), "max_output_tokens", 20000), tokens: 10001,
			output: "Warning: truncated output (original token count: 10001)\nTotal output lines: 1\n\n" + a("a", 20000) + "…1 tokens truncated…" + a("a", 20000),
		},
		{
			// The default budget is 10000 tokens.
			name: "budget: default", params: p("cmd", behavior.Fill(40001)), tokens: 10001,
			output: "Warning: truncated output (original token count: 10001)\nTotal output lines: 1\n\n" + a("a", 20000) + "…1 tokens truncated…" + a("a", 20000),
		},
		{
			// A zero budget keeps nothing but the marker.
			name: "budget: zero", params: p("cmd", "echo hello", "max_output_tokens", 0), tokens: 2,
			output: "Warning: truncated output (original token count: 2)\nTotal output lines: 1\n\n…2 tokens truncated…",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := open(t)
			r := parse(t, e.call(t, "exec_command", tc.params))
			want := strings.NewReplacer("SUB", e.ws.Real+"/sub", "WS", e.ws.Real).Replace(tc.output)
			exited(t, r, tc.code, want)
			n := tc.tokens
			if n == 0 {
				n = tokens(want)
			}
			if r.tokens != n {
				t.Errorf("original token count %d, want %d", r.tokens, n)
			}
		})
	}
}

// TestExecCommandErrors: what the handler answers with FunctionCallError::RespondToModel.
func TestExecCommandErrors(t *testing.T) {
	e := open(t)
	_, err := e.try("exec_command", p("cmd", "pwd", "workdir", "missing"))
	wantErr(t, err, "exec_command failed for `/bin/bash -c pwd`: CreateProcess { message: \"No such file or directory (os error 2)\" }")
	_, err = e.try("exec_command", p())
	wantErr(t, err, "failed to parse function arguments: missing field `cmd`")
	_, err = e.try("write_stdin", p("chars", "x"))
	wantErr(t, err, "failed to parse function arguments: missing field `session_id`")
	// Session ids are drawn from 1000..99999: 7 is never one.
	_, err = e.try("write_stdin", p("session_id", 7, "chars", "x"))
	wantErr(t, err, "write_stdin failed: Unknown process id 7")
}

// TestYield: the window closes at the command's exit or at yield_time_ms, clamped to 250..30000 (writes:
// at most 30000, from 250; polls: 5000..300000), whichever is first.
func TestYield(t *testing.T) {
	for _, tc := range []struct {
		name     string
		yield    any // nil: absent
		min, max time.Duration
	}{
		{name: "below the minimum is 250 ms", yield: 10, min: 250 * time.Millisecond, max: 3 * time.Second},
		{name: "as sent", yield: 600, min: 600 * time.Millisecond, max: 4 * time.Second},
		{name: "default is 10000 ms", yield: nil, min: 10 * time.Second, max: 14 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := open(t)
			params := p("cmd", "echo started; sleep 60")
			if tc.yield != nil {
				params["yield_time_ms"] = tc.yield
			}
			start := time.Now()
			r := parse(t, e.call(t, "exec_command", params))
			took := time.Since(start)
			running(t, r, "started\n")
			if took < tc.min || took > tc.max {
				t.Errorf("the window took %v, want %v..%v", took, tc.min, tc.max)
			}
			if w := time.Duration(r.wall * float64(time.Second)); w < tc.min-time.Millisecond || w > took {
				t.Errorf("wall time %v for a window of %v", w, took)
			}
		})
	}
	t.Run("the window closes at the exit", func(t *testing.T) {
		t.Parallel()
		e := open(t)
		start := time.Now()
		r := parse(t, e.call(t, "exec_command", p("cmd", "echo done", "yield_time_ms", 30000)))
		exited(t, r, 0, "done\n")
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("took %v: the window should close when the command exits", took)
		}
	})
	t.Run("an empty poll waits at least 5000 ms", func(t *testing.T) {
		t.Parallel()
		e := open(t)
		id := running(t, parse(t, e.call(t, "exec_command", p("cmd", "sleep 60", "yield_time_ms", 250))), "")
		start := time.Now()
		r := parse(t, e.call(t, "write_stdin", p("session_id", json.Number(id), "yield_time_ms", 0)))
		running(t, r, "")
		if took := time.Since(start); took < 5*time.Second || took > 9*time.Second {
			t.Errorf("an empty write with yield 0 took %v, want 5000 ms (MIN_EMPTY_YIELD_TIME_MS)", took)
		}
	})
}

// TestInteractive drives sessions through write_stdin: a read answered, a REPL-like cat, a program still
// running after the yield, a poll after the exit, a closed stdin.
func TestInteractive(t *testing.T) {
	t.Run("a read answered through write_stdin", func(t *testing.T) {
		t.Parallel()
		e := open(t)
		id := running(t, parse(t, e.call(t, "exec_command", p("cmd", `read x; echo "got:$x"`, "tty", true, "yield_time_ms", 250))), "")
		// The terminal echoes the line typed, then the answer: each "\n" is "\r\n" on a terminal.
		r := parse(t, e.call(t, "write_stdin", p("session_id", json.Number(id), "chars", "hello\n", "yield_time_ms", 5000)))
		exited(t, r, 0, "hello\r\ngot:hello\r\n")
		// The exit was reported: the session is gone.
		_, err := e.try("write_stdin", p("session_id", json.Number(id)))
		wantErr(t, err, "write_stdin failed: Unknown process id "+id)
	})
	t.Run("a REPL-like cat echoes each line", func(t *testing.T) {
		t.Parallel()
		e := open(t)
		id := running(t, parse(t, e.call(t, "exec_command", p("cmd", "cat", "tty", true, "yield_time_ms", 250))), "")
		for _, line := range []string{"ping", "pong"} {
			// The terminal echoes the line, then cat writes it back; the window (1000 ms) is wide enough
			// for both, and cat runs on.
			r := parse(t, e.call(t, "write_stdin", p("session_id", json.Number(id), "chars", line+"\n", "yield_time_ms", 1000)))
			running(t, r, line+"\r\n"+line+"\r\n")
			if r.session != id {
				t.Errorf("session %s, want %s", r.session, id)
			}
		}
	})
	t.Run("a program still running after the yield, polled to its exit", func(t *testing.T) {
		t.Parallel()
		e := open(t)
		id := running(t, parse(t, e.call(t, "exec_command", p("cmd", "echo first; sleep 1; echo second", "yield_time_ms", 250))), "first\n")
		// An empty write polls; the window closes when the command exits.
		start := time.Now()
		r := parse(t, e.call(t, "write_stdin", p("session_id", json.Number(id), "yield_time_ms", 30000)))
		exited(t, r, 0, "second\n")
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("the poll took %v", took)
		}
		_, err := e.try("write_stdin", p("session_id", json.Number(id)))
		wantErr(t, err, "write_stdin failed: Unknown process id "+id)
	})
	t.Run("a poll after the exit reports it once", func(t *testing.T) {
		t.Parallel()
		e := open(t)
		id := running(t, parse(t, e.call(t, "exec_command", p("cmd", "echo a; sleep 0.5; echo b; exit 4", "yield_time_ms", 250))), "a\n")
		if _, err := e.WaitSession(bounded(t), id); err != nil {
			t.Fatal(err)
		}
		// The command exited between the calls: the output waited in the buffer, and the poll answers
		// at once with the exit.
		start := time.Now()
		r := parse(t, e.call(t, "write_stdin", p("session_id", json.Number(id))))
		exited(t, r, 4, "b\n")
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("a poll of an exited session took %v", took)
		}
		_, err := e.try("write_stdin", p("session_id", json.Number(id), "chars", "x"))
		wantErr(t, err, "write_stdin failed: Unknown process id "+id)
	})
	t.Run("stdin is closed on pipes", func(t *testing.T) {
		t.Parallel()
		e := open(t)
		id := running(t, parse(t, e.call(t, "exec_command", p("cmd", "sleep 60", "yield_time_ms", 250))), "")
		_, err := e.try("write_stdin", p("session_id", json.Number(id), "chars", "x\n"))
		wantErr(t, err, "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open")
		// The session lives on.
		if got := e.Sessions(); len(got) != 1 || got[0].ID != id || !got[0].Running {
			t.Errorf("sessions %+v, want %s running", got, id)
		}
	})
	t.Run("output between calls waits for the next", func(t *testing.T) {
		t.Parallel()
		e := open(t)
		id := running(t, parse(t, e.call(t, "exec_command", p("cmd", `read x; printf "%s" "$x"; sleep 60`, "tty", true, "yield_time_ms", 250))), "")
		r := parse(t, e.call(t, "write_stdin", p("session_id", json.Number(id), "chars", "abcdefgh\n", "yield_time_ms", 1000, "max_output_tokens", 2)))
		// "abcdefgh\r\n" echoed, then "abcdefgh": 18 bytes over an 8-byte budget.
		running(t, r, "Warning: truncated output (original token count: 5)\nTotal output lines: 2\n\nabcd…3 tokens truncated…efgh")
	})
}

// noneAlive polls (bounded) until no process with s in its command line is alive.
func noneAlive(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for d := time.Millisecond; len(proctest.WithCmdline(s)) > 0; d = min(2*d, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("processes %v with %q are alive", proctest.WithCmdline(s), s)
			return
		}
		time.Sleep(d)
	}
}

// startMany starts n sessions at once and returns their ids.
func startMany(t *testing.T, e *engine, n int, cmd string) []string {
	t.Helper()
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			text, err := e.try("exec_command", p("cmd", cmd, "yield_time_ms", 250))
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = replyRE.FindStringSubmatch(text)[4]
		})
	}
	wg.Wait()
	return ids
}

// touch makes sessions recently used: a write to a session on pipes fails (stdin closed) after the
// session is looked up, which marks it used (prepare_process_handles sets last_used first).
func touch(t *testing.T, e *engine, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if _, err := e.try("write_stdin", p("session_id", json.Number(id), "chars", "x")); err == nil {
			t.Fatalf("a write to session %s on pipes succeeded", id)
		}
	}
}

// TestSessionLimit: at MAX_UNIFIED_EXEC_PROCESSES (64) a start prunes a session: the least recently used
// one outside the 8 most recent, one that has exited first.
func TestSessionLimit(t *testing.T) {
	t.Run("the least recently used is pruned", func(t *testing.T) {
		t.Parallel()
		e := open(t)
		marker := proctest.UniqueSleep()
		ids := startMany(t, e, 64, "sleep "+marker)
		victim := ids[0]
		touch(t, e, ids[1:]...)
		id := running(t, parse(t, e.call(t, "exec_command", p("cmd", "sleep "+marker, "yield_time_ms", 250))), "")
		if len(e.Sessions()) != 64 {
			t.Errorf("%d sessions, want 64", len(e.Sessions()))
		}
		_, err := e.try("write_stdin", p("session_id", json.Number(victim), "chars", "x"))
		wantErr(t, err, "write_stdin failed: Unknown process id "+victim)
		_, err = e.try("write_stdin", p("session_id", json.Number(id), "chars", "x"))
		wantErr(t, err, "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open")
		if n := len(proctest.WithCmdline(marker)); n > 64 {
			t.Errorf("%d processes alive: the pruned session was not killed", n)
		}
		e.Close()
		noneAlive(t, marker)
	})
	t.Run("an exited session is pruned first", func(t *testing.T) {
		t.Parallel()
		e := open(t)
		marker := proctest.UniqueSleep()
		ids := startMany(t, e, 63, "sleep "+marker)
		early := running(t, parse(t, e.call(t, "exec_command", p("cmd", "sleep 0.3", "yield_time_ms", 250))), "")
		if _, err := e.WaitSession(bounded(t), early); err != nil {
			t.Fatal(err)
		}
		// ids[0] is the least recently used; the exited one was used after it, and is not among the 8
		// most recent.
		touch(t, e, early)
		touch(t, e, ids[1:]...)
		running(t, parse(t, e.call(t, "exec_command", p("cmd", "sleep "+marker, "yield_time_ms", 250))), "")
		_, err := e.try("write_stdin", p("session_id", json.Number(early)))
		wantErr(t, err, "write_stdin failed: Unknown process id "+early)
		touch(t, e, ids[0]) // still there
		e.Close()
		noneAlive(t, marker)
	})
}

// TestSessionsDieWithTheEngine: Close kills every session's process group, on pipes and on a terminal,
// with their children, and sweeps the ones that left the group (setsid).
func TestSessionsDieWithTheEngine(t *testing.T) {
	e := open(t)
	marker := proctest.UniqueSleep()
	for _, tty := range []bool{false, true} {
		running(t, parse(t, e.call(t, "exec_command", p("cmd", "setsid sleep "+marker+" & sleep "+marker+" & sleep "+marker, "tty", tty, "yield_time_ms", 250))), "")
	}
	// Each session: its shell's children, one of them in a session of its own.
	if n := len(proctest.WithCmdline(marker)); n < 6 {
		t.Errorf("%d processes with the marker, want at least 6", n)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	noneAlive(t, marker)
	if _, err := e.try("exec_command", p("cmd", "true")); err == nil {
		t.Error("a call after Close succeeded")
	}
}

// TestShellCommand: shell_command runs one command to its end (format_exec_output_for_model_freeform).
func TestShellCommand(t *testing.T) {
	wallRE := regexp.MustCompile(`^Exit code: (-?\d+)\nWall time: (\d+(?:\.\d)?) seconds\n`)
	for _, tc := range []struct {
		name   string
		params map[string]any
		code   int
		rest   string // after the wall time line
	}{
		{name: "stdout", params: p("command", "echo hi"), rest: "Output:\nhi\n"},
		{name: "merged, non-zero exit", params: p("command", "echo out; echo err >&2; exit 2"), code: 2, rest: "Output:\nout\nerr\n"},
		{name: "workdir", params: p("command", "pwd", "workdir", "sub"), rest: "Output:\nSUB\n"},
		// EXEC_TIMEOUT_EXIT_CODE and build_content_with_timeout.
		{name: "timeout", params: p("command", "echo partial; sleep 30", "timeout_ms", 500), code: 124,
			rest: "Output:\ncommand timed out after 500 milliseconds\npartial\n"},
		{
			// truncate_text at the model's 10000 tokens: the line count is shown when the cut changed it.
			name: "truncated", params: p("command", "seq 1 20000"), code: 0,
			rest: "Total output lines: 20000\nOutput:\n" + seqHead(20000) + "…" + strconv.Itoa((seqLen(20000)-40000+3)/4) + " tokens truncated…" + seqTail(20000),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := open(t)
			text := e.call(t, "shell_command", tc.params)
			m := wallRE.FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("not a shell_command answer: %s", behavior.Short(behavior.Quote(text)))
			}
			if m[1] != strconv.Itoa(tc.code) {
				t.Errorf("exit code %s, want %d", m[1], tc.code)
			}
			want := strings.ReplaceAll(tc.rest, "SUB", e.ws.Real+"/sub")
			if got := text[len(m[0]):]; got != want {
				t.Errorf("answer differs at byte %d\n got %s\nwant %s", behavior.FirstDiff(got, want), behavior.Short(behavior.Quote(got)), behavior.Short(behavior.Quote(want)))
			}
		})
	}
	e := open(t)
	_, err := e.try("shell_command", p("command", "echo hi", "timeout_ms", -1))
	wantErr(t, err, "failed to parse function arguments: invalid value: -1, expected u64")
}

// seqOutput is `seq 1 n`'s output.
func seqOutput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.String()
}

func seqLen(n int) int { return len(seqOutput(n)) }

// seqHead and seqTail are the 20000 bytes the cut keeps at each end (ASCII: no boundary moves them).
func seqHead(n int) string { return seqOutput(n)[:20000] }
func seqTail(n int) string { s := seqOutput(n); return s[len(s)-20000:] }
