package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime/serve"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// The test binary doubles as the agentbash command: `<test binary> agentbash-main ARGS...` runs Main.
func init() {
	if len(os.Args) >= 2 && os.Args[1] == "agentbash-main" {
		os.Exit(Main(os.Args[2:], os.Stdout, os.Stderr))
	}
}

// agentbashCmd is the command `agentbash ARGS...`, served by this test binary, with a marker in its
// environment that every process it starts inherits.
func agentbashCmd(marker string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"agentbash-main"}, args...)...)
	cmd.Env = append(os.Environ(), marker)
	return cmd
}

func newMarker(t *testing.T) string {
	return fmt.Sprintf("AGENTBASH_CLI_TEST=%s-%d", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()), time.Now().UnixNano())
}

func countSleeps(procs []string) int {
	n := 0
	for _, p := range procs {
		if strings.Contains(p, "sleep 1000") {
			n++
		}
	}
	return n
}

// poll checks cond every 10 ms for up to d.
func poll(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// startHTTP starts `agentbash serve ID -transport TRANSPORT [EXTRA...]` on a free port and returns its URL.
func startHTTP(t *testing.T, id, transport, ws, marker string, extra ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := agentbashCmd(marker, append([]string{"serve", id, "-transport", transport, "-addr", "127.0.0.1:0", "-workspace", ws}, extra...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	urls := make(chan string, 1)
	go func() {
		for sc.Scan() {
			if i := strings.Index(sc.Text(), " on http"); i >= 0 {
				urls <- sc.Text()[i+4:]
			}
		}
	}()
	select {
	case u := <-urls:
		return u, cmd
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not say where it listens")
	}
	return "", nil
}

// connect starts `agentbash serve ID` on a transport and connects the go-sdk client to it.
func connect(t *testing.T, id, transport, ws, marker string) *mcp.ClientSession {
	t.Helper()
	var tr mcp.Transport
	switch transport {
	case serve.Stdio:
		cmd := agentbashCmd(marker, "serve", id, "-workspace", ws)
		cmd.Stderr = os.Stderr
		tr = &mcp.CommandTransport{Command: cmd}
	case serve.HTTP:
		url, _ := startHTTP(t, id, transport, ws, marker)
		tr = &mcp.StreamableClientTransport{Endpoint: url}
	case serve.SSE:
		url, _ := startHTTP(t, id, transport, ws, marker)
		tr = &mcp.SSEClientTransport{Endpoint: url}
	}
	// The SSE transport's event stream lives as long as this context: cancelled only at the end.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// unknownSession is a session id no server has given (codex's are 1000-99999).
const unknownSession = 424242

// argsFor builds a call of a tool: the command (for an exec tool), the shell id, the session id (a number
// no session has, or the shell id), and every other required parameter with a plain value.
func argsFor(t *spec.Tool, command, shellID string) map[string]any {
	args := map[string]any{}
	for _, p := range t.Params {
		switch string(p.Role) {
		case "command":
			args[p.Name] = command
		case "commands":
			args[p.Name] = []string{command}
		case "argv":
			args[p.Name] = []string{"/bin/sh", "-c", command}
		case "session_id", "shell_id":
			if p.Type == spec.TypeNumber || p.Type == spec.TypeInteger {
				args[p.Name] = unknownSession
			} else {
				args[p.Name] = shellID
			}
		default:
			if p.Required {
				args[p.Name] = "agentbash test"
			}
		}
	}
	return args
}

// The go-sdk client drives `agentbash serve` over stdio, streamable HTTP and SSE: it lists each variant's
// tools as `schema -format mcp` prints them and calls every tool; a codegensandbox background shell is
// started, polled and killed; a raised error is an isError result whose class is in _meta.
func TestServeMCPTransports(t *testing.T) {
	for _, transport := range []string{serve.Stdio, serve.HTTP, serve.SSE} {
		for _, id := range variants.IDs() {
			t.Run(transport+"/"+id, func(t *testing.T) {
				t.Parallel()
				v, _ := variants.Spec(id)
				ctx := context.Background()
				marker := newMarker(t)
				if id == "codex" {
					// Registered before the server's: runs once the client and the server are gone.
					t.Cleanup(func() {
						if !poll(10*time.Second, func() bool { return countSleeps(proctest.WithEnv(marker)) == 0 }) {
							t.Errorf("a session outlived its server: %v", proctest.WithEnv(marker))
						}
					})
				}
				cs := connect(t, id, transport, t.TempDir(), marker)
				list, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				defs, _ := toolschema.Definitions(v, toolschema.MCP)
				// tools/list lists the tools by name; the definitions are in the spec's order.
				var want, got []map[string]any
				_ = json.Unmarshal(defs, &want)
				b, _ := json.Marshal(list.Tools)
				_ = json.Unmarshal(b, &got)
				byName := func(a, b map[string]any) int { return strings.Compare(fmt.Sprint(a["name"]), fmt.Sprint(b["name"])) }
				slices.SortFunc(want, byName)
				slices.SortFunc(got, byName)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("tools/list:\n%s\nwant\n%s", b, defs)
				}
				for i := range v.Tools {
					tl := &v.Tools[i]
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tl.Name, Arguments: argsFor(tl, "echo served", "agentbash-unknown")})
					if err != nil {
						t.Fatalf("%s: %v", tl.Name, err)
					}
					switch k := string(tl.Kind); {
					case k == "" || k == "exec" || k == "session_start" || k == "persistent" || k == "batch":
						if res.IsError || !strings.Contains(text(res), "served") {
							t.Errorf("%s: isError %t, %q", tl.Name, res.IsError, text(res))
						}
					case k == "session_list" || k == "list":
						if res.IsError {
							t.Errorf("%s: isError %t, %q", tl.Name, res.IsError, text(res))
						}
					default:
						// An unknown shell or session id: the tool's error, with its class.
						unknown := "agentbash-unknown"
						p := tl.Param(spec.RoleSessionID)
						if p == nil {
							p = tl.Param(spec.RoleShellID) // a pid may be a number
						}
						if p != nil && p.Type != spec.TypeString {
							unknown = strconv.Itoa(unknownSession)
						}
						if !res.IsError || res.Meta[serve.ErrorTypeKey] == nil || !strings.Contains(text(res), unknown) {
							t.Errorf("%s: isError %t, meta %v, %q", tl.Name, res.IsError, res.Meta, text(res))
						}
					}
				}
				switch id {
				case "codegensandbox":
					backgroundShell(t, cs, marker)
				case "codex":
					session(t, cs, marker)
				case "toolregistry":
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sudo ls"}})
					if err != nil {
						t.Fatal(err)
					}
					if !res.IsError || res.Meta[serve.ErrorTypeKey] != "ValueError" || text(res) != "Dangerous command blocked: Privilege escalation via sudo" {
						t.Errorf("a refused command: isError %t, meta %v, %q", res.IsError, res.Meta, text(res))
					}
				}
			})
		}
	}
}

// backgroundShell starts a background sleep with Bash, polls it with BashOutput and kills it with KillShell.
func backgroundShell(t *testing.T, cs *mcp.ClientSession, marker string) {
	t.Helper()
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{
		"command": "echo started; sleep 1000", "description": "a background shell", "run_in_background": true}})
	if err != nil || res.IsError {
		t.Fatalf("start: %v %q", err, text(res))
	}
	first, _, _ := strings.Cut(text(res), "\n")
	id := strings.TrimPrefix(first, "shell_id: ")
	if !poll(5*time.Second, func() bool { return countSleeps(proctest.WithEnv(marker)) == 1 }) {
		t.Fatalf("the background sleep is not running: %v", proctest.WithEnv(marker))
	}
	var out string
	poll(5*time.Second, func() bool {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "BashOutput", Arguments: map[string]any{"shell_id": id}})
		out = text(res)
		return err == nil && strings.Contains(out, "started\n")
	})
	if !strings.Contains(out, "status: running") || !strings.Contains(out, "started\n") {
		t.Errorf("poll: %q", out)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "KillShell", Arguments: map[string]any{"shell_id": id}})
	if err != nil || res.IsError || text(res) != "killed: "+id+"\n" {
		t.Errorf("kill: %v %q", err, text(res))
	}
	if !poll(3*time.Second, func() bool { return countSleeps(proctest.WithEnv(marker)) == 0 }) {
		t.Errorf("the killed shell is still running: %v", proctest.WithEnv(marker))
	}
}

