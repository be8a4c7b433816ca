package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/sandbox"
	"github.com/agentbash/agentbash/runtime/sandbox/sandboxtest"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// The sandbox seen through the runtime: what a command may do under each mode, shown as the command's
// own output (exit code and stderr) in the variant's contract; no survivor; and a clear error, in the
// contract, when a mechanism is missing.

// requireSandbox skips the test, saying why, on a machine that cannot sandbox c (a CI machine may have
// no unprivileged user namespaces, or no Landlock).
func requireSandbox(t testing.TB, c sandbox.Config) {
	t.Helper()
	if why := sandbox.Unavailable(c); why != "" {
		t.Skipf("this machine cannot sandbox %s: missing %s (agentbash sandbox check)", c, why)
	}
}

// ryeResult is rye's result object.
type ryeResult struct {
	Success  bool   `json:"success"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error"`
}

// sandboxed returns a rye engine on workspace ws, confined by c, running commands with shell (default:
// the spec's).
func sandboxed(t *testing.T, c sandbox.Config, ws string, shell ...string) *runtime.Engine {
	t.Helper()
	v, err := variants.Spec("rye")
	if err != nil {
		t.Fatal(err)
	}
	opts := []runtime.Option{runtime.WithWorkspace(ws), runtime.WithSandbox(c)}
	if len(shell) > 0 {
		opts = append(opts, runtime.WithShell(shell...))
	}
	eng, err := runtime.New(v, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

func callRye(t *testing.T, eng *runtime.Engine, command string) ryeResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	params, _ := json.Marshal(map[string]any{"command": command})
	raw, err := eng.Call(ctx, "bash", params)
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	var r ryeResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return r
}

// listener opens a TCP listener on 127.0.0.1 and reports, on the returned channel, whether a
// connection arrived.
func listener(t *testing.T) (port int, accepted <-chan bool) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch, done := make(chan bool, 1), make(chan struct{})
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(30 * time.Second))
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		ch <- err == nil
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().(*net.TCPAddr).Port, ch
}

