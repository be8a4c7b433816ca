//go:build linux

package agent

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/agentbash/agentbash/runtime/proc"
)

// Version is the protocol's version, which the agent's hello frame states; a host refuses an agent of
// another version.
const Version = 1

// maxFrame bounds a frame's length (its type, run id and payload): a peer that sends a longer one is
// broken, and the stream is ended.
const maxFrame = 1 << 24

// chunk is the most output one frame carries.
const chunk = 32 << 10

// Frame types. Upper case: from the host to the agent; lower case: from the agent to the host.
const (
	tStart      = 'S' // JSON startMsg: start a run
	tStdin      = 'I' // 8-byte deadline (Unix ns, 0: none) then the bytes: write to the run's stdin
	tCloseStdin = 'C' // empty: close the run's stdin
	tKill       = 'K' // empty: kill the run's group and everything it started

	tHello   = 'h' // JSON helloMsg, once, first, run id 0
	tStarted = 's' // JSON startedMsg: the run started (pid) or did not (err)
	tStdout  = 'o' // bytes of the run's standard output (or its terminal, or both streams combined)
	tStderr  = 'e' // bytes of the run's standard error
	tWrote   = 'w' // JSON wroteMsg: the answer to a tStdin
	tFile    = 'f' // 2-byte path length, path, contents: a Writable file as the run left it
	tExit    = 'x' // JSON exitMsg: the run is over (the last frame of a run)
	tFatal   = '!' // text, run id 0: the agent cannot go on (the stream ends after it)
)

// helloMsg is the agent's first frame.
type helloMsg struct {
	Version int `json:"version"`
	Pid     int `json:"pid"`
}

// startMsg is a run's proc.Spec as it crosses: what the agent needs to start it where it runs.
type startMsg struct {
	Argv      []string `json:"argv,omitempty"`
	Embedded  string   `json:"embedded,omitempty"`
	Session   bool     `json:"session,omitempty"`
	Dir       string   `json:"dir,omitempty"`
	Env       []string `json:"env"`
	Stdout    bool     `json:"stdout,omitempty"` // false: discarded (/dev/null)
	Stderr    bool     `json:"stderr,omitempty"`
	Combined  bool     `json:"combined,omitempty"`
	OpenStdin bool     `json:"open_stdin,omitempty"`
	PTY       bool     `json:"pty,omitempty"`
	GraceNS   int64    `json:"grace_ns"` // the effective grace: 0 means none
	Writable  []string `json:"writable,omitempty"`
	// Ordered: the agent reads the run's stdout and stderr pipes itself and sends what stderr holds
	// before each piece of stdout, so that stderr written before stdout arrives first (as a reader of
	// the two pipes here finds it). With stdout and stderr, not combined, no terminal.
	Ordered bool `json:"ordered,omitempty"`
}

// startedMsg answers a start.
type startedMsg struct {
	Pid int       `json:"pid,omitempty"`
	Err *errorMsg `json:"err,omitempty"`
}

// errorMsg is a start's error, with the types the engine reads (to render the source's spawn error).
type errorMsg struct {
	Kind  string `json:"kind"` // "exec" (*exec.Error), "path" (*fs.PathError), "errno", "refused" or "other"
	Name  string `json:"name,omitempty"`
	Op    string `json:"op,omitempty"`
	Path  string `json:"path,omitempty"`
	Errno int    `json:"errno,omitempty"`
	// NotFound is an *exec.Error's exec.ErrNotFound.
	NotFound bool   `json:"not_found,omitempty"`
	Text     string `json:"text"`
}

// wroteMsg answers a write to stdin.
type wroteMsg struct {
	N   int       `json:"n"`
	Err *errorMsg `json:"err,omitempty"`
}

// exitMsg is a run's proc.Exit.
type exitMsg struct {
	Code         int    `json:"code"`
	Signal       int    `json:"signal,omitempty"`
	Killed       bool   `json:"killed,omitempty"`
	GraceExpired bool   `json:"grace_expired,omitempty"`
	Swept        int    `json:"swept,omitempty"`
	Err          string `json:"err,omitempty"`
	Started      int64  `json:"started"` // Unix ns, the agent's clock
	Ended        int64  `json:"ended"`
}

