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
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentbash/agentbash/internal/jsonenc"
)

// maxAnswerLine bounds one answer line a target writes (a 1 MiB-limited result escapes to a few MiB).
const maxAnswerLine = 64 << 20

// WireTarget is an executable speaking the wire protocol of conformance/PROTOCOL.md: started once per run
// (and again after it died or was killed, up to MaxRestarts times), it reads one JSON request per line on
// stdin and writes one JSON answer per line on stdout, matched to its request by id (a simple target
// answers in order); stderr is free for logs; it exits at EOF. A line on stdout that is not an answer (a
// log line, an answer with an unknown id) is skipped and reported as a warning. A request that is not
// answered by its context's deadline gets the process killed (by its pid, through os/exec) and reaped,
// and the case fails (so do the other requests then in flight).
type WireTarget struct {
	// Argv is the program and its arguments.
	Argv []string
	// Dir is the process's working directory (default: the current one).
	Dir string
	// Env is the process's environment (default: this process's).
	Env []string
	// Stderr receives the target's log (default: kept only to quote its end in failure messages).
	Stderr io.Writer
	// MaxRestarts bounds how often the target is started again after it died (default 3; negative: never).
	MaxRestarts int
	// ExitWait is how long the target may take to exit after EOF before it is killed (default 5 s).
	ExitWait time.Duration
}

// Wire returns the wire-protocol target started as argv.
func Wire(argv ...string) *WireTarget { return &WireTarget{Argv: argv} }

// Name describes the target.
func (w *WireTarget) Name() string { return "wire: " + strings.Join(w.Argv, " ") }

// Open starts the target process.
func (w *WireTarget) Open(ctx context.Context) (Conn, error) {
	if len(w.Argv) == 0 {
		return nil, errors.New("conformance: wire target has no command")
	}
	c := &wireConn{w: w, restarts: w.MaxRestarts, warn: &warnings{}}
	if w.MaxRestarts == 0 {
		c.restarts = 3
	}
	if err := c.start(); err != nil {
		return nil, err
	}
	return c, nil
}

// wireConn is a running wire target; p is nil after the process died, until the next call restarts it.
// It is safe for concurrent use: requests are written whole, one line each, and answers matched by id.
type wireConn struct {
	w        *WireTarget
	mu       sync.Mutex
	p        *wireProc
	nextID   int64
	restarts int
	gone     error // set when the target may not be restarted
	warn     *warnings
}

// wireProc is one process of a wire target.
type wireProc struct {
	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	stderr  *os.File
	exited  chan struct{} // closed once Wait returned
	waitErr error
	tail    *tailBuffer
	readers sync.WaitGroup

	mu      sync.Mutex
	pending map[string]chan []byte // request id -> its answer line
	eof     chan struct{}          // closed when stdout ended
}

func (c *wireConn) start() error {
	p, err := startProc(c.w.Argv, c.w.Dir, c.w.Env, c.w.Stderr, c.warn)
	if err != nil {
		return err
	}
	c.p = p
	return nil
}

// startProc starts a process speaking JSON Lines on its stdin and stdout; its stderr is kept (the end of
// it) and copied to stderr when that is not nil. Answers are delivered to the pending request with their
// id; every other line is a warning.
func startProc(argv []string, dir string, env []string, stderr io.Writer, warn *warnings) (*wireProc, error) {
	p := &wireProc{exited: make(chan struct{}), eof: make(chan struct{}), tail: &tailBuffer{max: 4 << 10},
		pending: map[string]chan []byte{}}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeFiles(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeFiles(inR, inW, outR, outW)
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	// The child has its copies; ours of its ends are closed so that EOF comes when it (and anything it
	// left holding them) is gone.
	closeFiles(inR, outW, errW)
	if err != nil {
		closeFiles(inW, outR, errR)
		return nil, fmt.Errorf("conformance: starting the target: %w", err)
	}
	p.cmd, p.stdin, p.stdout, p.stderr = cmd, inW, outR, errR
	p.readers.Add(2)
	go func() {
		defer p.readers.Done()
		defer close(p.eof)
		r := bufio.NewReaderSize(outR, 64<<10)
		for {
			b, err := readLine(r, maxAnswerLine)
			if len(bytes.TrimSpace(b)) > 0 {
				p.deliver(b, warn)
			}
			if err != nil {
				if err != io.EOF && !errors.Is(err, os.ErrClosed) {
					warn.add("reading the target's stdout", err.Error())
				}
				return
			}
		}
	}()
	go func() {
		defer p.readers.Done()
		var dst io.Writer = p.tail
		if stderr != nil {
			dst = io.MultiWriter(p.tail, stderr)
		}
		_, _ = io.Copy(dst, errR)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// deliver hands an answer line to the request with its id, or records it as a warning.
func (p *wireProc) deliver(line []byte, warn *warnings) {
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &head) != nil || !bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
		warn.add("the target wrote a line that is not a JSON object (skipped)", clip(string(line), 200))
		return
	}
	key := idKey(head.ID)
	p.mu.Lock()
	ch, ok := p.pending[key]
	delete(p.pending, key)
	p.mu.Unlock()
	if !ok {
		warn.add("the target answered an id that no request in flight has (skipped)", fmt.Sprintf("id %s: %s", clip(string(head.ID), 40), clip(string(line), 200)))
		return
	}
	ch <- line
}

// idKey canonicalizes a JSON id: 7, 7.0 and "7" are the same request.
func idKey(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s
	}
	var f float64
	if json.Unmarshal(id, &f) == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return string(bytes.TrimSpace(id))
}

