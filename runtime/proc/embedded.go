//go:build linux

package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// startEmbedded runs s.Embedded in the mvdan.cc/sh interpreter.
//
// The interpreter writes to our own pipes, exactly like an external shell
// would, so the programs it runs inherit them directly, Combined keeps the
// write order, and the drain and grace rules are the same. Programs are
// started by execHandler, each in its own process group, killed when the
// shell is cancelled or exits.
func startEmbedded(s Spec) (*Process, error) {
	file, perr := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s.Embedded), "")

	var files ioSetup
	stdin, err := files.null()
	if err != nil {
		return nil, err
	}
	stdout, stderr, err := files.outputs(s, nil, nil)
	if err != nil {
		files.abort()
		return nil, err
	}

	ctx, cancel := context.WithCancel(context.Background())
	p := &Process{grace: graceOf(s), done: make(chan struct{}), cancel: cancel, marker: newMarker()}
	// One cgroup for every program the shell runs (each gets a process group of its own).
	p.cg = newRunCgroup()
	p.ownCg = p.cg != nil
	sh, err := newShell(s.Env,
		interp.StdIO(stdin, stdout, stderr),
		interp.Dir(s.Dir),
		interp.ExecHandlers(p.middleware(s.Grace)),
	)
	if err != nil {
		cancel()
		files.abort()
		if p.cg != nil {
			p.cg.release(true)
		}
		return nil, err
	}

	started := time.Now()
	readers := files.startPumps()
	go func() {
		var err error
		if perr != nil {
			// Like `bash -c` with a syntax error: a message and status 2.
			fmt.Fprintln(stderr, perr)
			err = interp.ExitStatus(2)
		} else {
			err = sh.r.Run(ctx, file)
		}

		p.mu.Lock()
		p.exited = true
		killReq := p.killReq
		p.mu.Unlock()
		ex := Exit{Started: started, Ended: time.Now()}

		// The shell exited: stop its background jobs and kill the process
		// groups of the programs they run, wait for them, and for every
		// exec handler call to return.
		cancel()
		bgErr := sh.stop(p.grace)
		p.closeHandlers()
		if p.cg != nil {
			ex.Swept = p.cg.end(-1)
		} else {
			ex.Swept = sweep(p.marker)
			reapOrphans()
		}
		files.closeChildEnds()

		var status interp.ExitStatus
		switch {
		case err == nil:
		case killReq && errors.Is(err, context.Canceled):
			ex.Code, ex.Signal, ex.Killed = -1, syscall.SIGKILL, true
		case errors.As(err, &status):
			ex.Code = int(status)
		default:
			ex.Code, ex.Err = 1, err
		}
		if ex.Err == nil {
			ex.Err = bgErr
		}
		p.finish(ex, files.pumps, readers)
	}()
	return p, nil
}

// shell is an interpreter whose process-substitution fifos live in a
// directory of its own, so that stop can find and release them.
type shell struct {
	r   *interp.Runner
	tmp string
}

// tmpdirEnv overrides TMPDIR while interp.Runner.Reset computes where the
// runner creates its fifos (it reads TMPDIR once); then it is transparent, so
// the script sees its own environment.
type tmpdirEnv struct {
	expand.Environ
	override string
}

func (e *tmpdirEnv) Get(name string) expand.Variable {
	if name == "TMPDIR" && e.override != "" {
		return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: e.override}
	}
	return e.Environ.Get(name)
}

// fifoBase is where the private fifo directories are made: /dev/shm when it
// is usable (tmpfs: a mkdir there costs microseconds, on a journaled disk a
// fifth of a millisecond or more), else os.TempDir(). Fifos hold no data on
// disk either way.
var fifoBase = sync.OnceValue(func() string {
	if dir, err := os.MkdirTemp("/dev/shm", fifoDirPrefix); err == nil {
		_ = os.Remove(dir)
		return "/dev/shm"
	}
	return os.TempDir()
})

// fifoDirPrefix names the private fifo directories.
const fifoDirPrefix = "agentbash-sh-"

// newShell creates an interpreter with env and opts, its fifos in a new
// private directory.
func newShell(env []string, opts ...interp.RunnerOption) (*shell, error) {
	tmp, err := os.MkdirTemp(fifoBase(), fifoDirPrefix)
	if err != nil {
		return nil, err
	}
	wenv := &tmpdirEnv{Environ: expand.ListEnviron(env...), override: tmp}
	r, err := interp.New(append(opts, interp.Env(wenv))...)
	if err != nil {
		_ = os.Remove(tmp)
		return nil, err
	}
	r.Reset() // reads TMPDIR once; Run will not reset again
	wenv.override = ""
	return &shell{r: r, tmp: tmp}, nil
}

