//go:build linux

package agent

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbash/agentbash/runtime/proc"
)

// Conn is the host's end of an agent's stream: it starts runs through the agent, as proc.Start starts them
// here, and carries all their frames (many runs at once) over the one stream. Its methods are safe for
// concurrent use.
type Conn struct {
	w      io.Writer
	closer io.Closer

	wmu sync.Mutex

	closeOnce sync.Once
	closeErr  error

	mu     sync.Mutex
	runs   map[uint32]*clientRun
	next   uint32
	broken error // why the stream ended; set once, then every run is finished

	hello   chan helloMsg
	readEnd chan struct{} // closed when the reader has returned and every run is finished
}

// NewConn starts reading the agent's frames from r; w is the stream to the agent, and closer is closed by
// Close and when the stream breaks: closing it must make reads from r end. Ready waits for the agent's
// hello.
func NewConn(r io.Reader, w io.Writer, closer io.Closer) *Conn {
	c := &Conn{w: w, closer: closer, runs: map[uint32]*clientRun{}, hello: make(chan helloMsg, 1), readEnd: make(chan struct{})}
	go c.read(r)
	return c
}

// Ready waits until the agent has said hello (its protocol version is this one's) and returns its pid,
// or fails: the stream ended first, or ctx did.
func (c *Conn) Ready(ctx context.Context) (int, error) {
	select {
	case h := <-c.hello:
		c.hello <- h
		return h.Pid, nil
	case <-c.readEnd:
		return 0, c.Err()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Err returns why the stream ended, or nil while it works.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken
}

// Done is closed when the stream has ended and every run has been finished.
func (c *Conn) Done() <-chan struct{} { return c.readEnd }

// Close closes the stream: the agent kills every run and exits (a container ends with it). Runs still
// going are finished as killed. Close waits for the reader to end.
func (c *Conn) Close() error {
	c.fail(errors.New("agent: the connection was closed"))
	<-c.readEnd
	return c.closeErr
}

// Running returns the number of runs started and not yet finished.
func (c *Conn) Running() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.runs)
}

// clientRun is one run as the host sees it.
type clientRun struct {
	c       *Conn
	id      uint32
	stdout  io.Writer
	stderr  io.Writer
	stdin   bool
	files   []string        // Spec.Writable: the files the agent may send back
	werr    error           // the first error writing its output here
	started chan startedMsg // the agent's answer to the start
	p       *proc.Process
	finish  func(proc.Exit)
	killed  bool // Kill was called (before the end)

	wmu   sync.Mutex    // one stdin write at a time
	wrote chan wroteMsg // the answer to the write in flight

	owned []*os.File // the copies of *os.File outputs this run holds, closed at its end
}

// Start starts a run through the agent. Its errors are proc.Start's, as the agent met them where the run
// starts (a missing program is an *exec.Error, a missing working directory an *fs.PathError with Op
// "chdir"), or an error of the stream. Spec.Sandbox is not supported (the agent's machine confines the
// run). An *os.File as Stdout or Stderr is written to as any writer, from the goroutine that reads the
// stream (a writer that blocks delays every run of the stream), through a copy of its descriptor that the
// run holds until its end, as a child holds its own here: the caller may close its file once Start
// returns, and a reader of the file's pipe sees its end when the run is over. With both an *os.File
// (separate streams, no terminal), the run is ordered (PROTOCOL.md): the stderr the child wrote before a
// piece of stdout is in the Stderr file before that piece is in the Stdout file, as with two pipes here.
func (c *Conn) Start(s proc.Spec) (*proc.Process, error) {
	if s.Sandbox != nil {
		return nil, errors.New("agent: a run started through the agent cannot be sandboxed here")
	}
	if s.Embedded != "" && (s.PTY || s.OpenStdin) {
		return nil, errors.New("proc: the embedded shell has no stdin to open and no terminal")
	}
	m := startMsg{Argv: s.Argv, Embedded: s.Embedded, Session: s.Session, Dir: s.Dir, Env: s.Env,
		Combined: s.Combined, OpenStdin: s.OpenStdin, PTY: s.PTY, Writable: s.Writable}
	switch {
	case s.Grace == 0:
		m.GraceNS = int64(proc.DefaultGrace)
	case s.Grace > 0:
		m.GraceNS = int64(s.Grace)
	}
	r := &clientRun{c: c, stdin: s.OpenStdin || s.PTY, files: s.Writable,
		started: make(chan startedMsg, 1), wrote: make(chan wroteMsg, 1)}
	outF, outIsFile := s.Stdout.(*os.File)
	errF, errIsFile := s.Stderr.(*os.File)
	var err error
	if r.stdout, err = r.own(writerOf(s.Stdout)); err == nil {
		r.stderr, err = r.own(writerOf(s.Stderr))
	}
	if err != nil {
		r.closeOwned()
		return nil, err
	}
	if s.PTY || s.Combined {
		r.stderr = nil
	}
	m.Stdout, m.Stderr = r.stdout != nil, r.stderr != nil
	if s.PTY {
		m.Stdout = r.stdout != nil
	}
	m.Ordered = outIsFile && errIsFile && outF != nil && errF != nil && m.Stdout && m.Stderr
	c.mu.Lock()
	if c.broken != nil {
		err := c.broken
		c.mu.Unlock()
		r.closeOwned()
		return nil, err
	}
	c.next++
	r.id = c.next
	c.runs[r.id] = r
	c.mu.Unlock()
	if err := c.send(appendFrame(nil, tStart, r.id, mustJSON(m))); err != nil {
		c.fail(err)
	}
	st, ok := <-r.started
	if !ok {
		r.closeOwned()
		return nil, c.Err()
	}
	if st.Err != nil {
		r.closeOwned()
		return nil, st.Err.err()
	}
	return r.p, nil
}