func TestSandboxConfines(t *testing.T) {
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("needs /bin/bash for /dev/tcp")
	}
	ww := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	ro := sandbox.Config{Mode: sandbox.ReadOnly}
	net := sandbox.Config{Mode: sandbox.WorkspaceWrite, Network: true}
	type env struct {
		ws, outside string // the workspace, and a directory that is not in it
		port        int
		accepted    <-chan bool
	}
	for _, tc := range []struct {
		name    string
		c       sandbox.Config
		command string // {ws}, {outside}, {port} are replaced
		check   func(t *testing.T, r ryeResult, e env)
	}{
		{"workspace-write: a write in the workspace works", ww, "echo data > {ws}/new && mkdir {ws}/dir && mv {ws}/new {ws}/dir/moved",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 0, "")
				if b, err := os.ReadFile(filepath.Join(e.ws, "dir", "moved")); err != nil || string(b) != "data\n" {
					t.Errorf("the file written in the workspace: %q, %v", b, err)
				}
			}},
		{"workspace-write: a write outside fails and leaves nothing", ww, "echo data > {outside}/f",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 1, "Read-only file system")
				wantAbsent(t, filepath.Join(e.outside, "f"))
			}},
		{"workspace-write: a file outside cannot be created by any program", ww, "touch {outside}/f; mkdir {outside}/d; ln -s /x {outside}/l",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 1, "Read-only file system")
				for _, n := range []string{"f", "d", "l"} {
					wantAbsent(t, filepath.Join(e.outside, n))
				}
			}},
		{"workspace-write: .git/config cannot be written", ww, "echo '[evil]' >> {ws}/.git/config",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 1, "Read-only file system")
				if b, _ := os.ReadFile(filepath.Join(e.ws, ".git", "config")); string(b) != "[core]\n" {
					t.Errorf(".git/config is now %q", b)
				}
			}},
		{"workspace-write: .git cannot be removed or moved", ww, "rm -rf {ws}/.git; mv {ws}/.git {ws}/g",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 1, "Read-only file system")
				if _, err := os.Stat(filepath.Join(e.ws, ".git", "config")); err != nil {
					t.Error(err)
				}
				wantAbsent(t, filepath.Join(e.ws, "g"))
			}},
		{"workspace-write: TMPDIR is writable", ww, `echo x > "$TMPDIR/f" && cat "$TMPDIR/f"`,
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 0, "")
				if r.Stdout != "x\n" {
					t.Errorf("stdout %q", r.Stdout)
				}
			}},
		{"workspace-write: /usr can be read", ww, "ls /usr/bin >/dev/null && head -c 4 /bin/sh | od -c | head -1",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 0, "")
				if !strings.Contains(r.Stdout, "E   L   F") {
					t.Errorf("stdout %q", r.Stdout)
				}
			}},
		{"workspace-write: no connection to the host's 127.0.0.1", ww, "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 1, "Connection refused")
				wantNoConnection(t, e.accepted)
			}},
		{"read-only: a write in the workspace fails", ro, "echo data > {ws}/new",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 1, "Read-only file system")
				wantAbsent(t, filepath.Join(e.ws, "new"))
			}},
		{"read-only: nothing can be written anywhere", ro, `touch {ws}/a {outside}/b "${TMPDIR:-/tmp}/c" /tmp/agentbash-sandbox-test-c; mkdir {ws}/d`,
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 1, "Read-only file system")
				for _, p := range []string{filepath.Join(e.ws, "a"), filepath.Join(e.outside, "b"), filepath.Join(e.ws, "d"), "/tmp/agentbash-sandbox-test-c"} {
					wantAbsent(t, p)
				}
			}},
		{"read-only: /dev/null can be written", ro, "echo x > /dev/null && echo ok",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 0, "")
			}},
		{"read-only: no connection to the host's 127.0.0.1", ro, "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 1, "Connection refused")
				wantNoConnection(t, e.accepted)
			}},
		{"network allowed: the connection works", net, "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 0, "")
				if r.Stdout != "connected\n" {
					t.Errorf("stdout %q", r.Stdout)
				}
				if !<-e.accepted {
					t.Error("the listener saw no connection")
				}
			}},
		{"network allowed: writes are still confined", net, "echo data > {outside}/f",
			func(t *testing.T, r ryeResult, e env) {
				wantExit(t, r, 1, "Read-only file system")
				wantAbsent(t, filepath.Join(e.outside, "f"))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireSandbox(t, tc.c)
			e := env{ws: t.TempDir(), outside: t.TempDir()}
			if err := os.MkdirAll(filepath.Join(e.ws, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(e.ws, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e.port, e.accepted = listener(t)
			eng := sandboxed(t, tc.c, e.ws, "/bin/bash", "-c")
			cmd := strings.NewReplacer("{ws}", e.ws, "{outside}", e.outside, "{port}", fmt.Sprint(e.port)).Replace(tc.command)
			tc.check(t, callRye(t, eng, cmd), e)
		})
	}
}

// wantExit checks the command's exit code, and that its stderr says why (empty: says nothing).
func wantExit(t *testing.T, r ryeResult, code int, stderr string) {
	t.Helper()
	if r.ExitCode != code || (stderr == "") != (r.Stderr == "") || !strings.Contains(r.Stderr, stderr) {
		t.Errorf("exit code %d, stderr %q; want %d and %q (stdout %q, error %q)", r.ExitCode, r.Stderr, code, stderr, r.Stdout, r.Error)
	}
}

func wantAbsent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists (%v)", path, err)
	}
}

func wantNoConnection(t *testing.T, accepted <-chan bool) {
	t.Helper()
	select {
	case ok := <-accepted:
		if ok {
			t.Error("the listener accepted a connection from the sandbox")
		}
	case <-time.After(50 * time.Millisecond): // the call is over: a connection would be in the backlog already
	}
}