// session talks to a codex session across MCP calls: exec_command starts a command on a terminal that
// waits for a line, write_stdin answers it, and the window that sees the exit reports it; a session still
// running when the client goes is killed with the server.
func session(t *testing.T, cs *mcp.ClientSession, marker string) {
	t.Helper()
	ctx := context.Background()
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %q", name, args, err, text(res))
		}
		return text(res)
	}
	idRE := regexp.MustCompile(`\nProcess running with session ID (\d+)\n`)
	out := call("exec_command", map[string]any{"cmd": `read x; echo "got:$x"`, "tty": true, "yield_time_ms": 500})
	m := idRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("exec_command: no session in %q", out)
	}
	id, _ := strconv.Atoi(m[1])
	out = call("write_stdin", map[string]any{"session_id": id, "chars": "hi\n", "yield_time_ms": 5000})
	if !strings.Contains(out, "\nProcess exited with code 0\n") || !strings.HasSuffix(out, "\nOutput:\nhi\r\ngot:hi\r\n") {
		t.Errorf("write_stdin: %q", out)
	}
	out = call("exec_command", map[string]any{"cmd": "sleep 1000", "yield_time_ms": 250})
	if !idRE.MatchString(out) {
		t.Fatalf("exec_command: no session in %q", out)
	}
	if !poll(5*time.Second, func() bool { return countSleeps(proctest.WithEnv(marker)) == 1 }) {
		t.Fatalf("the session's sleep is not running: %v", proctest.WithEnv(marker))
	}
}

