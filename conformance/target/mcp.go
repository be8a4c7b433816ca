package target

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/serve"
)

// An MCP answer becomes an Answer this way (conformance/PROTOCOL.md says it for implementers): the text
// items of the result's content, joined in order, are the result (for a tool whose results are JSON, the
// text parsed as a JSON object, when it is one); isError makes the text an error whose type is the string
// under serve.ErrorTypeKey in the result's _meta, or else structuredContent.error.type, or else ToolError; a
// JSON-RPC error (unknown tool, invalid params) is an error of type JSONRPCError.
const mcpNoClass = "ToolError"

// MCPTarget is an MCP server over stdio, driven with the official SDK's client. An MCP server has one
// workspace for its lifetime, so it is started for each case's workspace, with that directory as its
// working directory and "{workspace}" in its argv replaced by the path, and stopped (EOF, then a kill
// after ExitWait) once the case is judged. It runs in a process group of its own and every process it
// starts carries a marker in its environment (runtime/proc, and ServerMarker): when its case ends, the
// marked processes still running besides the server are reported and everything it started is killed and
// reaped. Lines on its stdout that are not JSON (a log line before the first message) are skipped and
// reported as warnings.
type MCPTarget struct {
	// Argv is the server's program and arguments; "{workspace}" in any of them is replaced.
	Argv []string
	// Env is the server's environment (default: this process's).
	Env []string
	// Stderr receives the server's log (default: kept only to quote its end in failure messages).
	Stderr io.Writer
	// ExitWait is how long the server may take to exit after EOF before it is killed (default 5 s).
	ExitWait time.Duration
	// Notifications are sent, in order, right after the client's notifications/initialized: what a
	// server needs to hear before its tools work.
	Notifications []Notification
}

// Notification is a JSON-RPC notification the client sends after the initialize handshake (npm
// @openai/codex-shell-tool-mcp waits for codex/sandbox-state/update before it runs anything).
type Notification struct {
	Method string          `json:"method" yaml:"method"`
	Params json.RawMessage `json:"params,omitempty" yaml:"-"`
}

// ServerMarker is the variable the suite sets in the environment of an MCP stdio server it starts; every
// process the server starts inherits it, unless it clears its environment.
const ServerMarker = "AGENTBASH_CONFORMANCE_SERVER"

// MCP returns the MCP stdio server started as argv.
func MCP(argv ...string) *MCPTarget { return &MCPTarget{Argv: argv} }

// Name describes the target.
func (m *MCPTarget) Name() string { return "mcp stdio: " + strings.Join(m.Argv, " ") }

// Open prepares the target; a server starts with the first call in each workspace (or when the suite
// prepares the workspace).
func (m *MCPTarget) Open(context.Context) (Conn, error) {
	if len(m.Argv) == 0 {
		return nil, errors.New("conformance: MCP target has no command")
	}
	return &mcpStdioConn{m: m, byWS: map[string]*mcpServer{}, warn: &warnings{}, id: fmt.Sprintf("%d-%d", os.Getpid(), serverRuns.Add(1))}, nil
}

var serverRuns atomic.Int64

// mcpStdioConn runs one server per workspace in use.
type mcpStdioConn struct {
	m    *MCPTarget
	warn *warnings
	id   string // this run's part of the servers' markers

	mu   sync.Mutex
	byWS map[string]*mcpServer
	n    int
}

// mcpServer is one server process and its client session.
type mcpServer struct {
	p       *proc.Process
	marker  string // NAME=VALUE, in the environment of everything it starts
	stdout  *os.File
	tail    *tailBuffer
	session *mcp.ClientSession
	cancel  context.CancelFunc
	own     []int // the server's processes once it had answered initialize
}

// connectMCP connects a client session within ctx's deadline; the session itself lives until the returned
// cancel (an SSE client's event stream is bound to the context it connected with).
func connectMCP(ctx context.Context, t mcp.Transport) (*mcp.ClientSession, context.CancelFunc, error) {
	life, cancel := context.WithCancel(context.Background())
	type result struct {
		s   *mcp.ClientSession
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := mcp.NewClient(clientInfo, nil).Connect(life, t, nil)
		ch <- result{s, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			cancel()
			return nil, nil, r.err
		}
		return r.s, cancel, nil
	case <-ctx.Done():
		cancel()
		if r := <-ch; r.s != nil {
			r.s.Close()
		}
		return nil, nil, ctx.Err()
	}
}

var clientInfo = &mcp.Implementation{Name: "agentbash-conformance", Version: "1"}

