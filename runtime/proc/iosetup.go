//go:build linux

package proc

import (
	"io"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentbash/agentbash/runtime/internal/osx"
)

// ioSetup builds the child's output files: a pipe and a pump per writer,
// /dev/null for a nil writer, or a file handed down as is.
type ioSetup struct {
	devnull   *os.File
	readEnds  []*os.File // our pipe read ends (owned by the pumps once started)
	childEnds []*os.File // our copies of the write ends, to close once started
	writers   []*os.File // our stdin write ends (OpenStdin, PTY: the Process's once started)
	pumps     []*pump
}

// null returns /dev/null.
func (s *ioSetup) null() (*os.File, error) {
	if s.devnull == nil {
		if devNull == nil {
			return nil, devNullErr
		}
		s.devnull = devNull
	}
	return s.devnull, nil
}

// devNull is /dev/null, open for reading and writing, shared by every child that needs it (its stdin,
// a discarded output) and never closed; opened at init, so that it is there before any descriptor count
// a host or a test makes.
var devNull, devNullErr = openFile(os.DevNull, syscall.O_RDWR)

// openFile opens a file for a child only: a blocking descriptor that the
// netpoller never sees (os.OpenFile would try to register it, and StartProcess
// make it blocking again).
func openFile(name string, mode int) (*os.File, error) {
	fd, err := syscall.Open(name, mode|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// output returns the child's file for one output: file if non-nil, w itself
// if it is an *os.File, /dev/null if w is nil or io.Discard, else the write
// end of a new pipe pumped into w.
func (s *ioSetup) output(file *os.File, w io.Writer) (*os.File, error) {
	if file == nil {
		file, w = splitWriter(w)
	}
	if file != nil {
		return file, nil
	}
	if w == nil {
		return s.null()
	}
	r, wr, err := osx.ReadPipe("|0", "|1") // ours read with deadlines, the child's blocking
	if err != nil {
		return nil, err
	}
	s.readEnds = append(s.readEnds, r)
	s.childEnds = append(s.childEnds, wr)
	s.pumps = append(s.pumps, &pump{f: r, w: w})
	return wr, nil
}

// outputs returns the child's fd 1 and fd 2 for spec (see output); when
// Combined, both are the same file.
func (s *ioSetup) outputs(spec Spec, outFile, errFile *os.File) (stdout, stderr *os.File, err error) {
	if stdout, err = s.output(outFile, spec.Stdout); err != nil {
		return nil, nil, err
	}
	if spec.Combined {
		return stdout, stdout, nil
	}
	if stderr, err = s.output(errFile, spec.Stderr); err != nil {
		return nil, nil, err
	}
	if len(s.pumps) == 2 && sameWriter(s.pumps[0].w, s.pumps[1].w) {
		mu := new(sync.Mutex)
		s.pumps[0].mu, s.pumps[1].mu = mu, mu
	}
	return stdout, stderr, nil
}

// abort closes everything, when the child could not be started.
func (s *ioSetup) abort() {
	closeAll(s.readEnds...)
	closeAll(s.writers...)
	s.closeChildEnds()
}

// closeChildEnds closes our copies of the child's ends (not the shared /dev/null).
func (s *ioSetup) closeChildEnds() {
	closeAll(s.childEnds...)
}

// startPumps starts one goroutine per pump; the WaitGroup counts them.
func (s *ioSetup) startPumps() *sync.WaitGroup {
	wg := new(sync.WaitGroup)
	wg.Add(len(s.pumps))
	for _, pm := range s.pumps {
		go pm.run(wg)
	}
	return wg
}

// pipeSize is the capacity asked for each output pipe once a read shows a fast writer (a full default
// pipe): a large pipe lets it fill while the reader drains in big reads, instead of waking every 64 KiB.
// Small outputs never pay for it. The kernel may refuse (pipe-max-size, or the per-user pipe quota); the
// default capacity then stays, which is only slower.
const pipeSize = 1 << 20

// growAfter is the read size that shows a full default pipe (64 KiB).
const growAfter = 64 << 10

func growPipe(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize)
		})
	}
}