// kill ends the process by its pid and reaps it, then stops reading its pipes.
func (p *wireProc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
	p.release()
}

// release closes our ends of the pipes (unblocking the readers even if a child of the target still holds
// the other ends) and waits for the readers.
func (p *wireProc) release() {
	p.stdin.Close()
	p.stdout.Close()
	p.stderr.Close()
	p.readers.Wait()
}

func (p *wireProc) describeExit() string {
	s := "exited"
	if p.waitErr != nil {
		s = "exited (" + p.waitErr.Error() + ")"
	}
	return s + stderrNote(p)
}

// Call sends one request and waits for its answer, ctx's deadline or the process's end.
func (c *wireConn) Call(ctx context.Context, req Request) (Answer, error) {
	c.mu.Lock()
	if c.p == nil {
		if c.gone != nil {
			c.mu.Unlock()
			return Answer{}, c.gone
		}
		if c.restarts <= 0 {
			c.gone = errors.New("conformance: the target died and was restarted too often; not starting it again")
			c.mu.Unlock()
			return Answer{}, c.gone
		}
		c.restarts--
		if err := c.start(); err != nil {
			c.gone = err
			c.mu.Unlock()
			return Answer{}, err
		}
	}
	p := c.p
	c.nextID++
	id := c.nextID
	line, err := jsonenc.Marshal(struct {
		ID        int64           `json:"id"`
		Tool      string          `json:"tool"`
		Params    json.RawMessage `json:"params"`
		Workspace string          `json:"workspace"`
	}{id, req.Tool, req.Params, req.Workspace})
	if err != nil {
		c.mu.Unlock()
		return Answer{}, err
	}
	ch := make(chan []byte, 1)
	key := strconv.FormatInt(id, 10)
	p.mu.Lock()
	p.pending[key] = ch
	p.mu.Unlock()
	mark := c.warn.len()
	_ = p.stdin.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, werr := p.stdin.Write(append(line, '\n'))
	c.mu.Unlock()
	if werr != nil {
		return Answer{}, c.fail(p, fmt.Sprintf("could not be sent request %d: %v", id, werr), false)
	}
	select {
	case b := <-ch:
		return c.parse(id, b)
	case <-p.eof:
		// It may have answered just before its stdout ended.
		select {
		case b := <-ch:
			return c.parse(id, b)
		default:
		}
		select {
		case <-p.exited:
			return Answer{}, c.fail(p, fmt.Sprintf("died before answering request %d", id)+c.warn.since(mark), false)
		case <-time.After(2 * time.Second):
			return Answer{}, c.fail(p, fmt.Sprintf("closed its stdout before answering request %d", id), true)
		}
	case <-ctx.Done():
		why := fmt.Sprintf("did not answer request %d", id)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why += " by its deadline"
		} else {
			why += " before the run was cancelled"
		}
		return Answer{}, c.fail(p, why+c.warn.since(mark), true)
	}
}

// fail ends the process p (killing it when asked, else waiting for it to exit), if it is still the
// current one, and returns an error saying what happened.
func (c *wireConn) fail(p *wireProc, what string, kill bool) error {
	c.mu.Lock()
	current := c.p == p
	if current {
		c.p = nil
	}
	c.mu.Unlock()
	pid := p.cmd.Process.Pid
	if !current {
		<-p.exited
		return fmt.Errorf("target %s (its process %d ended meanwhile: %s)", what, pid, p.describeExit())
	}
	if kill {
		p.kill()
		return fmt.Errorf("target %s; killed it (pid %d)%s", what, pid, stderrNote(p))
	}
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	p.release()
	return fmt.Errorf("target %s: it %s", what, p.describeExit())
}

func stderrNote(p *wireProc) string {
	if t := strings.TrimSpace(p.tail.String()); t != "" {
		return "; its stderr ends with:\n" + indent(t, "    ")
	}
	return ""
}