// Each way the server ends (a signal, the end of its input, a closed stdout) kills and reaps every process
// it started: a foreground sleep in flight and a background shell. Checked in /proc by a marker in their
// environment, on the wire protocol and on MCP over stdio.
func TestServeLifecycle(t *testing.T) {
	type ending struct {
		name string
		do   func(cmd *exec.Cmd, stdin io.Closer, stdout io.Closer)
	}
	signal := func(s syscall.Signal) func(*exec.Cmd, io.Closer, io.Closer) {
		return func(cmd *exec.Cmd, _, _ io.Closer) { cmd.Process.Signal(s) }
	}
	endings := []ending{
		{"SIGINT", signal(syscall.SIGINT)},
		{"SIGTERM", signal(syscall.SIGTERM)},
		{"SIGHUP", signal(syscall.SIGHUP)},
		{"EOF", func(_ *exec.Cmd, stdin, _ io.Closer) { stdin.Close() }},
		{"closed stdout", func(_ *exec.Cmd, _, stdout io.Closer) { stdout.Close() }},
		// The server gets no chance to clean up: its watchdog kills what it started.
		{"SIGKILL", signal(syscall.SIGKILL)},
	}
	for _, transport := range []string{serve.Wire, serve.Stdio} {
		for _, e := range endings {
			if transport == serve.Stdio && e.name != "EOF" && e.name != "closed stdout" && e.name != "SIGTERM" {
				continue // the signals are handled alike for every transport
			}
			t.Run(transport+"/"+e.name, func(t *testing.T) {
				t.Parallel()
				marker := newMarker(t)
				ws := t.TempDir()
				cmd := agentbashCmd(marker, "serve", "codegensandbox", "-transport", transport, "-workspace", ws)
				stdin, _ := cmd.StdinPipe()
				stdout, _ := cmd.StdoutPipe()
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer func() {
					cmd.Process.Kill()
					cmd.Wait()
				}()
				lines := bufio.NewReader(stdout)
				send := func(s string) {
					if _, err := io.WriteString(stdin, s+"\n"); err != nil {
						t.Fatal(err)
					}
				}
				bg := `{"command":"sleep 1000","description":"d","run_in_background":true}`
				fg := `{"command":"sleep 1000","description":"d","timeout":600}`
				if transport == serve.Wire {
					send(`{"id":1,"tool":"Bash","params":` + bg + `}`)
					send(`{"id":2,"tool":"Bash","params":` + fg + `}`)
				} else {
					send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
					if _, err := lines.ReadString('\n'); err != nil {
						t.Fatal(err)
					}
					send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
					send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Bash","arguments":` + bg + `}}`)
					send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Bash","arguments":` + fg + `}}`)
				}
				if line, err := lines.ReadString('\n'); err != nil || !strings.Contains(line, "shell_id") {
					t.Fatalf("background start: %q %v", line, err)
				}
				if !poll(10*time.Second, func() bool { return countSleeps(proctest.WithEnv(marker)) == 2 }) {
					t.Fatalf("want a foreground and a background sleep: %v", proctest.WithEnv(marker))
				}
				e.do(cmd, stdin, stdout)
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				select {
				case err := <-exited:
					if err != nil && e.name != "SIGKILL" {
						t.Errorf("the server exited with %v; stderr:\n%s", err, stderr.String())
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("the server did not exit; stderr:\n%s", stderr.String())
				}
				if !poll(3*time.Second, func() bool { return len(proctest.WithEnv(marker)) == 0 }) {
					t.Errorf("left alive: %v", proctest.WithEnv(marker))
				}
			})
		}
	}
}

// Ten thousand workspaces: the server keeps at most serve.DefaultMaxEngines engines, so its memory stays
// bounded (peak RSS under 96 MiB: 61-73 MiB measured on a loaded 2-core machine, where 10,000 engines
// would take gigabytes). The race detector multiplies memory, so the bound is checked only without it (CI
// runs this test once more without -race).
func TestServeGrowth(t *testing.T) {
	if raceEnabled {
		t.Skip("memory is not representative under the race detector: run without -race")
	}
	if testing.Short() {
		t.Skip("sends 10,000 requests")
	}
	marker := newMarker(t)
	cmd := agentbashCmd(marker, "serve", "codegensandbox", "-transport", "wire")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		// The end of the input ends the server, and every shell it started. What it still writes is
		// read, so that a test that stopped reading (a failure) cannot leave it blocked on its output.
		stdin.Close()
		go io.Copy(io.Discard, stdout)
		cmd.Wait()
		deadline := time.Now().Add(10 * time.Second)
		for len(proctest.WithEnv(marker)) > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // a bounded poll: the kernel reaps the shells
		}
		if left := proctest.WithEnv(marker); len(left) > 0 {
			t.Errorf("alive after the server ended: %v", left)
		}
	}()
	const n, shells = 10000, 500
	ws := t.TempDir()
	go func() {
		w := bufio.NewWriter(stdin)
		for i := range n {
			fmt.Fprintf(w, `{"id":%d,"tool":"Bash","params":{"command":"","description":"d"},"workspace":"/nonexistent-agentbash/ws-%d"}`+"\n", i, i)
		}
		// Background shells in one workspace, past the registry's limit (max_live, 64 by default).
		for i := range shells {
			fmt.Fprintf(w, `{"id":%d,"tool":"Bash","params":{"command":"sleep 1000.%d","description":"d","run_in_background":true},"workspace":%q}`+"\n", n+i, i, ws)
		}
		w.Flush()
	}()
	// The server answers concurrently: answers come in any order, each names its request.
	r := bufio.NewReader(stdout)
	seen := make([]bool, n+shells)
	started, refused := 0, 0
	for range n + shells {
		line, err := r.ReadString('\n')
		var a struct{ ID int }
		if err != nil || json.Unmarshal([]byte(line), &a) != nil || a.ID < 0 || a.ID >= n+shells || seen[a.ID] {
			t.Fatalf("answer: %q %v", line, err)
		}
		seen[a.ID] = true
		switch {
		case a.ID < n && strings.Contains(line, "command is required"):
		case a.ID >= n && strings.Contains(line, `"result"`) && strings.Contains(line, "shell_id"):
			started++
		case a.ID >= n && strings.Contains(line, `"error":{"type":"ToolError","message":"background limit reached"}`):
			refused++
		default:
			t.Fatalf("answer %d: %q", a.ID, line)
		}
	}
	t.Logf("%d background shells asked for: %d started, %d refused with the limit error", shells, started, refused)
	if started != spec.DefaultMaxLive || refused != shells-spec.DefaultMaxLive {
		t.Errorf("%d started and %d refused, want %d and %d", started, refused, spec.DefaultMaxLive, shells-spec.DefaultMaxLive)
	}
	deadline := time.Now().Add(10 * time.Second)
	for countSleeps(proctest.WithEnv(marker)) < spec.DefaultMaxLive && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // a bounded poll: the shells exec their sleep
	}
	if live := countSleeps(proctest.WithEnv(marker)); live != spec.DefaultMaxLive {
		t.Errorf("%d background sleeps are alive, want %d", live, spec.DefaultMaxLive)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	var hwm int
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			hwm, _ = strconv.Atoi(f[1])
		}
	}
	t.Logf("peak RSS after %d workspaces and %d background shells: %d KiB", n, shells, hwm)
	if hwm == 0 || hwm > 96<<10 {
		t.Errorf("peak RSS %d KiB, want under 96 MiB", hwm)
	}
}