var (
	wallTime = regexp.MustCompile(`Wall time: [0-9.]+`)
	chunkID  = regexp.MustCompile(`Chunk ID: [0-9a-f]+`)
	pgid     = regexp.MustCompile(`PGID: [0-9]+`)
)

// The sandbox changes no contract: the same commands give the same results with it on and off (in the
// workspace, where writes are allowed).
func TestSandboxSameResults(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	requireSandbox(t, c)
	for _, id := range variants.IDs() {
		t.Run(id, func(t *testing.T) {
			v, err := variants.Spec(id)
			if err != nil {
				t.Fatal(err)
			}
			for _, command := range []string{
				"echo out; echo err >&2; exit 3",
				"kill -9 $$",
				"printf 'a\\r\\nb\\xff'",
				"echo hi > f && cat f && rm f",
				"pwd",
			} {
				var got [2]string
				for i, opts := range [][]runtime.Option{nil, {runtime.WithSandbox(c)}} {
					ws := t.TempDir()
					eng, err := runtime.New(v, append(opts, runtime.WithWorkspace(ws))...)
					if err != nil {
						t.Fatal(err)
					}
					p := commandParams(v, command)
					if cp := v.Tools[0].Param(spec.RoleCommand); cp != nil && cp.Name != "command" {
						delete(p, "command")
						p[cp.Name] = command
					}
					params, _ := json.Marshal(p)
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					raw, err := eng.Call(ctx, v.Tools[0].Name, params)
					cancel()
					eng.Close()
					got[i] = strings.ReplaceAll(fmt.Sprintf("%s %v", raw, err), ws, "WS")
					// The masks: what differs between two correct runs.
					got[i] = chunkID.ReplaceAllString(wallTime.ReplaceAllString(got[i], "Wall time: T"), "Chunk ID: C")
					got[i] = pgid.ReplaceAllString(got[i], "PGID: P")
					if err != nil && strings.Contains(err.Error(), "failed to parse") {
						t.Fatalf("%s: the call did not run: %v", command, err)
					}
				}
				if got[0] != got[1] {
					t.Errorf("%s:\nunsandboxed %s\nsandboxed   %s", command, got[0], got[1])
				}
			}
		})
	}
}

// Nothing a sandboxed command started outlives its call, however it left the process group: the PID
// namespace's init (the helper) ends with the command, and the kernel kills the rest.
func TestSandboxNoSurvivor(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	requireSandbox(t, c)
	eng := sandboxed(t, c, t.TempDir())
	// Under the race detector each run starts a race-built helper (about a second here): 5 runs of each
	// form; `make test-norace` (CI) runs the 50.
	runs := 50
	if raceEnabled {
		runs = 5
	}
	for _, e := range escapeCommands {
		t.Run(e.name, func(t *testing.T) {
			for range runs {
				s := proctest.UniqueSleep()
				r := callRye(t, eng, strings.ReplaceAll(e.command, "SLEEP", s))
				if r.Stdout != "hi\n" || r.ExitCode != 0 {
					t.Fatalf("%+v", r)
				}
				// The helper's exit was observed after the kernel had killed everything in its namespace:
				// nothing may be found, not even briefly.
				if left := proctest.WithCmdline(s); len(left) > 0 {
					t.Errorf("alive after the call: %v", left)
				}
				requireNoneAlive(t, s)
			}
		})
	}
}

