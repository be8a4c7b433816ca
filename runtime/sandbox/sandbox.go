package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/agentbash/agentbash/runtime/sandbox/internal/simulate"
)

// Mode is what a sandboxed command may write.
type Mode uint8

const (
	// Off runs commands unconfined (no sandbox).
	Off Mode = iota
	// ReadOnly lets a command read everything and write nothing (but /dev/null, /dev/zero, /dev/full and
	// its own controlling terminal, /dev/tty).
	ReadOnly
	// WorkspaceWrite lets a command write in the workspace roots and in a private temporary directory
	// (its TMPDIR, one per Sandbox, removed by Sandbox.Close), and nowhere else; a .git at the top of a
	// workspace root stays read-only.
	WorkspaceWrite
)

var modeNames = [...]string{Off: "off", ReadOnly: "read-only", WorkspaceWrite: "workspace-write"}

// String returns the mode's name as the CLI and the spec write it: off, read-only, workspace-write.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", m)
}

// ParseMode parses a mode's name (see Mode.String).
func ParseMode(s string) (Mode, error) {
	for m, name := range modeNames {
		if s == name {
			return Mode(m), nil
		}
	}
	return Off, fmt.Errorf("sandbox: unknown mode %q (want %s)", s, strings.Join(modeNames[:], ", "))
}

// Config is what a host asks of the sandbox.
type Config struct {
	// Mode is what commands may write; Off is no sandbox.
	Mode Mode
	// Network lets commands use the network; without it they run in a network namespace of their own,
	// whose only interface is a loopback of its own.
	Network bool
	// BestEffort runs commands with the mechanisms this machine has when some are missing, instead of
	// failing each call (see Check). It never makes a call run with less than the machine offers.
	BestEffort bool
	// UnixSockets are the unix sockets outside the writable roots that commands may connect to without
	// the network: absolute paths of sockets, or of directories whose sockets (at any depth) they may
	// connect to. Without the network no other socket outside the writable roots can be connected to.
	UnixSockets []string
}

// String describes the configuration in a few words: "workspace-write, no network".
func (c Config) String() string {
	if c.Mode == Off {
		return "off"
	}
	s := c.Mode.String()
	if c.Network {
		s += ", network allowed"
	} else {
		s += ", no network"
	}
	switch n := len(c.UnixSockets); {
	case n == 1:
		s += ", 1 unix socket allowed"
	case n > 1:
		s += ", " + strconv.Itoa(n) + " unix sockets allowed"
	}
	if c.BestEffort {
		s += ", best effort"
	}
	return s
}

// Mechanism is one of the kernel features the sandbox is built of.
type Mechanism string

// The mechanisms, in the order Check reports them.
const (
	// Landlock confines the filesystem: read everywhere, write only under the allowed roots.
	Landlock Mechanism = "landlock"
	// UserNS is an unprivileged user namespace: it lets a process that is not root create the others.
	UserNS Mechanism = "user namespace"
	// PIDNS is a PID namespace per run: when the run's first process ends, the kernel kills every process
	// left in it.
	PIDNS Mechanism = "pid namespace"
	// NetNS is a network namespace per run, with only a loopback of its own.
	NetNS Mechanism = "network namespace"
	// MountNS is a mount namespace per run, where the filesystem is read-only (metadata included) but for
	// the writable roots, .git is bound read-only and /proc shows the run's own processes.
	MountNS Mechanism = "mount namespace"
	// Seccomp is a seccomp filter per run without the network: unix sockets outside the writable roots
	// (and Config.UnixSockets) cannot be connected to, nor socket families the network namespace does not
	// confine (vsock) used.
	Seccomp Mechanism = "seccomp"
)

// Mechanisms lists every mechanism, in the order Check reports them.
func Mechanisms() []Mechanism { return []Mechanism{Landlock, UserNS, PIDNS, NetNS, MountNS, Seccomp} }

// Use says what the sandbox uses the mechanism for.
func (m Mechanism) Use() string {
	switch m {
	case Landlock:
		return "filesystem: read everywhere, write only in the workspace and a private TMPDIR"
	case UserNS:
		return "lets an unprivileged host create the namespaces below"
	case PIDNS:
		return "no survivor: the kernel kills what a run leaves when it ends"
	case NetNS:
		return "no network: a namespace with only its own loopback"
	case MountNS:
		return "read-only root, metadata included, but the writable roots; .git read-only; /proc of the run's own processes"
	case Seccomp:
		return "no network: no unix socket outside the writable roots (the helper connects those allowed), no vsock"
	}
	return ""
}

// Status is whether this machine has one mechanism.
type Status struct {
	Mechanism Mechanism
	Available bool
	// Detail is what was found: the Landlock ABI version when available, else why it is missing.
	Detail string
}