func (c *mcpStdioConn) Call(ctx context.Context, req Request) (Answer, error) {
	s, err := c.server(ctx, req.Workspace)
	if err != nil {
		return Answer{}, err
	}
	ans, err := callMCP(ctx, s.session, req)
	if err != nil {
		return Answer{}, fmt.Errorf("MCP server (pid %d): %v%s", s.p.Pid(), err, tailNote(s.tail))
	}
	return ans, nil
}

// prepare starts the workspace's server before the case's time starts.
func (c *mcpStdioConn) prepare(ctx context.Context, ws string) error {
	_, err := c.server(ctx, ws)
	return err
}

// server returns the workspace's server, starting it and running the initialize handshake.
func (c *mcpStdioConn) server(ctx context.Context, ws string) (*mcpServer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.byWS[ws]; ok {
		return s, nil
	}
	argv := make([]string, len(c.m.Argv))
	for i, a := range c.m.Argv {
		argv[i] = strings.ReplaceAll(a, "{workspace}", ws)
	}
	c.n++
	s := &mcpServer{tail: &tailBuffer{max: 4 << 10}, marker: fmt.Sprintf("%s=%s-%d", ServerMarker, c.id, c.n)}
	env := c.m.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(append([]string(nil), env...), s.marker)
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	var stderr io.Writer = s.tail
	if c.m.Stderr != nil {
		stderr = io.MultiWriter(s.tail, c.m.Stderr)
	}
	// The server's stdout is the pipe itself (no copy): the client reads it as it comes.
	s.p, err = proc.Start(proc.Spec{Argv: argv, Dir: ws, Env: env, Stdout: outW, Stderr: stderr, OpenStdin: true, Grace: time.Second})
	outW.Close()
	if err != nil {
		outR.Close()
		return nil, fmt.Errorf("conformance: starting the MCP server: %w", err)
	}
	s.stdout = outR
	var t mcp.Transport = &mcp.IOTransport{Reader: jsonLines(outR, c.warn), Writer: stdinWriter{s.p}, MaxLineLength: -1}
	if len(c.m.Notifications) > 0 {
		t = &notifyingTransport{t: t, notes: c.m.Notifications}
	}
	s.session, s.cancel, err = connectMCP(ctx, t)
	if err != nil {
		s.stop(time.Second)
		return nil, fmt.Errorf("MCP server (pid %d) did not complete the initialize handshake: %v%s", s.p.Pid(), err, tailNote(s.tail))
	}
	s.own = markedProcesses(s.marker)
	c.byWS[ws] = s
	return s, nil
}

// stdinWriter writes to a run's stdin; Close closes it (EOF for the server).
type stdinWriter struct{ p *proc.Process }

func (w stdinWriter) Write(b []byte) (int, error) { return w.p.WriteStdin(b, time.Time{}) }
func (w stdinWriter) Close() error                { return w.p.CloseStdin() }

// stop ends a server as the MCP lifecycle says a client shuts a stdio server down: EOF; after wait,
// SIGTERM; after wait again, a kill. Either way everything it started is killed and reaped (runtime/proc).
// It reports whether the server exited without the kill, and whether it took SIGTERM to end it.
func (s *mcpServer) stop(wait time.Duration) (exited, termed bool) {
	if s.session != nil {
		_ = s.session.Close()
		s.cancel()
	}
	_ = s.p.CloseStdin()
	if wait <= 0 {
		wait = 5 * time.Second
	}
	exited = true
	select {
	case <-s.p.Done():
	case <-time.After(wait):
		termed = terminate(s.p.Pid()) == nil
		select {
		case <-s.p.Done():
		case <-time.After(wait):
			exited = false
		}
		if !termed {
			exited = false
		}
		s.p.Kill()
	}
	s.p.Wait()
	s.stdout.Close()
	return exited, termed
}

// endCase stops the server of a workspace once its case is judged: the processes it started that still
// run (but those it had once it answered initialize) are reported, and everything is killed and reaped.
func (c *mcpStdioConn) endCase(ws string) []string {
	c.mu.Lock()
	s, ok := c.byWS[ws]
	delete(c.byWS, ws)
	c.mu.Unlock()
	if !ok {
		return nil
	}
	return c.end(s)
}

func (c *mcpStdioConn) end(s *mcpServer) []string {
	var problems []string
	for _, pr := range s.survivors() {
		problems = append(problems, "left a process running: "+describeProcess(pr)+"; killed it")
	}
	wait := c.m.ExitWait
	if wait <= 0 {
		wait = 5 * time.Second
	}
	switch exited, termed := s.stop(wait); {
	case !exited:
		problems = append(problems, fmt.Sprintf("the MCP server did not exit within %s of EOF, nor within %s of SIGTERM; killed it with everything it started", wait, wait))
	case termed:
		c.warn.add("the MCP server did not exit at EOF; SIGTERM ended it, as the MCP lifecycle allows", fmt.Sprintf("within %s", wait))
	}
	if left := markedProcesses(s.marker); len(left) > 0 {
		for _, pr := range left {
			problems = append(problems, "a process the MCP server started outlived it and could not be killed: "+describeProcess(pr))
		}
	}
	return problems
}