// A background shell of a sandboxed engine keeps its namespace until it ends: its escaped children live
// as long as it does, and die with it (KillShell, Close).
func TestSandboxBackgroundNoSurvivor(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	requireSandbox(t, c)
	v, err := variants.Spec("codegensandbox")
	if err != nil {
		t.Fatal(err)
	}
	for _, end := range []string{"KillShell", "Close"} {
		t.Run(end, func(t *testing.T) {
			eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()), runtime.WithSandbox(c))
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			s := proctest.UniqueSleep()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			params, _ := json.Marshal(map[string]any{"command": "setsid sleep " + s + " & sleep " + s, "run_in_background": true, "description": "d"})
			raw, err := eng.Call(ctx, "Bash", params)
			if err != nil {
				t.Fatal(err)
			}
			// The shell (its command line holds s too) and its two sleeps.
			if !pollFor(func() bool { return len(proctest.WithCmdline(s)) == 3 }) {
				t.Fatalf("%s: the background processes did not start: %v", raw, proctest.WithCmdline(s))
			}
			switch end {
			case "KillShell":
				id := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(mustString(t, raw), "\n", 2)[0], "shell_id:"))
				kp, _ := json.Marshal(map[string]any{"shell_id": id})
				if _, err := eng.Call(ctx, "KillShell", kp); err != nil {
					t.Fatal(err)
				}
			case "Close":
				eng.Close()
			}
			if left := proctest.WithCmdline(s); len(left) > 0 {
				t.Errorf("alive after %s: %v", end, left)
			}
			requireNoneAlive(t, s)
		})
	}
}

func mustString(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return s
}

// A machine that lacks a mechanism: every variant fails the call in its own contract for a spawn error,
// with a message naming what is missing, and runs nothing; with best effort the call runs.
func TestSandboxMissingMechanism(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	requireSandbox(t, c)
	defer sandboxtest.Simulate(sandbox.Landlock, "disabled by the test")()
	const want = "sandbox: cannot confine the command, this machine lacks landlock (disabled by the test); the command did not run"
	for _, tc := range []struct {
		id string
		// errType is the class raised; "" means a result, which must hold the message.
		errType string
	}{
		{"rye", ""},
		{"agentrail", ""},
		{"toolregistry", "PermissionError"},
		{"tunacode", "ToolExecutionError"},
		{"codegensandbox", "ToolError"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			v, err := variants.Spec(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			for _, bestEffort := range []bool{false, true} {
				ws := t.TempDir()
				c.BestEffort = bestEffort
				eng, err := runtime.New(v, runtime.WithWorkspace(ws), runtime.WithSandbox(c))
				if err != nil {
					t.Fatal(err)
				}
				params, _ := json.Marshal(commandParams(v, "echo ran | tee marker")) // passes every variant's policy
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				raw, err := eng.Call(ctx, v.Tools[0].Name, params)
				cancel()
				eng.Close()
				_, statErr := os.Stat(filepath.Join(ws, "marker"))
				if bestEffort {
					if err != nil || statErr != nil || !strings.Contains(string(raw), "ran") {
						t.Errorf("best effort: %s %v (marker: %v)", raw, err, statErr)
					}
					continue
				}
				if statErr == nil {
					t.Error("the command ran")
				}
				var te *runtime.ToolError
				switch {
				case tc.errType == "" && err != nil:
					t.Errorf("raised %v, want a result", err)
				case tc.errType == "" && !strings.Contains(string(raw), want):
					t.Errorf("result %s does not say %q", raw, want)
				case tc.errType != "" && (!errors.As(err, &te) || te.Type != tc.errType || !strings.Contains(te.Message, want)):
					t.Errorf("got %s %v, want %s: %s", raw, err, tc.errType, want)
				}
			}
		})
	}
}

