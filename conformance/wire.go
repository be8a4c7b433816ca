package conformance

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
	"strings"
	"sync"
	"time"
)

// WireTarget is an executable speaking the wire protocol of the design document: started once per run
// (and again after it crashed or was killed, up to MaxRestarts times), it reads one JSON request per line
// on stdin and writes one JSON answer per line on stdout, in order; stderr is free for logs; it exits at
// EOF. A request that is not answered by its context's deadline gets the process killed (by its pid,
// through os/exec) and reaped, and the case fails; so does an answer that breaks the protocol.
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
	c := &wireConn{w: w, restarts: w.MaxRestarts}
	if w.MaxRestarts == 0 {
		c.restarts = 3
	}
	if err := c.start(); err != nil {
		return nil, err
	}
	return c, nil
}

// wireConn is a running wire target; p is nil after the process died, until the next call restarts it.
type wireConn struct {
	w        *WireTarget
	p        *wireProc
	nextID   int64
	restarts int
	gone     error // set when the target may not be restarted
}

// wireProc is one process of a wire target.
type wireProc struct {
	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	stderr  *os.File
	lines   chan []byte   // answer lines; closed at EOF
	exited  chan struct{} // closed once Wait returned
	waitErr error
	tail    *tailBuffer
	readers sync.WaitGroup
}

func (c *wireConn) start() error {
	p, err := startProc(c.w.Argv, c.w.Dir, c.w.Env, c.w.Stderr)
	if err != nil {
		return err
	}
	c.p = p
	return nil
}

// startProc starts a process speaking JSON Lines on its stdin and stdout; its stderr is kept (the end of
// it) and copied to stderr when that is not nil.
func startProc(argv []string, dir string, env []string, stderr io.Writer) (*wireProc, error) {
	p := &wireProc{lines: make(chan []byte, 1), exited: make(chan struct{}), tail: &tailBuffer{max: 4 << 10}}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	// The child has its copies; ours of its ends are closed so that EOF comes when it (and anything it
	// left holding them) is gone.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("conformance: starting the target: %w", err)
	}
	p.cmd, p.stdin, p.stdout, p.stderr = cmd, inW, outR, errR
	p.readers.Add(2)
	go func() {
		defer p.readers.Done()
		defer close(p.lines)
		r := bufio.NewReaderSize(outR, 64<<10)
		for {
			b, err := readLine(r)
			if len(bytes.TrimSpace(b)) > 0 {
				p.lines <- b
			}
			if err != nil {
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
	// Drain so the stdout reader is not blocked sending.
	go func() {
		for range p.lines {
		}
	}()
	p.readers.Wait()
}

func (p *wireProc) describeExit() string {
	s := "exited"
	if p.waitErr != nil {
		s = "exited (" + p.waitErr.Error() + ")"
	}
	if t := strings.TrimSpace(p.tail.String()); t != "" {
		s += "; its stderr ends with:\n" + indent(t, "    ")
	}
	return s
}

// Call sends one request and waits for its answer, ctx's deadline or the process's end.
func (c *wireConn) Call(ctx context.Context, req Request) (Answer, error) {
	if c.p == nil {
		if c.gone != nil {
			return Answer{}, c.gone
		}
		if c.restarts <= 0 {
			c.gone = errors.New("conformance: the target died and was restarted too often; not starting it again")
			return Answer{}, c.gone
		}
		c.restarts--
		if err := c.start(); err != nil {
			c.gone = err
			return Answer{}, err
		}
	}
	p := c.p
	c.nextID++
	id := c.nextID
	line, err := json.Marshal(struct {
		ID int64 `json:"id"`
		Request
	}{id, req})
	if err != nil {
		return Answer{}, err
	}
	_ = p.stdin.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		return Answer{}, c.fail(fmt.Sprintf("could not send request %d: %v", id, err), false)
	}
	select {
	case b, ok := <-p.lines:
		if !ok {
			select {
			case <-p.exited:
			case <-time.After(2 * time.Second):
				return Answer{}, c.fail(fmt.Sprintf("closed its stdout before answering request %d", id), true)
			}
			return Answer{}, c.fail(fmt.Sprintf("died before answering request %d", id), false)
		}
		return c.parse(id, b)
	case <-p.exited:
		// It may have answered just before it died: take an answer already in the pipe.
		select {
		case b, ok := <-p.lines:
			if ok {
				return c.parse(id, b)
			}
		case <-time.After(200 * time.Millisecond):
		}
		return Answer{}, c.fail(fmt.Sprintf("died before answering request %d", id), false)
	case <-ctx.Done():
		why := "did not answer request " + fmt.Sprint(id)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why += " by its deadline"
		} else {
			why += " before the run was cancelled"
		}
		return Answer{}, c.fail(why, true)
	}
}

// fail kills (when asked) and reaps the process and returns an error saying what happened.
func (c *wireConn) fail(what string, kill bool) error {
	p := c.p
	c.p = nil
	if kill {
		pid := p.cmd.Process.Pid
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

// parse reads an answer line: the id must match, and exactly one of result and error be present.
func (c *wireConn) parse(id int64, b []byte) (Answer, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Answer{}, c.fail(fmt.Sprintf("answered request %d with a line that is not a JSON object (%v): %s", id, err, clip(string(b), 200)), true)
	}
	var got int64
	if err := json.Unmarshal(raw["id"], &got); err != nil || got != id {
		return Answer{}, c.fail(fmt.Sprintf("answered request %d with id %s (answers must come in order, with the request's id)", id, clip(string(raw["id"]), 40)), true)
	}
	res, hasRes := raw["result"]
	e, hasErr := raw["error"]
	switch {
	case hasRes && hasErr:
		return Answer{}, c.fail(fmt.Sprintf("answered request %d with both a result and an error", id), true)
	case hasErr:
		var te struct {
			Type    *string `json:"type"`
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(e, &te); err != nil || te.Type == nil || te.Message == nil {
			return Answer{}, c.fail(fmt.Sprintf(`answered request %d with an error that is not {"type": string, "message": string}: %s`, id, clip(string(e), 200)), true)
		}
		return Answer{Error: toolError(*te.Type, *te.Message)}, nil
	case hasRes:
		return Answer{Result: res}, nil
	}
	return Answer{}, c.fail(fmt.Sprintf("answered request %d with neither a result nor an error", id), true)
}

// ownPIDs is the target process, in case it moves into the workspaces it is sent.
func (c *wireConn) ownPIDs() []int {
	if c.p == nil {
		return nil
	}
	return []int{c.p.cmd.Process.Pid}
}

// Close sends EOF and waits for the target to exit (killing it after ExitWait).
func (c *wireConn) Close() error {
	p := c.p
	c.p = nil
	if c.gone == nil {
		c.gone = errors.New("conformance: the target is closed")
	}
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

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