// fifoPrefix is how interp names its process-substitution fifos.
const fifoPrefix = "sh-interp-"

// stop is called once the shell has exited and its context is cancelled.
// It waits for the shell's background jobs (`cmd &`, process
// substitutions), so that none of their goroutines outlives Done, then
// removes the fifo directory.
//
// The interpreter only exposes its background jobs to its `wait` builtin, so
// stop runs `wait`. A process substitution whose fifo was never opened by a
// consumer (`x=<(cmd)`, `true >(cmd)`, or a consumer that was cancelled
// before it started) blocks its goroutine in open(2) for ever, and `wait`
// with it: stop opens every fifo left in the directory (O_RDWR, which
// satisfies either end) to release them, until `wait` returns and the fifos
// are gone. It gives up after grace plus bgTimeout (it should not happen:
// every job sees the cancelled context) and reports it.
func (sh *shell) stop(grace time.Duration) error {
	defer func() {
		if os.Remove(sh.tmp) != nil {
			_ = os.RemoveAll(sh.tmp) // a fifo whose job failed to open it
		}
	}()
	waited := make(chan struct{})
	go func() {
		sh.r.Funcs = nil // a function named "wait" must not shadow the builtin
		wait := &syntax.Stmt{Cmd: &syntax.CallExpr{Args: []*syntax.Word{
			{Parts: []syntax.WordPart{&syntax.Lit{Value: "wait"}}},
		}}}
		_ = sh.r.Run(context.Background(), wait)
		close(waited)
	}()

	start := time.Now()
	var waitedAt time.Time
	for delay := 50 * time.Microsecond; ; delay = min(2*delay, 5*time.Millisecond) {
		left := releaseFifos(sh.tmp)
		select {
		case <-waited:
			if waitedAt.IsZero() {
				waitedAt = time.Now()
			}
		default:
		}
		switch {
		case !waitedAt.IsZero():
			// The fifos of jobs `wait` does not know about (those of
			// subshells) go right after their release; one whose job failed
			// to open it would stay: do not wait long for it.
			if left == 0 || time.Since(waitedAt) > fifoLinger {
				return nil
			}
		case time.Since(start) > grace+bgTimeout:
			return errors.New("proc: background jobs of the embedded shell did not stop")
		}
		t := time.NewTimer(delay)
		select {
		case <-waited:
		case <-t.C:
		}
		t.Stop()
	}
}

const (
	bgTimeout  = 2 * time.Second
	fifoLinger = 100 * time.Millisecond
)

// releaseFifos opens and closes every interp fifo in dir, waking a goroutine
// blocked opening either end; it returns how many there were.
func releaseFifos(dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), fifoPrefix) {
			continue
		}
		n++
		fd, err := syscall.Open(dir+"/"+e.Name(), syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err == nil {
			_ = syscall.Close(fd)
		}
	}
	return n
}

// middleware is the interp.ExecHandlers middleware that replaces the
// interpreter's default exec handler with execHandler.
func (p *Process) middleware(grace time.Duration) func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return p.execHandler(grace) }
}

// execHandler runs a program for the embedded shell with startExternal: in
// its own process group, killed when ctx is cancelled (Kill, or the shell
// exited). The interpreter's own files (pipes, redirections, our output
// pipes) are handed down as they are; other writers (command substitution)
// get a pipe and a pump.
func (p *Process) execHandler(grace time.Duration) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) error {
		if !p.enter() {
			return context.Canceled
		}
		defer p.leave()
		if err := ctx.Err(); err != nil {
			return err
		}

		hc := interp.HandlerCtx(ctx)
		path, err := interp.LookPathDir(hc.Dir, hc.Env, args[0])
		if err != nil {
			fmt.Fprintln(hc.Stderr, err)
			return interp.ExitStatus(127)
		}
		spec := Spec{Argv: args, Dir: hc.Dir, Env: execEnv(hc.Env), Grace: grace}
		a := attrs{path: path, marker: p.marker, cg: p.cg}
		if f, ok := hc.Stdin.(*os.File); ok && f != nil {
			a.stdin = f
		}
		a.stdout, spec.Stdout = splitWriter(hc.Stdout)
		a.stderr, spec.Stderr = splitWriter(hc.Stderr)
		if spec.Stdout != nil && spec.Stderr != nil && sameWriter(spec.Stdout, spec.Stderr) {
			spec.Combined = true // `$(cmd 2>&1)`: one pipe keeps the order
		}

		child, err := startExternal(spec, a)
		// A file just written may briefly be held open for writing by a
		// concurrent fork (go.dev/issue/22315): retry, like interp does.
		for delay := time.Millisecond; errors.Is(err, syscall.ETXTBSY) && delay < 300*time.Millisecond; delay *= 2 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
			child, err = startExternal(spec, a)
		}
		switch {
		case errors.Is(err, syscall.ENOEXEC):
			// A script without a shebang line: run it with a new shell.
			return p.runScript(ctx, hc, path, args, grace)
		case errors.Is(err, syscall.ENOENT):
			fmt.Fprintln(hc.Stderr, err)
			return interp.ExitStatus(127)
		case err != nil:
			fmt.Fprintln(hc.Stderr, err)
			return interp.ExitStatus(126)
		}

		select {
		case <-child.Done():
		case <-ctx.Done():
			child.Kill()
			<-child.Done()
		}
		ex := child.Exit()
		switch {
		case ex.Signal != 0:
			if err := ctx.Err(); err != nil {
				return err
			}
			return interp.ExitStatus(128 + int(ex.Signal))
		case ex.Code != 0:
			return interp.ExitStatus(ex.Code)
		}
		return nil
	}
}

