//go:build linux

package agent

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/agentbash/agentbash/runtime/proc"
)

// Env and Name make this binary the agent: a process whose environment has Env=1 and whose argv[0]'s base
// name is Name serves the protocol on its stdin and stdout from this package's init function, before main,
// and exits (as runtime/sandbox's helper does). The Docker executor starts it as a container's main
// process.
const (
	Env  = "AGENTBASH_AGENT"
	Name = "agentbash-agent"
)

func init() {
	// The common case, a process that is no agent, is one getenv: keep it so.
	if v, ok := syscall.Getenv(Env); !ok || v != "1" || len(os.Args) != 1 || filepath.Base(os.Args[0]) != Name {
		return
	}
	os.Exit(Serve(os.Stdin, os.Stdout))
}

// Serve is the agent: it reads the host's frames from r and writes its own to w until r ends (the host
// closed the stream, or is gone), then kills every run it started, waits for them and returns 0 (1 when
// the stream broke with an error). SIGTERM and SIGINT end it the same way.
func Serve(r io.Reader, w io.Writer) int {
	s := &server{w: w, runs: map[uint32]*serverRun{}}
	s.send(appendFrame(nil, tHello, 0, mustJSON(helloMsg{Version: Version, Pid: os.Getpid()})))
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	read := make(chan error, 1)
	go func() { read <- s.loop(r) }()
	code := 0
	select {
	case err := <-read:
		if err != nil && !errors.Is(err, io.EOF) {
			s.fatal(err)
			code = 1
		}
	case <-sigs:
	}
	s.killAll()
	s.wg.Wait()
	return code
}

// server is the agent's state: the runs it started, by the host's run id.
type server struct {
	wmu  sync.Mutex
	w    io.Writer
	werr error // the first write error: the host is gone; nothing more is sent

	mu   sync.Mutex
	runs map[uint32]*serverRun
	done bool // killAll was called: start nothing more
	wg   sync.WaitGroup
}

type serverRun struct {
	p        *proc.Process
	writable []string
}

// ordered reads a run's stdout and stderr pipes for an Ordered start: each read of stdout first sends
// what the stderr pipe holds then, both under one lock, so that the frames keep the order in which the
// child wrote to the two pipes as far as a reader of both can see it (a shell that writes a command's
// stderr and then a marker on stdout: the stderr frames come before the marker's).
type ordered struct {
	out, err *output
	outR     *os.File
	errR     *os.File
	errRC    syscall.RawConn

	mu      sync.Mutex
	buf     []byte
	readers sync.WaitGroup
}

// newOrdered makes the pipes of an ordered run: the write ends (blocking, as a child expects its stdout)
// go to proc.Start as the child's descriptors, and the caller closes them once the run started.
func newOrdered(s *server, id uint32) (o *ordered, outW, errW *os.File, err error) {
	o = &ordered{out: &output{s: s, id: id, typ: tStdout}, err: &output{s: s, id: id, typ: tStderr}, buf: make([]byte, chunk)}
	var outR, errR *os.File
	if outR, outW, err = blockingPipe(); err != nil {
		return nil, nil, nil, err
	}
	if errR, errW, err = blockingPipe(); err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, nil, err
	}
	o.outR, o.errR = outR, errR
	if o.errRC, err = errR.SyscallConn(); err != nil {
		o.closeAll(outW, errW)
		return nil, nil, nil, err
	}
	return o, outW, errW, nil
}

// blockingPipe is a pipe whose read end is polled here and whose write end blocks (the child's).
func blockingPipe() (r, w *os.File, err error) {
	if r, w, err = os.Pipe(); err != nil {
		return nil, nil, err
	}
	rc, err := w.SyscallConn()
	if err == nil {
		cerr := rc.Control(func(fd uintptr) { err = syscall.SetNonblock(int(fd), false) })
		if cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		r.Close()
		w.Close()
		return nil, nil, err
	}
	return r, w, nil
}

func (o *ordered) closeAll(more ...*os.File) {
	for _, f := range append([]*os.File{o.outR, o.errR}, more...) {
		_ = f.Close()
	}
}

// start starts the two readers.
func (o *ordered) start() {
	o.readers.Add(2)
	go o.read(o.outR, true)
	go o.read(o.errR, false)
}

