package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentbash/agentbash/conformance/model"
	"github.com/agentbash/agentbash/internal/jsonenc"
)

// ModelTarget is an agent CLI (a host) whose shell tool is reached the way a model reaches it: the suite
// serves the model API (package conformance/model) on 127.0.0.1, starts the host with its base URL there,
// answers the host's request with a tool call carrying a case's parameters, reads the tool's result from
// the host's next request, and ends the conversation with a text answer.
//
// By default one host start serves a batch of cases: it serves one workspace (under its own directory),
// which the suite empties and sets up before each case, and its conversation carries the calls of case
// after case; the cases run one at a time. A host that died or hung is killed (its whole process tree)
// and started again for the next case. With PerCase, the host is started in each case's own workspace
// and ended once the case is judged (a host whose state would leak from case to case; -parallel then
// applies).
//
// What is compared is what the model sees: the result's text, and the error flag where the API carries
// one (Anthropic's is_error, Gemini's error response); a tool's raised error is its message. The
// reference's answers are seen the same way (see PROTOCOL.md, "Model targets").
type ModelTarget struct {
	// API is the model API the host speaks.
	API model.API
	// Argv is the host's command line: leading NAME=VALUE words are its environment; {base_url},
	// {workspace} and {home} are replaced.
	Argv []string
	// Env is the environment the host starts from (default: this process's).
	Env []string
	// Files are written before each start (its configuration).
	Files []model.File
	// Tools are the host's names of the spec's tools: a request offering one is the conversation under
	// test (default: any request offering a tool).
	Tools []string
	// PerCase starts the host for each case, in the case's workspace.
	PerCase bool
	// Record, when set, is a directory that receives every request of every host start and the answer
	// it got (host-NNN/), each host's output, and calls.jsonl, a line per tool call with its case, its
	// parameters and the result the host sent.
	Record string
	// Dir is where the hosts' directories and the batch workspace are made (default: the system's
	// temporary directory).
	Dir string
	// ExitWait is how long a host may take to exit after the final answer before it is killed (default
	// 10 s).
	ExitWait time.Duration
	// Stderr, when set, receives the hosts' stderr.
	Stderr io.Writer
}

// Model returns the host started as argv, speaking api.
func Model(api model.API, argv ...string) *ModelTarget { return &ModelTarget{API: api, Argv: argv} }

// Name describes the target.
func (m *ModelTarget) Name() string {
	_, cmd := model.SplitAssignments(m.Argv)
	name := strings.Join(cmd, " ")
	return fmt.Sprintf("model %s: %s", m.API, clip(name, 200))
}

