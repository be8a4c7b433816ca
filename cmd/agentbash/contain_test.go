package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/serve"
)

// containRounds is how many times each hidden escape goes through each path: 10 (make test-norace), one
// under the race detector.
func containRounds() int {
	if raceEnabled {
		return 1
	}
	return 10
}

// requireCgroup skips the test where runs get no cgroup (the sweep misses these escapes, as documented).
func requireCgroup(t *testing.T) {
	t.Helper()
	if c := proc.ContainmentInUse(); c.Cgroup == "" {
		t.Skipf("no cgroup: %s", c.Reason)
	}
}

// escapesHere returns the hidden escapes whose programs this machine has, each with its own mark.
func escapesHere(t *testing.T) []string {
	var names []string
	for _, e := range proctest.HiddenEscapes("") {
		if e.Needs != "" {
			if _, err := exec.LookPath(e.Needs); err != nil {
				t.Logf("%s: no %s", e.Name, e.Needs)
				continue
			}
		}
		names = append(names, e.Name)
	}
	return names
}

// escape returns the script of the hidden escape name, its process marked with mark.
func escape(name, mark string) string {
	for _, e := range proctest.HiddenEscapes(mark) {
		if e.Name == name {
			return e.Script
		}
	}
	panic("no escape " + name)
}

// requireNoSurvivor fails if a process with mark in its command line is alive, and kills it.
func requireNoSurvivor(t *testing.T, mark, after string) {
	t.Helper()
	if left := proctest.WithCmdline(mark); len(left) > 0 {
		t.Errorf("alive after %s: %v", after, left)
		proctest.KillWithCmdline(mark)
	}
}

// TestContainHiddenEscapes: none of the escapes that hide from the run marker outlives its call, through
// `agentbash run`, `agentbash serve` on the wire protocol and over MCP: when the answer comes, the
// processes are gone (the call's cgroup is empty). 10 rounds of each (one under the race detector).
func TestContainHiddenEscapes(t *testing.T) {
	requireCgroup(t)
	names := escapesHere(t)
	t.Run("run", func(t *testing.T) {
		for _, name := range names {
			for range containRounds() {
				mark := proctest.UniqueSleep()
				cmd := agentbashCmd("AGENTBASH_CLI_TEST=contain", "run", "rye", "-workspace", t.TempDir(), "--", escape(name, mark)+"; echo ran")
				out, err := cmd.Output()
				if err != nil || !strings.Contains(string(out), `ran\n`) {
					t.Errorf("%s: %v %s", name, err, out)
				}
				requireNoSurvivor(t, mark, name+" through run")
			}
		}
	})
	t.Run("wire", func(t *testing.T) {
		w := startWireServer(t, "rye")
		for _, name := range names {
			for range containRounds() {
				mark := proctest.UniqueSleep()
				w.call(t, "bash", map[string]any{"command": escape(name, mark) + "; echo ran"}, `ran\n`)
				requireNoSurvivor(t, mark, name+" through serve -transport wire")
			}
		}
	})
	t.Run("mcp", func(t *testing.T) {
		cs := connect(t, "rye", serve.Stdio, t.TempDir(), "AGENTBASH_CLI_TEST=contain")
		for _, name := range names {
			for range containRounds() {
				mark := proctest.UniqueSleep()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": escape(name, mark) + "; echo ran"}})
				cancel()
				if err != nil || !strings.Contains(text(res), `ran\n`) {
					t.Errorf("%s: %v %+v", name, err, res)
				}
				requireNoSurvivor(t, mark, name+" through serve over MCP")
			}
		}
	})
}