// A spec's sandbox block confines the engine by default; WithSandbox overrides it (mode off included);
// the embedded shell cannot be sandboxed.
func TestSandboxSpecBlock(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.ReadOnly}
	requireSandbox(t, c)
	for _, tc := range []struct {
		name     string
		block    *spec.Sandbox
		opts     []runtime.Option
		embedded bool
		want     sandbox.Config
		err      string
	}{
		{"no block", nil, nil, false, sandbox.Config{}, ""},
		{"block", &spec.Sandbox{Mode: spec.SandboxReadOnly}, nil, false, c, ""},
		{"block with network", &spec.Sandbox{Mode: spec.SandboxWorkspaceWrite, Network: true, BestEffort: true}, nil, false,
			sandbox.Config{Mode: sandbox.WorkspaceWrite, Network: true, BestEffort: true}, ""},
		{"option over block", &spec.Sandbox{Mode: spec.SandboxWorkspaceWrite}, []runtime.Option{runtime.WithSandbox(c)}, false, c, ""},
		{"option off over block", &spec.Sandbox{Mode: spec.SandboxReadOnly}, []runtime.Option{runtime.WithSandbox(sandbox.Config{})}, false, sandbox.Config{}, ""},
		{"block with unix sockets", &spec.Sandbox{Mode: spec.SandboxReadOnly, UnixSockets: []string{"/run/a.sock"}}, nil, false,
			sandbox.Config{Mode: sandbox.ReadOnly, UnixSockets: []string{"/run/a.sock"}}, ""},
		{"bad mode", &spec.Sandbox{Mode: "full-access"}, nil, false, sandbox.Config{}, "unknown mode"},
		{"relative unix socket", &spec.Sandbox{Mode: spec.SandboxReadOnly, UnixSockets: []string{"run/a.sock"}}, nil, false, sandbox.Config{},
			`sandbox.unix_sockets[0]: unix socket "run/a.sock": not an absolute path`},
		{"embedded shell", nil, []runtime.Option{runtime.WithSandbox(c)}, true, sandbox.Config{}, "cannot be sandboxed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := variants.Spec("rye")
			if err != nil {
				t.Fatal(err)
			}
			v.Sandbox = tc.block
			v.Shell.Embedded = tc.embedded
			eng, err := runtime.New(v, append(tc.opts, runtime.WithWorkspace(t.TempDir()))...)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("New: %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			if got := eng.Sandbox(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Sandbox() = %v, want %v", got, tc.want)
			}
			if tc.want.Mode == sandbox.ReadOnly {
				if r := callRye(t, eng, "echo x > f"); r.ExitCode == 0 {
					t.Errorf("a read-only engine wrote: %+v", r)
				}
			}
		})
	}
}

// Sessions (a session_start tool, on pipes or a terminal) run under the sandbox as one-shot calls do: the
// terminal is the command's controlling terminal, input reaches it, writes outside the workspace fail,
// and nothing survives the engine.
func TestSandboxSessions(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	requireSandbox(t, c)
	v, err := variants.Spec("codex")
	if err != nil {
		t.Fatal(err)
	}
	var start, write string
	for _, tl := range v.Tools {
		switch tl.Kind {
		case spec.KindSessionStart:
			start = tl.Name
		case spec.KindSessionWrite:
			write = tl.Name
		}
	}
	if start == "" || write == "" {
		t.Skip("the codex variant has no session tools")
	}
	ws, outside := t.TempDir(), t.TempDir()
	eng, err := runtime.New(v, runtime.WithWorkspace(ws), runtime.WithSandbox(c))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	call := func(t *testing.T, tool string, params map[string]any) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		raw, _ := json.Marshal(params)
		res, err := eng.Call(ctx, tool, raw)
		if err != nil {
			t.Fatalf("%s %s: %v", tool, raw, err)
		}
		return mustString(t, res)
	}
	sessionID := func(t *testing.T, text string) float64 {
		t.Helper()
		_, rest, ok := strings.Cut(text, "session ID ")
		var id float64
		if _, err := fmt.Sscan(rest, &id); !ok || err != nil {
			t.Fatalf("no session id in %q", text)
		}
		return id
	}
	for _, tty := range []bool{false, true} {
		t.Run(fmt.Sprintf("tty=%v", tty), func(t *testing.T) {
			out := call(t, start, map[string]any{"cmd": "test -t 0 && echo isatty; echo in > in.txt && echo x > " + outside + "/f",
				"tty": tty, "yield_time_ms": 10000})
			if tty != strings.Contains(out, "isatty") || !strings.Contains(out, "Read-only file system") ||
				!strings.Contains(out, "Process exited with code 1") {
				t.Errorf("output:\n%s", out)
			}
			wantAbsent(t, filepath.Join(outside, "f"))
			if b, err := os.ReadFile(filepath.Join(ws, "in.txt")); err != nil || string(b) != "in\n" {
				t.Errorf("in.txt: %q %v", b, err)
			}
			if !tty {
				return
			}
			// The terminal is the controlling one: /dev/tty opens, and a line typed reaches the command.
			out = call(t, start, map[string]any{"cmd": "echo tty: >/dev/tty && read line && echo got:$line", "tty": true, "yield_time_ms": 250})
			id := sessionID(t, out)
			for i := 0; i < 20 && !strings.Contains(out, "got:hello"); i++ {
				chars := ""
				if i == 0 {
					chars = "hello\n"
				}
				out += call(t, write, map[string]any{"session_id": id, "chars": chars, "yield_time_ms": 1000})
			}
			if !strings.Contains(out, "tty:") || !strings.Contains(out, "got:hello") {
				t.Errorf("output:\n%s", out)
			}
		})
	}
	// A session's escaped children die with the engine.
	s := proctest.UniqueSleep()
	out := call(t, start, map[string]any{"cmd": "setsid sleep " + s + " & sleep " + s, "tty": true, "yield_time_ms": 250})
	sessionID(t, out)
	if !pollFor(func() bool { return len(proctest.WithCmdline(s)) >= 2 }) {
		t.Fatalf("the session's processes did not start: %v", proctest.WithCmdline(s))
	}
	eng.Close()
	if left := proctest.WithCmdline(s); len(left) > 0 {
		t.Errorf("alive after Close: %v", left)
	}
	requireNoneAlive(t, s)
}