// survivorSettle is how long a process the server started may take to end by itself once the case is
// judged before it counts as left running: a server's own short helper (desktop-commander runs
// `python3 --version` now and then) is not a process the case left behind.
const survivorSettle = time.Second

// survivors are the processes the server started that still run (but those it had once it answered
// initialize), after survivorSettle for them to end.
func (s *mcpServer) survivors() []int {
	list := func() []int {
		var out []int
		for _, pr := range markedProcesses(s.marker) {
			if pr != s.p.Pid() && !slices.Contains(s.own, pr) {
				out = append(out, pr)
			}
		}
		return out
	}
	left := list()
	for end := time.Now().Add(survivorSettle); len(left) > 0 && time.Now().Before(end); left = list() {
		time.Sleep(50 * time.Millisecond)
	}
	return left
}

// ownPIDs are the running servers, whose working directories are the cases' workspaces.
func (c *mcpStdioConn) ownPIDs() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var pids []int
	for _, s := range c.byWS {
		pids = append(pids, s.p.Pid())
		pids = append(pids, s.own...)
	}
	return pids
}

func (c *mcpStdioConn) Capabilities() Capabilities {
	return Capabilities{OwnPIDs: c.ownPIDs, Prepare: c.prepare, EndCase: c.endCase, Warnings: c.warn.all}
}

func (c *mcpStdioConn) Close() error {
	c.mu.Lock()
	var servers []*mcpServer
	for ws, s := range c.byWS {
		servers = append(servers, s)
		delete(c.byWS, ws)
	}
	c.mu.Unlock()
	var errs []error
	for _, s := range servers {
		for _, p := range c.end(s) {
			errs = append(errs, errors.New(p))
		}
	}
	return errors.Join(errs...)
}

// notifyingTransport sends notifications right after the client's notifications/initialized.
type notifyingTransport struct {
	t     mcp.Transport
	notes []Notification
}

func (n *notifyingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := n.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &notifyingConn{Connection: conn, notes: n.notes}, nil
}

// notifyingConn sends the notifications right after notifications/initialized; with a server that the
// client reaches without that handshake (MCP's stateless server/discover, which the go-sdk client uses
// when the server offers it), right before the first other request.
type notifyingConn struct {
	mcp.Connection
	notes []Notification
	sent  atomic.Bool
}

func (c *notifyingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	r, isReq := msg.(*jsonrpc.Request)
	handshake := isReq && (r.Method == "initialize" || r.Method == "server/discover" || r.Method == "notifications/initialized")
	if isReq && !handshake && !c.sent.Swap(true) {
		if err := c.notify(ctx); err != nil {
			return err
		}
	}
	if err := c.Connection.Write(ctx, msg); err != nil {
		return err
	}
	if isReq && r.Method == "notifications/initialized" && !r.ID.IsValid() && !c.sent.Swap(true) {
		return c.notify(ctx)
	}
	return nil
}

func (c *notifyingConn) notify(ctx context.Context) error {
	for _, n := range c.notes {
		params := n.Params
		if len(params) == 0 {
			params = json.RawMessage("{}")
		}
		if err := c.Connection.Write(ctx, &jsonrpc.Request{Method: n.Method, Params: params}); err != nil {
			return fmt.Errorf("sending the notification %s: %w", n.Method, err)
		}
	}
	return nil
}

// MCPURLTarget is an MCP server already running at a URL, over streamable HTTP or HTTP+SSE, driven with the
// official SDK's client in one session for the run. Such a server has one workspace, Workspace, which the
// suite empties and sets up before each case: so its cases run one at a time, and a process counts as left
// running by a case only if it was not in the workspace before it.
type MCPURLTarget struct {
	// URL is the endpoint (http://127.0.0.1:8080/mcp, .../sse).
	URL string
	// SSE selects the HTTP+SSE transport (protocol version 2024-11-05) instead of streamable HTTP.
	SSE bool
	// Workspace is the directory the server serves as its workspace.
	Workspace string
	// Notifications are sent, in order, right after the client's notifications/initialized.
	Notifications []Notification
}

// MCPHTTP returns the streamable HTTP MCP server at url, serving workspace.
func MCPHTTP(url, workspace string) *MCPURLTarget {
	return &MCPURLTarget{URL: url, Workspace: workspace}
}

// MCPSSE returns the HTTP+SSE MCP server at url, serving workspace.
func MCPSSE(url, workspace string) *MCPURLTarget {
	return &MCPURLTarget{URL: url, SSE: true, Workspace: workspace}
}