// The official TypeScript SDK (installed from npm into a temporary directory) lists and calls the tools
// of `agentbash serve` over stdio and streamable HTTP.
func TestTypeScriptSDKInterop(t *testing.T) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the interop test with the TypeScript SDK needs node and npm", tool)
		}
	}
	dir := t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json", "client.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "node", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	install := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
	v, _ := variants.Spec("toolregistry")
	defs, _ := toolschema.Definitions(v, toolschema.MCP)
	url, _ := startHTTP(t, "toolregistry", serve.HTTP, t.TempDir(), newMarker(t))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"stdio", []string{"stdio", os.Args[0], "agentbash-main", "serve", "toolregistry", "-workspace", t.TempDir()}},
		{"http", []string{"http", url}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("node", append([]string{"client.mjs"}, tc.args...)...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, stderr.String())
			}
			var got struct {
				Server struct{ Name string }
				Tools  []any
				OK     struct {
					Content []struct{ Type, Text string }
					IsError bool
				}
				Refused struct {
					Content []struct{ Type, Text string }
					IsError bool
					Meta    map[string]any `json:"_meta"`
				}
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var want []any
			_ = json.Unmarshal(defs, &want)
			if got.Server.Name != "agentbash-toolregistry" || !reflect.DeepEqual(got.Tools, want) {
				t.Errorf("server %q, tools:\n%v\nwant\n%v", got.Server.Name, got.Tools, want)
			}
			if got.OK.IsError || len(got.OK.Content) != 1 || !strings.Contains(got.OK.Content[0].Text, `"stdout": "hello\n"`) &&
				!strings.Contains(got.OK.Content[0].Text, `"stdout":"hello\n"`) {
				t.Errorf("echo hello: %+v", got.OK)
			}
			if !got.Refused.IsError || got.Refused.Meta[serve.ErrorTypeKey] != "ValueError" ||
				len(got.Refused.Content) != 1 || got.Refused.Content[0].Text != "Dangerous command blocked: Privilege escalation via sudo" {
				t.Errorf("sudo ls: %+v", got.Refused)
			}
		})
	}
}

