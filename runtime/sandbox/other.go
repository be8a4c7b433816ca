//go:build !linux || mips || mipsle || mips64 || mips64le

package sandbox

import (
	"runtime"
	"syscall"
)

// unsupported is the detail of every mechanism where the sandbox is not implemented.
var unsupported = "not implemented on " + runtime.GOOS + "/" + runtime.GOARCH + " (the sandbox is Linux only)"

// Check reports what this machine offers the sandbox: nothing, here.
func Check() Support {
	s := Support{}
	for _, m := range Mechanisms() {
		s.Mechanisms = append(s.Mechanisms, Status{Mechanism: m, Detail: unsupported})
	}
	return withSimulated(s)
}

// Sandbox is a Config bound to the roots its commands may write. Here every Start fails: the sandbox is
// Linux only, and fails closed elsewhere (best effort included: it has nothing to run with).
type Sandbox struct {
	cfg   Config
	roots []string
}

// New returns the sandbox of c.
func New(c Config, roots ...string) (*Sandbox, error) {
	return &Sandbox{cfg: c, roots: append([]string(nil), roots...)}, nil
}

// Config returns the sandbox's configuration.
func (s *Sandbox) Config() Config { return s.cfg }

// Roots returns the roots its commands may write.
func (s *Sandbox) Roots() []string { return append([]string(nil), s.roots...) }

// Close releases nothing here.
func (s *Sandbox) Close() {}

// Launch is a command started through the helper; never made here.
type Launch struct{ Pid int }

// Start fails: nothing can be confined here.
func (s *Sandbox) Start(Command) (*Launch, error) {
	return nil, &Error{Missing: Check().Missing(s.cfg, false)}
}

// Contained is never reached.
func (l *Launch) Contained() bool { return false }

// Exit is never reached.
func (l *Launch) Exit() (syscall.WaitStatus, bool) { return 0, false }

// Close is never reached.
func (l *Launch) Close() {}