// Open prepares the target: in batch mode it makes the workspace and starts the first host in it.
func (m *ModelTarget) Open(ctx context.Context) (Conn, error) {
	if _, err := model.ParseAPI(string(m.API)); err != nil {
		return nil, err
	}
	if _, cmd := model.SplitAssignments(m.Argv); len(cmd) == 0 {
		return nil, errors.New("conformance: the model target has no host command")
	}
	c := &modelConn{m: m, hosts: map[string]*hostRun{}, warn: &warnings{}}
	if m.Record != "" {
		if err := os.MkdirAll(m.Record, 0o755); err != nil {
			return nil, err
		}
		f, err := os.Create(filepath.Join(m.Record, "calls.jsonl"))
		if err != nil {
			return nil, err
		}
		c.calls = f
	}
	if m.PerCase {
		return c, nil
	}
	dir, err := os.MkdirTemp(m.Dir, "agentbash-model-")
	if err != nil {
		c.Close()
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	c.dir = dir
	c.fixed = filepath.Join(dir, WorkspaceName)
	if err := os.MkdirAll(c.fixed, 0o755); err != nil {
		c.Close()
		return nil, err
	}
	// Started now, the host's start overlaps the first case's reference run.
	if _, err := c.host(c.fixed); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// modelConn runs hosts, one per workspace in use (in batch mode, one).
type modelConn struct {
	m     *ModelTarget
	warn  *warnings
	fixed string // batch mode: the workspace
	dir   string // batch mode: its parent, removed at Close

	mu     sync.Mutex
	hosts  map[string]*hostRun
	starts int
	calls  *os.File // Record's calls.jsonl
	callMu sync.Mutex
}

// Capabilities: in batch mode, one workspace (made beside the reference's) with a host that lives from
// case to case; with PerCase, a host per case's workspace, ended once the case is judged.
func (c *modelConn) Capabilities() Capabilities {
	caps := Capabilities{OwnPIDs: c.ownPIDs, CallParallel: c.callParallel, View: c.view, Warnings: c.warn.all, Prepare: c.ready}
	if c.m.PerCase {
		caps.EndCase = c.endCase
	} else {
		caps.FixedWorkspace, caps.BesideWorkspace = c.fixed, true
	}
	return caps
}

// startWait bounds how long ready waits for a host's first request.
const startWait = 2 * time.Minute

// ready starts the workspace's host if it has none and waits for its first request (Capabilities.Prepare):
// a host's start (its configuration read, its plugins fetched) is not part of a case.
func (c *modelConn) ready(ctx context.Context, ws string) error {
	h, err := c.host(ws)
	if err != nil {
		return err
	}
	t := time.NewTimer(startWait)
	defer t.Stop()
	select {
	case <-h.asked:
		return nil
	case <-h.host.Done():
		return nil // the call reports how it ended
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		c.kill(h)
		return fmt.Errorf("the host (pid %d) made no request within %s of its start%s", h.host.Pid(), startWait, hostTail(h.host))
	}
}

// endCase ends the host of a case's workspace (PerCase).
func (c *modelConn) endCase(ws string) []string {
	c.mu.Lock()
	h := c.hosts[ws]
	delete(c.hosts, ws)
	c.mu.Unlock()
	if h != nil {
		c.end(h)
	}
	return nil
}

// hostRun is one start of the host, with its model server.
type hostRun struct {
	n    int
	ws   string
	srv  *model.Server
	host *model.Host
	out  []*os.File // the record's copies of its output

	ready    chan struct{} // closed once host is set (or the start failed)
	asked    chan struct{} // closed at the host's first request that offers the tools
	askOnce  sync.Once
	mu       sync.Mutex
	own      []int  // the host's processes when it made its first request
	lastCase string // the case of the last call
}

// host returns the workspace's running host, starting one when there is none (or it died).
func (c *modelConn) host(ws string) (*hostRun, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.hosts[ws]; ok {
		select {
		case <-h.host.Done():
			delete(c.hosts, ws)
			go c.end(h)
		default:
			return h, nil
		}
	}
	c.starts++
	h := &hostRun{n: c.starts, ws: ws, ready: make(chan struct{}), asked: make(chan struct{})}
	defer close(h.ready)
	opts := model.Options{Tools: c.m.Tools, OnFirstTurn: func() {
		// The host's own processes, before any tool runs: they run in the workspace, and are not a case's.
		<-h.ready // the host may ask before StartHost has returned
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.host != nil {
			h.own = h.host.Tree()
		}
		h.askOnce.Do(func() { close(h.asked) })
	}}
	var rec string
	if c.m.Record != "" {
		rec = filepath.Join(c.m.Record, fmt.Sprintf("host-%03d", h.n))
		opts.RecordDir = rec
	}
	srv, err := model.Start(c.m.API, opts)
	if err != nil {
		return nil, err
	}
	h.srv = srv
	spec := model.HostSpec{Argv: c.m.Argv, Env: c.m.Env, Files: c.m.Files, Dir: c.m.Dir, Stderr: c.m.Stderr}
	if rec != "" {
		for _, name := range []string{"stderr.txt", "stdout.txt"} {
			f, err := os.Create(filepath.Join(rec, name))
			if err != nil {
				srv.Close()
				return nil, err
			}
			h.out = append(h.out, f)
		}
		spec.Stderr = multi(spec.Stderr, h.out[0])
		spec.Stdout = h.out[1]
	}
	host, err := model.StartHost(spec, model.Vars{BaseURL: srv.BaseURL(), Workspace: ws})
	if err != nil {
		srv.Close()
		closeFiles(h.out...)
		return nil, fmt.Errorf("conformance: %w", err)
	}
	h.mu.Lock()
	h.host = host
	h.mu.Unlock()
	if rec != "" {
		b, _ := json.MarshalIndent(map[string]any{"argv": host.Argv(), "base_url": srv.BaseURL(), "workspace": ws, "home": host.Home()}, "", "  ")
		_ = os.WriteFile(filepath.Join(rec, "host.json"), b, 0o644)
	}
	go func() {
		<-host.Done()
		srv.Abort(fmt.Errorf("the host (pid %d) ended (%s) before it sent the result%s", host.Pid(), host.ExitString(), hostTail(host)))
	}()
	c.hosts[ws] = h
	return h, nil
}

func multi(a io.Writer, b io.Writer) io.Writer {
	if a == nil {
		return b
	}
	return io.MultiWriter(a, b)
}

func hostTail(h *model.Host) string {
	s := h.StderrTail()
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return "; its stderr ends with:\n" + indent(strings.Join(lines, "\n"), "    ")
}

// end ends a host: the final answer, then a kill after ExitWait; its server stops and its directory goes.
func (c *modelConn) end(h *hostRun) {
	h.srv.Finish()
	wait := c.m.ExitWait
	if wait <= 0 {
		wait = 10 * time.Second
	}
	select {
	case <-h.host.Done():
	case <-time.After(wait):
		c.warn.add(fmt.Sprintf("the host did not exit within %s of the final answer; killed it", wait), fmt.Sprintf("pid %d", h.host.Pid()))
	}
	h.host.Close()
	h.srv.Close()
	for _, w := range h.srv.Warnings() {
		c.warn.add(fmt.Sprintf("host start %d: %s", h.n, w), "")
	}
	closeFiles(h.out...)
}

// retire ends a host whose conversation grew too long, as at the end of the run.
func (c *modelConn) retire(h *hostRun) {
	c.mu.Lock()
	if c.hosts[h.ws] == h {
		delete(c.hosts, h.ws)
	}
	c.mu.Unlock()
	c.end(h)
}

// kill ends a host that gave no answer: its whole process tree is killed at once.
func (c *modelConn) kill(h *hostRun) {
	h.host.Kill()
	c.retire(h)
}

func (c *modelConn) Call(ctx context.Context, req Request) (Answer, error) {
	as, err := c.callParallel(ctx, []Request{req})
	if err != nil {
		return Answer{}, err
	}
	return as[0], nil
}

// maxHistory is the size of a conversation past which a batch host is ended and a fresh one started for
// the next case: every turn sends the whole history again, so a conversation of large outputs would cost
// the square of its length.
const maxHistory = 4 << 20

// callParallel sends the calls as parallel tool calls in one answer of the model.
func (c *modelConn) callParallel(ctx context.Context, reqs []Request) ([]Answer, error) {
	h, err := c.host(reqs[0].Workspace)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	newCase := h.lastCase != reqs[0].Case
	h.lastCase = reqs[0].Case
	h.mu.Unlock()
	if newCase && h.srv.HistorySize() > maxHistory {
		c.retire(h)
		if h, err = c.host(reqs[0].Workspace); err != nil {
			return nil, err
		}
		h.mu.Lock()
		h.lastCase = reqs[0].Case
		h.mu.Unlock()
	}
	calls := make([]model.Call, len(reqs))
	for i, r := range reqs {
		args := r.Params
		if len(strings.TrimSpace(string(args))) == 0 {
			args = json.RawMessage("{}")
		}
		calls[i] = model.Call{Name: r.Tool, Args: args}
	}
	results, err := h.srv.Do(ctx, calls)
	if err != nil {
		select {
		case <-h.host.Done():
		default:
			c.kill(h)
			err = fmt.Errorf("%w; killed the host (pid %d) and everything it started%s", err, h.host.Pid(), hostTail(h.host))
		}
		return nil, err
	}
	answers := make([]Answer, len(results))
	for i, r := range results {
		c.record(h, reqs[i], calls[i], r)
		if r.IsError {
			answers[i] = Answer{Error: toolError(modelErrorType, r.Text)}
		} else {
			answers[i] = Answer{Result: jsonenc.String(r.Text)}
		}
	}
	return answers, nil
}

// modelErrorType is the error type of a result the host flagged as an error (the model sees no class).
const modelErrorType = "is_error"

// record writes a call and its result to calls.jsonl.
func (c *modelConn) record(h *hostRun, req Request, call model.Call, r model.Result) {
	if c.calls == nil {
		return
	}
	line, err := jsonenc.Marshal(map[string]any{"host": h.n, "case": req.Case, "tool": call.Name, "call_id": r.CallID,
		"params": call.Args, "text": r.Text, "is_error": r.IsError, "raw": r.Raw})
	if err != nil {
		return
	}
	c.callMu.Lock()
	defer c.callMu.Unlock()
	c.calls.Write(append(line, '\n'))
}

// view is what a model sees of an answer: its text (a raised error's message), as an error only where
// the API carries an error flag; a text that is a JSON object stays one for a tool whose results are
// JSON.
func (c *modelConn) view(a Answer, format string) Answer {
	var text string
	isErr := a.Error != nil
	switch {
	case isErr:
		text = a.Error.Message
	case json.Unmarshal(a.Result, &text) == nil:
	default:
		return a // a JSON object, as the reference answers it
	}
	if isErr && c.m.API.ErrorFlag() {
		return Answer{Error: toolError(modelErrorType, text)}
	}
	if format == "json" && jsonObject(text) {
		return Answer{Result: json.RawMessage(text)}
	}
	return Answer{Result: jsonenc.String(text)}
}

// ownPIDs are the hosts' own processes (as they were at their first request), which run in the workspace.
func (c *modelConn) ownPIDs() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var pids []int
	for _, h := range c.hosts {
		h.mu.Lock()
		pids = append(pids, h.own...)
		h.mu.Unlock()
		pids = append(pids, h.host.Pid())
	}
	return pids
}

// Close ends every host (the final answer, then a kill after ExitWait) and removes the batch workspace.
func (c *modelConn) Close() error {
	c.mu.Lock()
	hosts := c.hosts
	c.hosts = map[string]*hostRun{}
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Go(func() { c.end(h) })
	}
	wg.Wait()
	var err error
	if c.calls != nil {
		err = c.calls.Close()
	}
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
	return err
}