// TestContainBackgroundShells: the processes a background shell's command leaves, hidden from the marker,
// end with the shell: killed (KillShell), at the server's end of input, and when the server is SIGKILLed
// (its watchdog kills the server's cgroup).
func TestContainBackgroundShells(t *testing.T) {
	requireCgroup(t)
	names := escapesHere(t)
	for _, end := range []string{"KillShell", "EOF", "SIGKILL"} {
		t.Run(end, func(t *testing.T) {
			rounds := containRounds()
			if end != "KillShell" {
				rounds = 1 // a server each
			}
			for _, name := range names {
				for range rounds {
					mark := proctest.UniqueSleep()
					w := startWireServer(t, "codegensandbox")
					res := w.call(t, "Bash", map[string]any{"command": escape(name, mark) + "; sleep " + mark,
						"description": "d", "run_in_background": true}, "shell_id")
					id := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(res, "\n", 2)[0], "shell_id:"))
					// The escaped process and the shell's own sleep.
					if !poll(10*time.Second, func() bool { return len(proctest.Escaped(mark)) > 0 && len(proctest.WithCmdline(mark)) >= 2 }) {
						t.Fatalf("%s: the background shell's processes did not start: %v", name, proctest.WithCmdline(mark))
					}
					switch end {
					case "KillShell":
						w.call(t, "KillShell", map[string]any{"shell_id": id}, "")
						requireNoSurvivor(t, mark, name+" and KillShell")
					case "EOF":
						w.close(t)
						requireNoSurvivor(t, mark, name+" and the server's end of input")
					case "SIGKILL":
						_ = w.cmd.Process.Kill()
						_ = w.cmd.Wait()
						w.closed = true
						// The watchdog acts once it sees the server gone: not at once.
						if !poll(10*time.Second, func() bool { return len(proctest.WithCmdline(mark)) == 0 }) {
							t.Errorf("%s: alive after the server's SIGKILL: %v", name, proctest.WithCmdline(mark))
							proctest.KillWithCmdline(mark)
						}
					}
					w.close(t)
				}
			}
		})
	}
}

// TestSandboxCheckContainment: `agentbash sandbox check` says, last, how runs are contained without the
// sandbox.
func TestSandboxCheckContainment(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main([]string{"sandbox", "check"}, &out, &errb)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if code > 1 || !strings.HasPrefix(last, "containment: ") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	c := proc.ContainmentInUse()
	if want := "containment: " + c.String(); last != want {
		t.Errorf("last line %q, want %q", last, want)
	}
	if c.Cgroup != "" && !strings.Contains(last, "cgroup v2") {
		t.Errorf("%q does not name the cgroup", last)
	}
}

// wireServer is `agentbash serve ID -transport wire`, one call at a time.
type wireServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  *bufio.Reader
	id     int
	closed bool
}

func startWireServer(t *testing.T, id string) *wireServer {
	t.Helper()
	cmd := agentbashCmd("AGENTBASH_CLI_TEST=contain", "serve", id, "-transport", "wire", "-workspace", t.TempDir())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &wireServer{cmd: cmd, stdin: stdin, lines: bufio.NewReader(stdout)}
	t.Cleanup(func() { w.close(t) })
	return w
}

// call sends one request and returns its result as text (a JSON result as it was sent), failing unless it
// holds want.
func (w *wireServer) call(t *testing.T, tool string, params map[string]any, want string) string {
	t.Helper()
	w.id++
	line, _ := json.Marshal(map[string]any{"id": w.id, "tool": tool, "params": params})
	if _, err := w.stdin.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	answer := make(chan string, 1)
	go func() {
		s, _ := w.lines.ReadString('\n')
		answer <- s
	}()
	select {
	case s := <-answer:
		var a struct {
			Result json.RawMessage
			Error  json.RawMessage
		}
		if err := json.Unmarshal([]byte(s), &a); err != nil || a.Result == nil {
			t.Fatalf("%s: answer %q", line, s)
		}
		res := string(a.Result)
		var text string
		if json.Unmarshal(a.Result, &text) == nil {
			res = text
		}
		if !strings.Contains(res, want) {
			t.Fatalf("%s: result %s, want %q in it", line, res, want)
		}
		return res
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no answer in 30 s", line)
	}
	return ""
}

// close ends the server by the end of its input and waits for it (it kills what it started first).
func (w *wireServer) close(t *testing.T) {
	if w.closed {
		return
	}
	w.closed = true
	w.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = w.cmd.Process.Signal(syscall.SIGKILL)
		<-done
		t.Errorf("the server did not exit at the end of its input")
	}
}
