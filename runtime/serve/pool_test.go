package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
)

// poolCall runs one call and returns its result (a text tool's as its text).
func poolCall(t *testing.T, p *Pool, ws, tool, params string) (string, error) {
	t.Helper()
	res, err := p.Call(context.Background(), ws, tool, json.RawMessage(params))
	var text string
	if json.Unmarshal(res, &text) == nil {
		return text, err // a text tool's result
	}
	return string(res), err
}

var sessionIDRe = regexp.MustCompile(`Process running with session ID (\d+)`)

// startSession starts a session of codex that runs until its stdin gets a line (its command line has the
// tag), and returns its id.
func startSession(t *testing.T, p *Pool, ws, tag string) string {
	t.Helper()
	res, err := poolCall(t, p, ws, "exec_command", `{"cmd":"read x # `+tag+`","tty":true,"yield_time_ms":250}`)
	if err != nil {
		t.Fatal(err)
	}
	m := sessionIDRe.FindStringSubmatch(res)
	if m == nil {
		t.Fatalf("no session: %s", res)
	}
	return m[1]
}

// An engine with a running session, or a running background shell, is busy: the idle sweep leaves it
// alone, and its session answers after many idle periods.
func TestPoolIdleKeepsLiveSessions(t *testing.T) {
	p := NewPool(mustSpec(t, "codex"), PoolOptions{IdleTimeout: 50 * time.Millisecond})
	defer p.Close()
	ws := t.TempDir()
	tag := proctest.UniqueSleep()
	id := startSession(t, p, ws, tag)
	// Twenty idle periods: the sweep (every 12.5 ms) has seen the engine idle many times.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if p.Len() != 1 {
			t.Fatalf("the engine of a live session was closed (%d open)", p.Len())
		}
		time.Sleep(10 * time.Millisecond)
	}
	res, err := poolCall(t, p, ws, "write_stdin", `{"session_id":`+id+`,"chars":"","yield_time_ms":5000}`)
	if err != nil || strings.Contains(res, "Unknown process id") {
		t.Fatalf("the session is gone: %s %v", res, err)
	}
	if len(proctest.WithCmdline("read x # "+tag)) == 0 {
		t.Error("the session's command is not running")
	}
}

// Past the engine limit the pool closes a quiet engine, never one running a session or a background
// shell: when every engine runs one, a new workspace is refused with an error that says why; once the
// processes end, it is served.
func TestPoolLimitNeverKillsLive(t *testing.T) {
	p := NewPool(mustSpec(t, "codex"), PoolOptions{MaxEngines: 2, IdleTimeout: -1})
	defer p.Close()
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	ta, tb := proctest.UniqueSleep(), proctest.UniqueSleep()
	ida := startSession(t, p, a, ta)
	startSession(t, p, b, tb)
	live := func(tag string) bool { return len(proctest.WithCmdline("read x # "+tag)) > 0 }
	_, err := poolCall(t, p, c, "shell_command", `{"command":"echo hi"}`)
	if err == nil || !strings.Contains(err.Error(), "running background shell or session") {
		t.Fatalf("a third workspace past the limit of 2 busy engines: %v", err)
	}
	if !live(ta) || !live(tb) {
		t.Errorf("a live session was killed to make room: a %t, b %t", live(ta), live(tb))
	}
	if p.Len() != 2 {
		t.Errorf("%d engines open, want 2", p.Len())
	}
	// a's session ends (its stdin gets a line) and is reported: a's engine holds nothing, c gets its room.
	res, err := poolCall(t, p, a, "write_stdin", `{"session_id":`+ida+`,"chars":"x\n","yield_time_ms":5000}`)
	if err != nil || !strings.Contains(res, "Process exited with code 0") {
		t.Fatalf("ending a's session: %s %v", res, err)
	}
	if res, err := poolCall(t, p, c, "shell_command", `{"command":"echo hi"}`); err != nil || !strings.Contains(res, "hi") {
		t.Fatalf("c once a's engine is quiet: %s %v", res, err)
	}
	if !live(tb) {
		t.Error("b's live session was killed")
	}
}