// read reads one pipe until its end (or until finish closes it); a read and the sending of what it read
// are one step under the lock.
func (o *ordered) read(f *os.File, stdout bool) {
	defer o.readers.Done()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	for {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			o.mu.Lock()
			defer o.mu.Unlock()
			n, rerr = readFD(int(fd), o.buf)
			if rerr == syscall.EAGAIN {
				return false
			}
			if n > 0 {
				o.emit(o.buf[:n], stdout)
			}
			return true
		})
		if err != nil || rerr != nil || n <= 0 {
			return
		}
	}
}

// emit sends what a read of one pipe got (under the lock): a piece of stdout after what the stderr pipe
// holds then.
func (o *ordered) emit(b []byte, stdout bool) {
	if !stdout {
		o.err.Write(b)
		return
	}
	data := append([]byte(nil), b...) // drainErr reads into the same buffer
	o.drainErr()
	o.out.Write(data)
}

// drain sends what a pipe holds now, without waiting (under the lock), bounded so that a child writing
// without end cannot hold the other stream back.
func (o *ordered) drain(rc syscall.RawConn, stdout bool) {
	for total := 0; total < 1<<20; {
		var n int
		var rerr error
		if err := rc.Control(func(fd uintptr) { n, rerr = readFD(int(fd), o.buf) }); err != nil || rerr != nil || n <= 0 {
			return
		}
		o.emit(o.buf[:n], stdout)
		total += n
	}
}

// drainErr sends what the stderr pipe holds now.
func (o *ordered) drainErr() { o.drain(o.errRC, false) }

// finish waits, once the run is over, for the readers to reach the pipes' ends, at most grace (the pipes
// held open by descendants that escaped the run), then sends what the pipes still hold and closes them.
func (o *ordered) finish(grace time.Duration) {
	done := make(chan struct{})
	go func() { o.readers.Wait(); close(done) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		o.closeAll()
		return
	case <-t.C:
	}
	o.mu.Lock()
	if rc, err := o.outR.SyscallConn(); err == nil {
		o.drain(rc, true)
	}
	o.drainErr()
	o.mu.Unlock()
	o.closeAll()
	<-done
}

// readFD is read(2), retried on EINTR.
func readFD(fd int, buf []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, buf)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// send writes one frame (or several, appended), whole, under the write lock.
func (s *server) send(frame []byte) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return
	}
	if _, err := s.w.Write(frame); err != nil {
		s.werr = err
	}
}

func (s *server) fatal(err error) {
	s.send(appendFrame(nil, tFatal, 0, []byte(err.Error())))
}

// loop reads and handles the host's frames until the stream ends.
func (s *server) loop(r io.Reader) error {
	var buf []byte
	for {
		typ, id, payload, err := readFrame(r, &buf)
		if err != nil {
			return err
		}
		switch typ {
		case tStart:
			var m startMsg
			if err := json.Unmarshal(payload, &m); err != nil {
				return fmt.Errorf("agent protocol: start of run %d: %v", id, err)
			}
			s.start(id, m)
		case tStdin:
			if len(payload) < 8 {
				return fmt.Errorf("agent protocol: a stdin frame of %d bytes", len(payload))
			}
			var deadline time.Time
			if ns := int64(binary.BigEndian.Uint64(payload)); ns != 0 {
				deadline = time.Unix(0, ns)
			}
			data := append([]byte(nil), payload[8:]...)
			if p := s.run(id); p != nil {
				// A write waits for the child to take it: never in the loop, which must go on reading.
				go func() {
					n, err := p.WriteStdin(data, deadline)
					s.send(appendFrame(nil, tWrote, id, mustJSON(wroteMsg{N: n, Err: errorOf(err)})))
				}()
			} else {
				s.send(appendFrame(nil, tWrote, id, mustJSON(wroteMsg{Err: errorOf(os.ErrClosed)})))
			}
		case tCloseStdin:
			if p := s.run(id); p != nil {
				_ = p.CloseStdin()
			}
		case tKill:
			if p := s.run(id); p != nil {
				p.Kill()
			}
		default:
			return fmt.Errorf("agent protocol: unknown frame type %q", typ)
		}
	}
}

func (s *server) run(id uint32) *proc.Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.runs[id]; r != nil {
		return r.p
	}
	return nil
}