// parse reads an answer line: exactly one of result and error must be present.
func (c *wireConn) parse(id int64, b []byte) (Answer, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Answer{}, fmt.Errorf("target answered request %d with a line that is not a JSON object (%v): %s", id, err, clip(string(b), 200))
	}
	return parseAnswer(fmt.Sprintf("request %d", id), raw)
}

// parseAnswer reads the result or error of a wire answer.
func parseAnswer(what string, raw map[string]json.RawMessage) (Answer, error) {
	res, hasRes := raw["result"]
	e, hasErr := raw["error"]
	switch {
	case hasRes && hasErr:
		return Answer{}, fmt.Errorf("target answered %s with both a result and an error", what)
	case hasErr:
		var te struct {
			Type    *string `json:"type"`
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(e, &te); err != nil || te.Type == nil || te.Message == nil {
			return Answer{}, fmt.Errorf(`target answered %s with an error that is not {"type": string, "message": string}: %s`, what, clip(string(e), 200))
		}
		return Answer{Error: toolError(*te.Type, *te.Message)}, nil
	case hasRes:
		return Answer{Result: res}, nil
	}
	return Answer{}, fmt.Errorf("target answered %s with neither a result nor an error", what)
}

// ownPIDs is the target process, in case it moves into the workspaces it is sent.
func (c *wireConn) ownPIDs() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.p == nil {
		return nil
	}
	return []int{c.p.cmd.Process.Pid}
}

// Capabilities: the target's process may move into the workspaces it is sent; its warnings are the lines
// it wrote that were not answers.
func (c *wireConn) Capabilities() Capabilities {
	return Capabilities{OwnPIDs: c.ownPIDs, Warnings: c.warn.all}
}

// Close sends EOF and waits for the target to exit (killing it after ExitWait).
func (c *wireConn) Close() error {
	c.mu.Lock()
	p := c.p
	c.p = nil
	if c.gone == nil {
		c.gone = errors.New("conformance: the target is closed")
	}
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	wait, exited := p.shutdown(c.w.ExitWait)
	if !exited {
		return fmt.Errorf("target did not exit within %s of EOF; killed it (pid %d)", wait, p.cmd.Process.Pid)
	}
	var err error
	if p.waitErr != nil {
		err = fmt.Errorf("target exited with an error at EOF: %v%s", p.waitErr, stderrNote(p))
	}
	p.release()
	return err
}

// shutdown sends EOF and waits up to wait (default 5 s) for the process to exit, killing it past that. It
// returns the wait it applied and whether the process exited by itself.
func (p *wireProc) shutdown(wait time.Duration) (time.Duration, bool) {
	p.stdin.Close()
	if wait == 0 {
		wait = 5 * time.Second
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-p.exited:
		return wait, true
	case <-timer.C:
		p.kill()
		return wait, false
	}
}

// readLine reads one line (without its line ending) of at most max bytes; a last line without a newline
// is returned with io.EOF.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > max {
			return nil, fmt.Errorf("a line is longer than %d bytes", max)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			return bytes.TrimRight(buf, "\r\n"), nil
		}
		return buf, err
	}
}

// warnings collects what a target did that is tolerated but worth saying.
type warnings struct {
	mu    sync.Mutex
	w     []string // every warning, in order (bounded), for failure messages
	kinds []warningKind
}

// warningKind is one kind of warning: the first of them and how many there were.
type warningKind struct {
	kind, first string
	n           int
}

// maxWarnings bounds the warnings kept.
const maxWarnings = 100

// add records a warning of a kind (the same words for every warning of that kind) with its detail (the
// line, the id): the report shows each kind once, with its count and first detail.
func (w *warnings) add(kind, detail string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := kind
	if detail != "" {
		s += ": " + detail
	}
	if len(w.w) < maxWarnings {
		w.w = append(w.w, s)
	} else if len(w.w) == maxWarnings {
		w.w = append(w.w, "(more warnings not kept)")
	}
	for i := range w.kinds {
		if w.kinds[i].kind == kind {
			w.kinds[i].n++
			return
		}
	}
	w.kinds = append(w.kinds, warningKind{kind: kind, first: detail, n: 1})
}

func (w *warnings) len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.w)
}

// since describes the warnings after the first n, for a failure message.
func (w *warnings) since(n int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.w) <= n {
		return ""
	}
	return "; meanwhile:\n" + indent(strings.Join(w.w[n:], "\n"), "    ")
}

// all is one line per kind of warning: its words, the first detail, and how many there were.
func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, k := range w.kinds {
		s := k.kind
		if k.first != "" {
			s += ": " + k.first
		}
		if k.n > 1 {
			s = fmt.Sprintf("%s (%d times; the first shown)", s, k.n)
		}
		out = append(out, s)
	}
	return out
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