// own returns the writer a run writes an output to: an *os.File's copy, which the run holds, or w.
func (r *clientRun) own(w io.Writer) (io.Writer, error) {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return w, nil
	}
	rc, err := f.SyscallConn()
	fd := -1
	if err == nil {
		cerr := rc.Control(func(sfd uintptr) { fd, err = unix.FcntlInt(sfd, unix.F_DUPFD_CLOEXEC, 0) })
		if cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("agent: %s: %w", f.Name(), err)
	}
	cp := os.NewFile(uintptr(fd), f.Name())
	r.owned = append(r.owned, cp)
	return cp, nil
}

// closeOwned closes the run's copies of its *os.File outputs (in the reader at the run's end, or when it
// did not start).
func (r *clientRun) closeOwned() {
	for _, f := range r.owned {
		_ = f.Close()
	}
	r.owned = nil
}

// writerOf returns w, or nil for output to discard.
func writerOf(w io.Writer) io.Writer {
	if w == nil || w == io.Discard {
		return nil
	}
	return w
}

func (c *Conn) send(frame []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(frame)
	return err
}

// fail ends the stream: the closer is closed, so the reader ends, and it finishes every run not yet
// finished as killed (every start waiting fails).
func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.broken == nil {
		c.broken = err
	}
	c.mu.Unlock()
	c.closeOnce.Do(func() {
		if c.closer != nil {
			c.closeErr = c.closer.Close()
		}
	})
}

// finishAll finishes every run, in the reader as it returns: the stream has ended.
func (c *Conn) finishAll(err error) {
	c.mu.Lock()
	if c.broken == nil {
		c.broken = err
	}
	err = c.broken
	runs := c.runs
	c.runs = map[uint32]*clientRun{}
	c.mu.Unlock()
	for _, r := range runs {
		r.end(proc.Exit{Code: -1, Signal: syscall.SIGKILL, Killed: r.wasKilled(), Err: err, Ended: time.Now()})
	}
}

func (r *clientRun) wasKilled() bool {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	return r.killed
}

// end finishes the run (or fails its start, when it had not started); only the reader calls it.
func (r *clientRun) end(x proc.Exit) {
	if r.finish == nil {
		close(r.started)
		return
	}
	if x.Err == nil && r.werr != nil {
		x.Err = r.werr
	}
	r.closeOwned() // after the last of its output: a reader of the pipes sees their end
	r.finish(x)
}

// read reads the agent's frames until the stream ends.
func (c *Conn) read(rd io.Reader) {
	var buf []byte
	helloSeen := false
	for {
		typ, id, payload, err := readFrame(rd, &buf)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) || errors.Is(err, net.ErrClosed) {
				err = errors.New("agent: the stream ended (the agent exited, or its container was removed)")
			}
			c.end(err)
			return
		}
		if !helloSeen {
			var h helloMsg
			if typ != tHello || json.Unmarshal(payload, &h) != nil {
				c.end(fmt.Errorf("agent protocol: the first frame is %q, not a hello: is the program an agentbash agent?", typ))
				return
			}
			if h.Version != Version {
				c.end(fmt.Errorf("agent protocol: the agent speaks version %d, this host %d: run the same agentbash on both", h.Version, Version))
				return
			}
			helloSeen = true
			c.hello <- h
			continue
		}
		if typ == tFatal {
			c.end(fmt.Errorf("agent: %s", payload))
			return
		}
		c.mu.Lock()
		r := c.runs[id]
		if typ == tExit {
			delete(c.runs, id)
		}
		c.mu.Unlock()
		if r == nil {
			continue // a run already finished (the stream failing raced its frames)
		}
		if err := r.handle(typ, payload); err != nil {
			c.end(err)
			return
		}
	}
}