// Name describes the target.
func (m *MCPURLTarget) Name() string {
	if m.SSE {
		return "mcp sse: " + m.URL
	}
	return "mcp http: " + m.URL
}

// Open connects to the server.
func (m *MCPURLTarget) Open(ctx context.Context) (Conn, error) {
	if m.Workspace == "" {
		return nil, errors.New("conformance: an MCP server at a URL needs the workspace it serves")
	}
	c := &mcpURLConn{m: m}
	if err := c.connect(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

type mcpURLConn struct {
	m       *MCPURLTarget
	mu      sync.Mutex
	session *mcp.ClientSession
	cancel  context.CancelFunc
}

func (c *mcpURLConn) connect(ctx context.Context) error {
	var t mcp.Transport = &mcp.StreamableClientTransport{Endpoint: c.m.URL, MaxRetries: -1}
	if c.m.SSE {
		t = &mcp.SSEClientTransport{Endpoint: c.m.URL}
	}
	if len(c.m.Notifications) > 0 {
		t = &notifyingTransport{t: t, notes: c.m.Notifications}
	}
	s, cancel, err := connectMCP(ctx, t)
	if err != nil {
		return fmt.Errorf("conformance: connecting to %s: %w", c.m.URL, err)
	}
	c.session, c.cancel = s, cancel
	return nil
}

func (c *mcpURLConn) Call(ctx context.Context, req Request) (Answer, error) {
	c.mu.Lock()
	if c.session == nil {
		if err := c.connect(ctx); err != nil {
			c.mu.Unlock()
			return Answer{}, err
		}
	}
	s := c.session
	c.mu.Unlock()
	ans, err := callMCP(ctx, s, req)
	if err != nil {
		// The session may be broken: the next call connects again.
		c.mu.Lock()
		if c.session == s {
			_ = s.Close()
			c.cancel()
			c.session = nil
		}
		c.mu.Unlock()
		return Answer{}, fmt.Errorf("MCP server at %s: %v", c.m.URL, err)
	}
	return ans, nil
}

func (c *mcpURLConn) Capabilities() Capabilities { return Capabilities{FixedWorkspace: c.m.Workspace} }

func (c *mcpURLConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == nil {
		return nil
	}
	err := c.session.Close()
	c.cancel()
	c.session = nil
	return err
}

// callMCP calls a tool and reads its result as an Answer. An error is a failure to get an answer.
func callMCP(ctx context.Context, s *mcp.ClientSession, req Request) (Answer, error) {
	args := req.Params
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: req.Tool, Arguments: args})
	if err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return Answer{Error: toolError("JSONRPCError", rpcErr.Message)}, nil
		}
		if ctx.Err() != nil {
			return Answer{}, fmt.Errorf("did not answer tools/call by its deadline (%v)", err)
		}
		return Answer{}, err
	}
	var text strings.Builder
	for _, item := range res.Content {
		if t, ok := item.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return Answer{Error: toolError(errorClass(res), text.String())}, nil
	}
	if req.Format == "json" && jsonObject(text.String()) {
		return Answer{Result: json.RawMessage(text.String())}, nil
	}
	b, _ := json.Marshal(text.String())
	return Answer{Result: b}, nil
}

// errorClass is the error class an isError result names (see mcpNoClass).
func errorClass(res *mcp.CallToolResult) string {
	if s, ok := res.Meta[serve.ErrorTypeKey].(string); ok && s != "" {
		return s
	}
	if m, ok := res.StructuredContent.(map[string]any); ok {
		if e, ok := m["error"].(map[string]any); ok {
			if s, ok := e["type"].(string); ok && s != "" {
				return s
			}
		}
	}
	return mcpNoClass
}

// jsonLines passes on the lines of r that are JSON values and drops the others, recording each as a
// warning: real stdio servers print log lines on stdout, which the SDK's transport cannot read past.
func jsonLines(r io.Reader, warn *warnings) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := readLine(br, maxAnswerLine)
			if t := bytes.TrimSpace(line); len(t) > 0 {
				if json.Valid(t) {
					if _, werr := pw.Write(append(t, '\n')); werr != nil {
						return
					}
				} else {
					warn.add("the MCP server wrote a line that is not JSON (skipped)", clip(string(t), 200))
				}
			}
			if err != nil {
				if err != io.EOF && !errors.Is(err, os.ErrClosed) {
					warn.add("reading the MCP server's stdout", err.Error())
				}
				pw.CloseWithError(io.EOF)
				return
			}
		}
	}()
	return pr
}

func tailNote(t *tailBuffer) string {
	if s := strings.TrimSpace(t.String()); s != "" {
		return "; its stderr ends with:\n" + indent(s, "    ")
	}
	return ""
}