// start starts run id and answers; its end is sent by a goroutine of its own.
func (s *server) start(id uint32, m startMsg) {
	s.mu.Lock()
	_, dup := s.runs[id]
	done := s.done
	s.mu.Unlock()
	var p *proc.Process
	var ord *ordered
	var err error
	switch {
	case dup:
		err = fmt.Errorf("agent protocol: run %d is already running", id)
	case done:
		err = errors.New("agent: shutting down")
	default:
		err = makeWritable(m.Writable)
	}
	if err == nil {
		spec := proc.Spec{Argv: m.Argv, Embedded: m.Embedded, Session: m.Session, Dir: m.Dir, Env: m.Env,
			Combined: m.Combined, OpenStdin: m.OpenStdin, PTY: m.PTY, Grace: -1}
		if m.GraceNS > 0 {
			spec.Grace = time.Duration(m.GraceNS)
		}
		if m.Env == nil {
			spec.Env = []string{}
		}
		if m.Stdout {
			spec.Stdout = &output{s: s, id: id, typ: tStdout}
		}
		if m.Stderr {
			spec.Stderr = &output{s: s, id: id, typ: tStderr}
		}
		if m.Ordered && m.Stdout && m.Stderr && !m.Combined && !m.PTY {
			var outW, errW *os.File
			if ord, outW, errW, err = newOrdered(s, id); err == nil {
				spec.Stdout, spec.Stderr = outW, errW
				p, err = proc.Start(spec)
				_ = outW.Close() // the child holds its own
				_ = errW.Close()
				if err != nil {
					ord.closeAll()
				} else {
					ord.start()
				}
			}
		} else {
			p, err = proc.Start(spec)
		}
	}
	if err != nil {
		removeWritable(m.Writable)
		s.send(appendFrame(nil, tStarted, id, mustJSON(startedMsg{Err: errorOf(err)})))
		return
	}
	s.mu.Lock()
	s.runs[id] = &serverRun{p: p, writable: m.Writable}
	s.wg.Add(1)
	if s.done {
		p.Kill() // killAll ran between the check and now
	}
	s.mu.Unlock()
	s.send(appendFrame(nil, tStarted, id, mustJSON(startedMsg{Pid: p.Pid()})))
	go s.wait(id, p, m.Writable, ord, time.Duration(m.GraceNS))
}

// wait sends the run's end once its Process is done: the Writable files as the run left them, then its
// Exit, after every byte of its output (an ordered run's: read up to the pipes' ends, or the grace).
func (s *server) wait(id uint32, p *proc.Process, writable []string, ord *ordered, grace time.Duration) {
	defer s.wg.Done()
	x := p.Wait()
	if ord != nil {
		ord.finish(grace)
	}
	var frames []byte
	for _, path := range writable {
		b, err := readBounded(path, maxFrame-frameHeader-2-len(path))
		if err == nil {
			frames = appendFrame(frames, tFile, id, binary.BigEndian.AppendUint16(nil, uint16(len(path))), []byte(path), b)
		}
	}
	removeWritable(writable)
	frames = appendFrame(frames, tExit, id, mustJSON(exitOf(x)))
	s.mu.Lock()
	delete(s.runs, id)
	s.mu.Unlock()
	s.send(frames)
}

// killAll kills every run, and every run started after it.
func (s *server) killAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	for _, r := range s.runs {
		r.p.Kill()
	}
}

// output is a run's stdout or stderr: each write is sent as frames of at most chunk bytes.
type output struct {
	s   *server
	id  uint32
	typ byte
	mu  sync.Mutex
	buf []byte
}

func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for rest := b; len(rest) > 0; {
		n := min(len(rest), chunk)
		o.buf = appendFrame(o.buf[:0], o.typ, o.id, rest[:n])
		o.s.send(o.buf)
		rest = rest[n:]
	}
	return len(b), nil
}

// makeWritable makes each Writable file, empty, and its directory.
func makeWritable(paths []string) error {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("agent: writable file %q: not an absolute path", p)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		f.Close()
	}
	return nil
}

func removeWritable(paths []string) {
	for _, p := range paths {
		_ = os.Remove(p)
	}
}

// readBounded reads a file of at most limit bytes.
func readBounded(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > limit {
		return nil, fmt.Errorf("agent: %s is larger than %d bytes", path, limit)
	}
	return b, nil
}
