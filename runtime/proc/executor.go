//go:build linux

package proc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An Executor decides where the runs of an engine start: on this machine ([Local], the default), nowhere
// ([Refuser]), or elsewhere (a container: runtime/proc/docker, through the agent of runtime/proc/agent).
// Whatever the executor, a run has the same contract: the engine that started it times it, reads its
// output through Spec.Stdout and Spec.Stderr, and ends it with [Process.Kill]; only where the processes
// run changes. runtime.WithExecutor sets an engine's.
type Executor interface {
	// Open returns the starter of one engine, whose workspace roots are roots (absolute paths); the
	// engine closes it when it closes. Open should be cheap: an executor that needs a container makes it
	// on the starter's first Start.
	Open(roots []string) (Starter, error)
}

// A Starter starts the runs of one engine. Its methods are safe for concurrent use.
type Starter interface {
	// Start starts a run as the package's Start does, with the same errors for a program or a working
	// directory that is missing where the run would start.
	Start(Spec) (*Process, error)
	// Close kills what the starter's runs left running, waits for it and releases what the starter
	// holds (a container). The runs' Processes are Done when it returns.
	Close() error
}

// Local is the executor of this machine: its starter is [Start].
var Local Executor = localExecutor{}

type localExecutor struct{}

func (localExecutor) Open([]string) (Starter, error) { return localStarter{}, nil }

type localStarter struct{}

func (localStarter) Start(s Spec) (*Process, error) { return Start(s) }
func (localStarter) Close() error                   { return nil }

// ErrRefused is the error of every Start of a [Refuser]'s starters.
var ErrRefused = errors.New("refused: this run may not start processes")

// A Refuser is an executor that starts nothing: every Start of its starters fails with [ErrRefused]. It is
// for runs that must never execute a command, whatever a spec lets through: the conformance suite runs the
// cases whose command would do harm (a policy's blocked examples, as written) on one, so a spec missing
// its rule fails the case instead of running the command. Its zero value is ready to use.
type Refuser struct {
	mu   sync.Mutex
	argv [][]string
}

// Open returns a starter that refuses every run.
func (r *Refuser) Open([]string) (Starter, error) { return refuseStarter{r}, nil }

// Refused returns the argument vectors of the runs its starters refused, in order (an embedded script's
// is empty).
func (r *Refuser) Refused() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]string(nil), r.argv...)
}

// Err returns nil when no run was refused, else ErrRefused naming the first run refused.
func (r *Refuser) Err() error {
	argv := r.Refused()
	if len(argv) == 0 {
		return nil
	}
	what := "an embedded script"
	if len(argv[0]) > 0 {
		what = strconv.Quote(strings.Join(argv[0], " "))
	}
	return fmt.Errorf("%w (asked to start %s, and started nothing)", ErrRefused, what)
}

type refuseStarter struct{ r *Refuser }

func (s refuseStarter) Start(sp Spec) (*Process, error) {
	s.r.mu.Lock()
	s.r.argv = append(s.r.argv, append([]string{}, sp.Argv...))
	s.r.mu.Unlock()
	return nil, ErrRefused
}

func (refuseStarter) Close() error { return nil }

// Remote is a run that an executor started elsewhere (in a container, through its agent): the
// [Process] that [NewRemote] returns forwards Kill, WriteStdin and CloseStdin to it.
type Remote interface {
	// Kill ends the run's process group and everything the run started, as Process.Kill does here; it
	// returns at once, and the run's end is reported through the finish function of NewRemote.
	Kill()
	// WriteStdin writes to the run's stdin as Process.WriteStdin does.
	WriteStdin(b []byte, deadline time.Time) (int, error)
	// CloseStdin closes the run's stdin as Process.CloseStdin does.
	CloseStdin() error
}

// NewRemote returns the Process of a run started elsewhere, whose pid (as the run's machine sees it) is
// pid, with a stdin the host writes to when hasStdin. The executor calls finish once, with the run's
// Exit, after all the run's output has reached the Spec's writers: finish closes Done.
func NewRemote(pid int, r Remote, hasStdin bool) (p *Process, finish func(Exit)) {
	p = &Process{pid: pid, done: make(chan struct{}), remote: r, remoteStdin: hasStdin}
	var once sync.Once
	return p, func(x Exit) {
		once.Do(func() {
			p.exit = x
			close(p.done)
		})
	}
}