// Without the network no command reaches a unix socket outside the workspace, be it a call's, a
// background shell's or a session's: the server outside receives nothing, and the command says why, as
// the kernel says it; with the socket allowed (spec block unix_sockets) the call's connection goes through.
func TestSandboxUnixSockets(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	requireSandbox(t, c)
	py := ""
	for _, p := range []string{"/usr/local/bin/python3", "/usr/bin/python3", "/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("needs python3")
	}
	sock := filepath.Join(t.TempDir(), "u.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// received is what connections sent, once the clients are done (a connection made is in the backlog).
	received := func() []string {
		var got []string
		for {
			_ = ln.SetDeadline(time.Now().Add(50 * time.Millisecond))
			conn, err := ln.Accept()
			if err != nil {
				return got
			}
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			var b [64]byte
			n, _ := conn.Read(b[:])
			conn.Close()
			got = append(got, string(b[:n]))
		}
	}
	client := py + ` -c 'import socket,sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); s.sendall(b"hello"); print("sent")
except OSError as e:
    print("refused:", e.strerror)' ` + sock
	t.Run("call", func(t *testing.T) {
		r := callRye(t, sandboxed(t, c, t.TempDir()), client)
		if r.Stdout != "refused: Permission denied\n" {
			t.Errorf("%+v", r)
		}
		if got := received(); len(got) > 0 {
			t.Errorf("the server outside received %q", got)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		v, err := variants.Spec("rye")
		if err != nil {
			t.Fatal(err)
		}
		v.Sandbox = &spec.Sandbox{Mode: spec.SandboxWorkspaceWrite, UnixSockets: []string{sock}}
		eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		r := callRye(t, eng, client)
		if r.Stdout != "sent\n" {
			t.Errorf("%+v", r)
		}
		if got := received(); len(got) != 1 || got[0] != "hello" {
			t.Errorf("the server outside received %q, want [hello]", got)
		}
	})
	t.Run("background shell", func(t *testing.T) {
		v, err := variants.Spec("codegensandbox")
		if err != nil {
			t.Fatal(err)
		}
		eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()), runtime.WithSandbox(c))
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		params, _ := json.Marshal(map[string]any{"command": client, "run_in_background": true, "description": "d"})
		raw, err := eng.Call(ctx, "Bash", params)
		if err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(mustString(t, raw), "\n", 2)[0], "shell_id:"))
		var out string
		if !pollFor(func() bool {
			pp, _ := json.Marshal(map[string]any{"shell_id": id})
			raw, err := eng.Call(ctx, "BashOutput", pp)
			if err != nil {
				t.Fatal(err)
			}
			out = mustString(t, raw)
			return !strings.Contains(out, "status: running")
		}) {
			t.Fatalf("the background shell said nothing: %q", out)
		}
		if !strings.Contains(out, "refused: Permission denied") {
			t.Errorf("output %q", out)
		}
		if got := received(); len(got) > 0 {
			t.Errorf("the server outside received %q", got)
		}
	})
	t.Run("session", func(t *testing.T) {
		v, err := variants.Spec("codex")
		if err != nil {
			t.Fatal(err)
		}
		eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()), runtime.WithSandbox(c))
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, tty := range []bool{false, true} {
			params, _ := json.Marshal(map[string]any{"cmd": client, "tty": tty, "yield_time_ms": 10000})
			raw, err := eng.Call(ctx, "exec_command", params)
			if err != nil {
				t.Fatal(err)
			}
			if out := mustString(t, raw); !strings.Contains(out, "refused: Permission denied") {
				t.Errorf("tty=%v: output %q", tty, out)
			}
		}
		if got := received(); len(got) > 0 {
			t.Errorf("the server outside received %q", got)
		}
	})
}