// A codex server that ends (the end of its input, or SIGKILL: its watchdog then acts) kills its sessions:
// one on pipes, one on a terminal, and a start still in its window.
func TestServeSessionLifecycle(t *testing.T) {
	for _, e := range []struct {
		name string
		end  func(cmd *exec.Cmd, stdin io.Closer)
	}{
		{"EOF", func(_ *exec.Cmd, stdin io.Closer) { stdin.Close() }},
		{"SIGKILL", func(cmd *exec.Cmd, _ io.Closer) { cmd.Process.Signal(syscall.SIGKILL) }},
	} {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			marker := newMarker(t)
			cmd := agentbashCmd(marker, "serve", "codex", "-transport", "wire", "-workspace", t.TempDir())
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				cmd.Process.Kill()
				cmd.Wait()
			}()
			lines := bufio.NewReader(stdout)
			for i, params := range []string{
				`{"cmd":"sleep 1000","yield_time_ms":250}`,
				`{"cmd":"sleep 1000","yield_time_ms":250,"tty":true}`,
			} {
				if _, err := io.WriteString(stdin, fmt.Sprintf(`{"id":%d,"tool":"exec_command","params":%s}`+"\n", i+1, params)); err != nil {
					t.Fatal(err)
				}
				if line, err := lines.ReadString('\n'); err != nil || !strings.Contains(line, "Process running with session ID") {
					t.Fatalf("start %d: %q %v", i+1, line, err)
				}
			}
			// A start still waiting for its window when the server ends.
			io.WriteString(stdin, `{"id":3,"tool":"exec_command","params":{"cmd":"sleep 1000","yield_time_ms":30000}}`+"\n")
			if !poll(10*time.Second, func() bool { return countSleeps(proctest.WithEnv(marker)) == 3 }) {
				t.Fatalf("want three sleeps: %v", proctest.WithEnv(marker))
			}
			e.end(cmd, stdin)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				t.Fatalf("the server did not exit; stderr:\n%s", stderr.String())
			}
			if !poll(5*time.Second, func() bool { return len(proctest.WithEnv(marker)) == 0 }) {
				t.Errorf("left alive: %v", proctest.WithEnv(marker))
			}
		})
	}
}