// The notes: an engine reclaimed (idle, or to make room) that held a finished shell or session says so
// when the model names it again, in the tool's own error.
func TestPoolReclaimedNotes(t *testing.T) {
	v := mustSpec(t, "codegensandbox")
	for _, tc := range []struct {
		name string
		o    PoolOptions
		why  string
	}{
		{"idle", PoolOptions{IdleTimeout: 50 * time.Millisecond}, "idle for 50ms"},
		{"limit", PoolOptions{MaxEngines: 1, IdleTimeout: -1}, "to make room"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPool(v, tc.o)
			defer p.Close()
			a := t.TempDir()
			res, err := poolCall(t, p, a, "Bash", `{"command":"echo done","description":"d","run_in_background":true}`)
			if err != nil {
				t.Fatal(err)
			}
			id := regexp.MustCompile(`shell_id: (\S+)`).FindStringSubmatch(res)
			if id == nil {
				t.Fatalf("no shell: %s", res)
			}
			// The shell ends (its output drained): the engine runs nothing and holds a finished shell.
			if !proctest.Poll(10*time.Second, func() bool { return running(p, a) == 0 }) {
				t.Fatal("the background echo did not finish")
			}
			if tc.o.MaxEngines == 1 {
				if _, err := poolCall(t, p, t.TempDir(), "Bash", `{"command":"true","description":"d"}`); err != nil {
					t.Fatal(err)
				}
			} else if !proctest.Poll(10*time.Second, func() bool { return p.Len() == 0 }) {
				t.Fatal("the idle engine holding only a finished shell was not reclaimed")
			}
			_, err = poolCall(t, p, a, "BashOutput", `{"shell_id":"`+id[1]+`"}`)
			var te *runtime.ToolError
			if !errors.As(err, &te) || te.Type != "ToolError" || !strings.HasPrefix(te.Message, "unknown shell_id: "+id[1]) ||
				!strings.Contains(te.Message, "shell "+id[1]+" was closed: its workspace's engine was reclaimed") || !strings.Contains(te.Message, tc.why) {
				t.Errorf("naming the reclaimed shell: %v", err)
			}
		})
	}
}

// running reports what the engine of a workspace runs (0 when it has none).
func running(p *Pool, dir string) int {
	p.mu.Lock()
	e := p.byDir[dir]
	p.mu.Unlock()
	if e == nil {
		return 0
	}
	_, _, n := e.eng.Held()
	return n
}

// Past the engine limit, a new workspace waits while every engine is busy only with calls (they end by
// themselves) and is served once one ends, instead of being refused; a call cancelled while it waits says
// so.
func TestPoolLimitWaitsForCalls(t *testing.T) {
	p := NewPool(mustSpec(t, "codex"), PoolOptions{MaxEngines: 1, IdleTimeout: -1})
	defer p.Close()
	a, b := t.TempDir(), t.TempDir()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(a, "started")
	aDone := make(chan error, 1)
	go func() {
		res, err := poolCall(t, p, a, "shell_command", `{"command":"touch started; cat `+fifo+`"}`)
		if err == nil && !strings.Contains(res, "released") {
			err = fmt.Errorf("a's answer: %s", res)
		}
		aDone <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) { // a bounded poll: a's call runs
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a's call never started")
		}
	}
	// A call that gives up while it waits is refused, saying why.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Call(ctx, b, "shell_command", json.RawMessage(`{"command":"echo hi"}`)); err == nil || !strings.Contains(err.Error(), "busy until the call was cancelled") {
		t.Fatalf("b cancelled while a's call runs: %v", err)
	}
	bDone := make(chan error, 1)
	go func() {
		res, err := poolCall(t, p, b, "shell_command", `{"command":"echo hi"}`)
		if err == nil && !strings.Contains(res, "hi") {
			err = fmt.Errorf("b's answer: %s", res)
		}
		bDone <- err
	}()
	if err := os.WriteFile(fifo, []byte("released\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-aDone; err != nil {
		t.Fatal(err)
	}
	if err := <-bDone; err != nil {
		t.Fatalf("b past the limit while a's engine was busy with a call: %v", err)
	}
	if p.Len() != 1 {
		t.Errorf("%d engines open, want 1", p.Len())
	}
}