// runScript runs a file the kernel refused to execute (ENOEXEC) as a shell
// script, as POSIX shells do, with a new shell using the same exec handler.
// Like the top-level shell, its background jobs are stopped when it exits.
func (p *Process) runScript(ctx context.Context, hc interp.HandlerContext, path string, args []string, grace time.Duration) error {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(hc.Stderr, err)
		return interp.ExitStatus(126)
	}
	if line, _, _ := bytes.Cut(b, []byte("\n")); bytes.IndexByte(line, 0) >= 0 {
		fmt.Fprintf(hc.Stderr, "%s: cannot execute binary file\n", args[0])
		return interp.ExitStatus(126)
	}
	file, err := syntax.NewParser().Parse(bytes.NewReader(b), args[0])
	if err != nil {
		fmt.Fprintln(hc.Stderr, err)
		return interp.ExitStatus(2)
	}
	sh, err := newShell(execEnv(hc.Env),
		interp.Dir(hc.Dir),
		interp.StdIO(hc.Stdin, hc.Stdout, hc.Stderr),
		interp.ExecHandlers(p.middleware(grace)),
		interp.Params(append([]string{"--"}, args[1:]...)...),
	)
	if err != nil {
		fmt.Fprintln(hc.Stderr, err)
		return interp.ExitStatus(126)
	}
	sctx, cancel := context.WithCancel(ctx)
	err = sh.r.Run(sctx, file)
	cancel()
	if serr := sh.stop(graceOf(Spec{Grace: grace})); err == nil {
		err = serr
	}
	return err
}

// splitWriter tells a file that the child can inherit from a writer that
// needs a pump; io.Discard becomes /dev/null (both results nil).
func splitWriter(w io.Writer) (*os.File, io.Writer) {
	if f, ok := w.(*os.File); ok {
		if f == nil {
			return nil, nil
		}
		return f, nil
	}
	if w == nil || sameWriter(w, io.Discard) {
		return nil, nil
	}
	return nil, w
}

// execEnv is the environment a program started by the shell gets: its
// exported string variables (as interp's own handler computes it).
func execEnv(env expand.Environ) []string {
	list := make([]string, 0, 64)
	for name, vr := range env.Each {
		if !vr.IsSet() {
			// Set globally but unset in the runner: drop earlier entries.
			for i, kv := range list {
				if strings.HasPrefix(kv, name+"=") {
					list[i] = ""
				}
			}
		}
		if vr.Exported && vr.Kind == expand.String {
			list = append(list, name+"="+vr.String())
		}
	}
	out := list[:0]
	for _, kv := range list {
		if kv != "" {
			out = append(out, kv)
		}
	}
	return out
}

// enter registers an exec handler call; false once the shell is finishing.
func (p *Process) enter() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.handlers++
	return true
}

// leave unregisters an exec handler call.
func (p *Process) leave() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.handlers--
	if p.handlers == 0 && p.idle != nil {
		close(p.idle)
		p.idle = nil
	}
}

// closeHandlers refuses new exec handler calls and waits for those in
// flight (they return promptly: the context is cancelled).
func (p *Process) closeHandlers() {
	p.mu.Lock()
	p.closed = true
	if p.handlers == 0 {
		p.mu.Unlock()
		return
	}
	idle := make(chan struct{})
	p.idle = idle
	p.mu.Unlock()
	<-idle
}