// Support is what this machine offers the sandbox (see Check).
type Support struct {
	// LandlockABI is the Landlock ABI version the kernel offers, 0 if none.
	LandlockABI int
	// Mechanisms has one entry per mechanism, in the order of Mechanisms. The namespaces are checked as
	// the sandbox creates them: inside a new user namespace when there is one, else (as root) without.
	Mechanisms []Status
}

// Has reports whether the mechanism is available.
func (s Support) Has(m Mechanism) bool {
	for _, st := range s.Mechanisms {
		if st.Mechanism == m {
			return st.Available
		}
	}
	return false
}

// status returns the entry of m.
func (s Support) status(m Mechanism) Status {
	for _, st := range s.Mechanisms {
		if st.Mechanism == m {
			return st
		}
	}
	return Status{Mechanism: m, Detail: "not checked"}
}

// Required lists the mechanisms a configuration needs: Landlock, a PID namespace and a mount namespace
// (the read-only root) always, a network namespace and the seccomp filter unless the network is allowed,
// and a user namespace unless the host runs as root. Off needs none.
func Required(c Config, root bool) []Mechanism {
	if c.Mode == Off {
		return nil
	}
	req := []Mechanism{Landlock}
	if !root {
		req = append(req, UserNS)
	}
	req = append(req, PIDNS)
	if !c.Network {
		req = append(req, NetNS)
	}
	req = append(req, MountNS)
	if !c.Network {
		req = append(req, Seccomp)
	}
	return req
}

// Missing returns the mechanisms c needs that s lacks (for a host that is not root, a namespace is
// missing when the user namespace is).
func (s Support) Missing(c Config, root bool) []Status {
	s = s.usable(root)
	var out []Status
	for _, m := range Required(c, root) {
		if st := s.status(m); !st.Available {
			out = append(out, st)
		}
	}
	return out
}

// Unavailable says why this machine cannot sandbox c for this process's user: the missing mechanisms,
// each with what was found ("landlock (not in this kernel); ..."), or "" when it can.
func Unavailable(c Config) string {
	var why []string
	for _, st := range Check().Missing(c, os.Geteuid() == 0) {
		why = append(why, string(st.Mechanism)+" ("+st.Detail+")")
	}
	return strings.Join(why, "; ")
}

// usable returns s with the namespaces marked missing when they cannot be created: a host that is not
// root creates them inside a user namespace.
func (s Support) usable(root bool) Support {
	if root || s.Has(UserNS) {
		return s
	}
	out := s
	out.Mechanisms = append([]Status(nil), s.Mechanisms...)
	for i, st := range out.Mechanisms {
		switch st.Mechanism {
		case PIDNS, NetNS, MountNS:
			if st.Available {
				out.Mechanisms[i] = Status{Mechanism: st.Mechanism, Detail: "needs the user namespace"}
			}
		}
	}
	return out
}

// Error is a call the sandbox could not confine: a mechanism it needs is missing (Missing), or a step
// confining the command failed (Step and Err). The command did not run.
type Error struct {
	// Missing are the mechanisms the configuration needs that this machine lacks.
	Missing []Status
	// Step names what failed while confining the command ("bind .git read-only", "landlock", ...),
	// Path the file it concerned, if any, and Err the error.
	Step string
	Path string
	Err  error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("sandbox: ")
	if len(e.Missing) > 0 {
		b.WriteString("cannot confine the command, this machine lacks ")
		for i, st := range e.Missing {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(string(st.Mechanism))
			if st.Detail != "" {
				b.WriteString(" (" + st.Detail + ")")
			}
		}
		b.WriteString("; the command did not run (best effort would run it with what the machine has)")
		return b.String()
	}
	b.WriteString(e.Step)
	if e.Path != "" {
		b.WriteString(" " + e.Path)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	b.WriteString("; the command did not run")
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// withSimulated applies the marks of sandboxtest.Simulate to s (a copy).
func withSimulated(s Support) Support {
	missing := simulate.Missing()
	if missing == nil {
		return s
	}
	out := s
	out.Mechanisms = append([]Status(nil), s.Mechanisms...)
	for i, st := range out.Mechanisms {
		if reason, ok := missing[string(st.Mechanism)]; ok {
			out.Mechanisms[i] = Status{Mechanism: st.Mechanism, Detail: reason}
			if st.Mechanism == Landlock {
				out.LandlockABI = 0
			}
		}
	}
	return out
}

// Command is a command to start confined: its program (resolved), argv (argv[0] included), whole
// environment, working directory, and its standard files (the child's ends).
type Command struct {
	Path      string
	Argv, Env []string
	Dir       string
	// Session starts it in a session of its own rather than a process group of its own.
	Session bool
	// Ctty makes Stdin, a terminal, the command's controlling terminal (the command leads a session of
	// its own, as Session).
	Ctty                  bool
	Stdin, Stdout, Stderr *os.File
	// Writable are files, which must exist, the command may write (and truncate) whatever the mode, but
	// not remove or rename: the host's own state files, which it reads back after the run.
	Writable []string
}