// A command cannot forge its own result through the helper's status pipe: the exact forgery of issue 22
// (the helper is PID 1 in the run's namespace) is refused, and the call reports what the command did.
func TestSandboxStatusForgery(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.ReadOnly}
	requireSandbox(t, c)
	eng := sandboxed(t, c, t.TempDir())
	for _, tc := range []struct {
		command string
		code    int
	}{
		{`printf "exit 2560\n" > /proc/1/fd/3; exit 0`, 0},
		{`printf "exit 2560\n" > /proc/1/fd/3; exit 3`, 3},
		{`printf "junk" > /proc/1/fd/3; exit 4`, 4},
	} {
		r := callRye(t, eng, tc.command)
		if r.ExitCode != tc.code || !strings.Contains(r.Stderr, "Permission denied") {
			t.Errorf("%s: %+v, want exit code %d and the write refused", tc.command, r, tc.code)
		}
	}
}

// An executor that runs commands elsewhere cannot be combined with the sandbox, which confines them here;
// a Refuser can: it starts nothing (the conformance suite's harmful cases run on one, sandboxed targets'
// included), and the call fails, in the contract, with nothing run.
func TestSandboxExecutors(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	requireSandbox(t, c)
	v, err := variants.Spec("rye")
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	for _, tc := range []struct {
		name   string
		x      proc.Executor
		newErr string
	}{
		{"elsewhere", elsewhere{}, "use one or the other"},
		{"refuser", &proc.Refuser{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, err := runtime.New(v, runtime.WithWorkspace(ws), runtime.WithSandbox(c), runtime.WithExecutor(tc.x))
			if tc.newErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.newErr) {
					t.Fatalf("New: %v, want %q", err, tc.newErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			marker := filepath.Join(ws, "ran")
			// rye answers a command that could not start as a failure of its own (no errno here).
			res, err := eng.Call(context.Background(), "bash", json.RawMessage(`{"command":"touch `+marker+`"}`))
			if err != nil || !strings.Contains(string(res), `"success":false`) {
				t.Errorf("the call: %s, %v; want a failure", res, err)
			}
			if r := tc.x.(*proc.Refuser); len(r.Refused()) != 1 || !errors.Is(r.Err(), proc.ErrRefused) {
				t.Errorf("refused %q (%v), want the one run", r.Refused(), r.Err())
			}
			wantAbsent(t, marker)
		})
	}
}

// elsewhere is an executor that would run commands on another machine (it is never asked to: New refuses
// it beside a sandbox).
type elsewhere struct{}

func (elsewhere) Open([]string) (proc.Starter, error) { return nil, errors.New("not opened") }