func exitOf(x proc.Exit) exitMsg {
	m := exitMsg{Code: x.Code, Signal: int(x.Signal), Killed: x.Killed, GraceExpired: x.GraceExpired, Swept: x.Swept,
		Started: x.Started.UnixNano(), Ended: x.Ended.UnixNano()}
	if x.Err != nil {
		m.Err = x.Err.Error()
	}
	return m
}

func (m exitMsg) exit() proc.Exit {
	x := proc.Exit{Code: m.Code, Signal: syscall.Signal(m.Signal), Killed: m.Killed, GraceExpired: m.GraceExpired, Swept: m.Swept,
		Started: time.Unix(0, m.Started), Ended: time.Unix(0, m.Ended)}
	if m.Err != "" {
		x.Err = errors.New(m.Err)
	}
	return x
}

// errorOf encodes err for the host.
func errorOf(err error) *errorMsg {
	if err == nil {
		return nil
	}
	m := &errorMsg{Kind: "other", Text: err.Error()}
	var errno syscall.Errno
	var ee *exec.Error
	var pe *fs.PathError
	switch {
	case errors.Is(err, proc.ErrRefused):
		m.Kind = "refused"
	case errors.As(err, &ee):
		m.Kind, m.Name = "exec", ee.Name
		if errors.Is(ee.Err, exec.ErrNotFound) {
			m.NotFound = true
		} else if errors.As(ee.Err, &errno) {
			m.Errno = int(errno)
		}
	case errors.As(err, &pe):
		m.Kind, m.Op, m.Path = "path", pe.Op, pe.Path
		if errors.As(pe.Err, &errno) {
			m.Errno = int(errno)
		}
	case errors.As(err, &errno):
		m.Kind, m.Errno = "errno", int(errno)
	case errors.Is(err, os.ErrDeadlineExceeded):
		m.Kind = "deadline"
	case errors.Is(err, os.ErrClosed):
		m.Kind = "closed"
	case errors.Is(err, proc.ErrNoStdin):
		m.Kind = "nostdin"
	}
	return m
}

// err decodes an error, of the types errorOf read.
func (m *errorMsg) err() error {
	if m == nil {
		return nil
	}
	inner := func() error {
		if m.Errno != 0 {
			return syscall.Errno(m.Errno)
		}
		return errors.New(m.Text)
	}
	switch m.Kind {
	case "refused":
		return proc.ErrRefused
	case "exec":
		e := &exec.Error{Name: m.Name, Err: exec.ErrNotFound}
		if !m.NotFound {
			e.Err = inner()
		}
		return e
	case "path":
		return &fs.PathError{Op: m.Op, Path: m.Path, Err: inner()}
	case "errno":
		return syscall.Errno(m.Errno)
	case "deadline":
		return os.ErrDeadlineExceeded
	case "closed":
		return os.ErrClosed
	case "nostdin":
		return proc.ErrNoStdin
	}
	return errors.New(m.Text)
}

// frameHeader is a frame's length (4 bytes, big-endian: what follows it), type (1) and run id (4).
const frameHeader = 9

// appendFrame appends a frame to b.
func appendFrame(b []byte, typ byte, id uint32, payload ...[]byte) []byte {
	n := 5
	for _, p := range payload {
		n += len(p)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = append(b, typ)
	b = binary.BigEndian.AppendUint32(b, id)
	for _, p := range payload {
		b = append(b, p...)
	}
	return b
}

// readFrame reads one frame into buf (grown as needed) and returns its type, run id and payload (which
// aliases buf).
func readFrame(r io.Reader, buf *[]byte) (typ byte, id uint32, payload []byte, err error) {
	var h [frameHeader]byte
	if _, err = io.ReadFull(r, h[:]); err != nil {
		return 0, 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[:4])
	if n < 5 || n > maxFrame {
		return 0, 0, nil, fmt.Errorf("agent protocol: a frame of %d bytes", n)
	}
	typ, id = h[4], binary.BigEndian.Uint32(h[5:9])
	size := int(n) - 5
	if cap(*buf) < size {
		*buf = make([]byte, size)
	}
	payload = (*buf)[:size]
	if _, err = io.ReadFull(r, payload); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, 0, nil, err
	}
	return typ, id, payload, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the types of this file, which always marshal
	}
	return b
}
