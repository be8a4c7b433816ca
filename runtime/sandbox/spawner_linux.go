//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentbash/agentbash/runtime/internal/osx"
	"github.com/agentbash/agentbash/runtime/sandbox/internal/confine"
)

// The host side of the spawner (see internal/confine): started at the first run, in a user namespace of
// its own when the plan has one; started again if it died or if a run needs the other kind.

var spawner struct {
	mu   sync.Mutex
	fd   int // our end of its socket; -1 when it is not running
	proc *os.Process
	user bool // it runs in a user namespace of its own
}

func init() { spawner.fd = -1 }

// spawnerThread is the OS thread the spawner is started from, living as long as this process: the
// spawner's parent-death signal, and its helpers' (their parent, through CLONE_PARENT, is that thread),
// fire when the thread ends.
var spawnerThread = sync.OnceValue(osx.NewThread)

// spawnTimeout bounds a request to the spawner (it answers in well under a millisecond).
const spawnTimeout = 30 * time.Second

// spawn asks the spawner to start the helper of a run with plan p and the run's descriptors (stdin,
// stdout, stderr, status, config), and returns the helper's pid. An errno is the helper's fork failing.
func spawn(key string, p confine.Plan, session bool, fds []int) (int, error) {
	spawner.mu.Lock()
	defer spawner.mu.Unlock()
	mode := "g"
	if session {
		mode = "s"
	}
	msg := []byte("run " + key + " " + p.String() + " " + mode)
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		if spawner.fd < 0 || spawner.user != p.User {
			stopSpawnerLocked()
			if err := startSpawnerLocked(p.User); err != nil {
				return 0, err
			}
		}
		reply, err := request(msg, syscall.UnixRights(fds...))
		if err != nil {
			// It died (or hangs): start another and try once more.
			lastErr = err
			stopSpawnerLocked()
			continue
		}
		f := strings.Fields(reply)
		if len(f) == 2 {
			n, err := strconv.Atoi(f[1])
			switch {
			case err != nil:
			case f[0] == "pid" && n > 0:
				return n, nil
			case f[0] == "err":
				return 0, syscall.Errno(n)
			}
		}
		return 0, fmt.Errorf("unexpected spawner answer %q", reply)
	}
	return 0, fmt.Errorf("the spawner does not answer: %w", lastErr)
}

// request sends one message and reads the answer.
func request(msg, oob []byte) (string, error) {
	for {
		err := syscall.Sendmsg(spawner.fd, msg, oob, nil, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return "", err
		}
		break
	}
	var buf [64]byte
	for {
		n, err := syscall.Read(spawner.fd, buf[:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return "", err
		}
		if n == 0 {
			return "", errors.New("EOF")
		}
		return string(buf[:n]), nil
	}
}

// dropKey tells the spawner to forget a sandbox's network namespace.
func dropKey(key string) {
	spawner.mu.Lock()
	defer spawner.mu.Unlock()
	if spawner.fd >= 0 {
		_ = syscall.Sendmsg(spawner.fd, []byte("drop "+key), nil, nil, syscall.MSG_DONTWAIT)
	}
}

func startSpawnerLocked(user bool) error {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return &Error{Step: "spawner", Err: os.NewSyscallError("socketpair", err)}
	}
	tv := syscall.NsecToTimeval(spawnTimeout.Nanoseconds())
	_ = syscall.SetsockoptTimeval(fds[0], syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	_ = syscall.SetsockoptTimeval(fds[0], syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	child := os.NewFile(uintptr(fds[1]), "|sandbox-spawner")
	defer child.Close()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		syscall.Close(fds[0])
		return &Error{Step: "spawner", Err: err}
	}
	defer null.Close()
	// A session of its own: ^C, a hangup or a signal to the host's process group does not reach it; and
	// it dies with the host.
	sys := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if user {
		// The capabilities it needs in its user namespace, kept across its execve as ambient ones: to make
		// namespaces and mounts, to bring up a loopback, and what it hands on to the helpers (see
		// capSetpcap).
		sys.Cloneflags = syscall.CLONE_NEWUSER
		sys.UidMappings, sys.GidMappings = idMaps()
		sys.AmbientCaps = []uintptr{capSysAdmin, capNetAdmin, capSetpcap, capSysPtrace}
	}
	var proc *os.Process
	spawnerThread().Run(func() {
		proc, err = os.StartProcess("/proc/self/exe", []string{confine.SpawnerName}, &os.ProcAttr{
			Dir:   "/",
			Env:   []string{confine.Env + "=" + confine.Spawner},
			Files: []*os.File{null, null, null, child},
			Sys:   sys,
		})
	})
	if err != nil {
		syscall.Close(fds[0])
		return &Error{Step: "spawner", Err: err}
	}
	spawner.fd, spawner.proc, spawner.user = fds[0], proc, user
	go func() {
		_, _ = proc.Wait()
		spawner.mu.Lock()
		defer spawner.mu.Unlock()
		if spawner.proc == proc {
			syscall.Close(spawner.fd)
			spawner.fd, spawner.proc = -1, nil
		}
	}()
	return nil
}

// stopSpawnerLocked closes the socket (the spawner exits at EOF) and kills it.
func stopSpawnerLocked() {
	if spawner.proc == nil {
		return
	}
	syscall.Close(spawner.fd)
	_ = spawner.proc.Kill()
	spawner.fd, spawner.proc = -1, nil
}