// end is the reader's end: the stream is closed, every run finished, and Done closed.
func (c *Conn) end(err error) {
	c.fail(err)
	c.finishAll(err)
	close(c.readEnd)
}

// handle handles one frame of the run, in the reader.
func (r *clientRun) handle(typ byte, payload []byte) error {
	switch typ {
	case tStarted:
		var m startedMsg
		if err := json.Unmarshal(payload, &m); err != nil {
			return fmt.Errorf("agent protocol: started: %v", err)
		}
		if m.Err != nil {
			r.c.mu.Lock()
			delete(r.c.runs, r.id)
			r.c.mu.Unlock()
		} else {
			r.p, r.finish = proc.NewRemote(m.Pid, r, r.stdin)
		}
		r.started <- m
	case tStdout, tStderr:
		w := r.stdout
		if typ == tStderr {
			w = r.stderr
		}
		if w != nil && r.werr == nil {
			if _, err := w.Write(payload); err != nil {
				r.werr = err // keep reading: the agent's child must never block on a full pipe
			}
		}
	case tWrote:
		var m wroteMsg
		if err := json.Unmarshal(payload, &m); err != nil {
			return fmt.Errorf("agent protocol: wrote: %v", err)
		}
		select {
		case r.wrote <- m:
		default: // no write waits: the answer to one that gave up
		}
	case tFile:
		if len(payload) < 2 || int(binary.BigEndian.Uint16(payload)) > len(payload)-2 {
			return errors.New("agent protocol: a short file frame")
		}
		n := int(binary.BigEndian.Uint16(payload))
		path, data := string(payload[2:2+n]), payload[2+n:]
		if !slices.Contains(r.files, path) {
			return fmt.Errorf("agent protocol: the file %q is not one of the run's", path)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil && r.werr == nil {
			r.werr = err
		}
	case tExit:
		var m exitMsg
		if err := json.Unmarshal(payload, &m); err != nil {
			return fmt.Errorf("agent protocol: exit: %v", err)
		}
		if r.finish == nil {
			return errors.New("agent protocol: the end of a run that never started")
		}
		x := m.exit()
		r.c.mu.Lock()
		x.Killed = x.Killed || (r.killed && x.Signal == syscall.SIGKILL)
		r.c.mu.Unlock()
		r.end(x)
	default:
		return fmt.Errorf("agent protocol: unknown frame type %q", typ)
	}
	return nil
}

// Kill asks the agent to kill the run's group and everything the run started (proc.Remote).
func (r *clientRun) Kill() {
	r.c.mu.Lock()
	live := r.c.runs[r.id] == r
	if live {
		r.killed = true
	}
	r.c.mu.Unlock()
	if live {
		if err := r.c.send(appendFrame(nil, tKill, r.id)); err != nil {
			r.c.fail(err)
		}
	}
}

// WriteStdin writes to the run's stdin through the agent, which answers once the child took it, or the
// deadline passed (proc.Remote).
func (r *clientRun) WriteStdin(b []byte, deadline time.Time) (int, error) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	select {
	case <-r.p.Done():
		return 0, os.ErrClosed
	default:
	}
	var ns [8]byte
	if !deadline.IsZero() {
		binary.BigEndian.PutUint64(ns[:], uint64(deadline.UnixNano()))
	}
	if err := r.c.send(appendFrame(nil, tStdin, r.id, ns[:], b)); err != nil {
		r.c.fail(err)
		return 0, err
	}
	select {
	case m := <-r.wrote:
		return m.N, m.Err.err()
	case <-r.p.Done():
		return 0, os.ErrClosed
	}
}

// CloseStdin closes the run's stdin through the agent (proc.Remote).
func (r *clientRun) CloseStdin() error {
	select {
	case <-r.p.Done():
		return nil
	default:
	}
	if err := r.c.send(appendFrame(nil, tCloseStdin, r.id)); err != nil {
		r.c.fail(err)
	}
	return nil
}
