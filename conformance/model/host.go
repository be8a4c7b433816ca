package model

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentbash/agentbash/runtime/proc"
)

// File is a file a host needs (its configuration), written before it starts.
type File struct {
	// Path is where: {home} and {workspace} in it are replaced; a relative path is under {home}.
	Path string
	// Content is the file's text, with {base_url}, {workspace} and {home} replaced.
	Content string
}

// HostSpec says how to start a host CLI.
type HostSpec struct {
	// Argv is the host's command line. Leading NAME=VALUE words are set in its environment (as a shell
	// does). {base_url}, {workspace} and {home} are replaced in every word.
	Argv []string
	// Env is the environment the host starts from (default: this process's), less HOME, TMPDIR and the
	// XDG directories, which are the start's own.
	Env []string
	// Files are written before the start.
	Files []File
	// Dir is where the start's directory (home and temporary files) is made (default: the system's
	// temporary directory).
	Dir string
	// Stderr and Stdout, when set, also receive the host's output (the host's end is kept anyway, for
	// failure messages).
	Stderr, Stdout io.Writer
}

// Vars are the values of the placeholders.
type Vars struct {
	BaseURL   string
	Workspace string
	Home      string
}

// Expand replaces {base_url}, {workspace} and {home} in s.
func (v Vars) Expand(s string) string {
	return strings.NewReplacer("{base_url}", v.BaseURL, "{workspace}", v.Workspace, "{home}", v.Home).Replace(s)
}

// ownDirs are the environment variables a host gets pointed at its start's directory.
var ownDirs = []string{"HOME", "TMPDIR", "TMP", "TEMP", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// SplitAssignments splits a command line's leading NAME=VALUE words from the command.
func SplitAssignments(argv []string) (env, cmd []string) {
	i := 0
	for i < len(argv) && assignment.MatchString(argv[i]) {
		i++
	}
	return argv[:i], argv[i:]
}

// Host is a started host CLI.
type Host struct {
	p      *proc.Process
	dir    string
	home   string
	argv   []string
	stderr *Tail
	stdout *Tail
	closed sync.Once
}

// StartHost starts a host: a directory of its own under spec.Dir holds its home (with .config,
// .local/share, .local/state and .cache, the XDG directories) and its temporary directory; the files are
// written; the host starts in vars.Workspace with stdin on /dev/null, in a process group of its own,
// marked so that every process it starts is killed when it ends (runtime/proc). vars.Home is set here.
func StartHost(spec HostSpec, vars Vars) (*Host, error) {
	assign, cmd := SplitAssignments(spec.Argv)
	if len(cmd) == 0 {
		return nil, errors.New("model: the host's command line has no command")
	}
	dir, err := os.MkdirTemp(spec.Dir, "agentbash-host-")
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	h := &Host{dir: dir, home: filepath.Join(dir, "home"), stderr: NewTail(16 << 10), stdout: NewTail(16 << 10)}
	vars.Home = h.home
	tmp := filepath.Join(dir, "tmp")
	xdg := map[string]string{"XDG_CONFIG_HOME": ".config", "XDG_DATA_HOME": ".local/share", "XDG_STATE_HOME": ".local/state", "XDG_CACHE_HOME": ".cache"}
	for _, d := range append([]string{h.home, tmp}, func() []string {
		var out []string
		for _, rel := range xdg {
			out = append(out, filepath.Join(h.home, rel))
		}
		return out
	}()...) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	for _, f := range spec.Files {
		p := vars.Expand(f.Path)
		if !filepath.IsAbs(p) {
			p = filepath.Join(h.home, p)
		}
		err := os.MkdirAll(filepath.Dir(p), 0o755)
		if err == nil {
			err = os.WriteFile(p, []byte(vars.Expand(f.Content)), 0o600)
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("model: writing the host's file %s: %w", p, err)
		}
	}
	base := spec.Env
	if base == nil {
		base = os.Environ()
	}
	var env []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(ownDirs, k) && k != "PWD" {
			env = append(env, kv)
		}
	}
	// PWD is the workspace, as a shell that cd'd there sets it: a host that takes its project directory
	// from PWD (OpenCode) would otherwise serve the directory the suite was started in.
	env = append(env, "HOME="+h.home, "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp, "PWD="+vars.Workspace)
	for k, rel := range xdg {
		env = append(env, k+"="+filepath.Join(h.home, rel))
	}
	for _, a := range assign {
		env = append(env, vars.Expand(a))
	}
	h.argv = make([]string, len(cmd))
	for i, a := range cmd {
		h.argv[i] = vars.Expand(a)
	}
	var stderr, stdout io.Writer = h.stderr, h.stdout
	if spec.Stderr != nil {
		stderr = io.MultiWriter(h.stderr, spec.Stderr)
	}
	if spec.Stdout != nil {
		stdout = io.MultiWriter(h.stdout, spec.Stdout)
	}
	h.p, err = proc.Start(proc.Spec{Argv: h.argv, Dir: vars.Workspace, Env: dedupEnv(env), Stdout: stdout, Stderr: stderr})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("model: starting the host %s: %w", h.argv[0], err)
	}
	return h, nil
}

// dedupEnv keeps the last value of each variable, in the order of the first.
func dedupEnv(env []string) []string {
	at := map[string]int{}
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := at[k]; ok {
			out[i] = kv
			continue
		}
		at[k] = len(out)
		out = append(out, kv)
	}
	return out
}

// Pid is the host's pid (the leader of its process group).
func (h *Host) Pid() int { return h.p.Pid() }

// Argv is the command the host was started with, its placeholders replaced.
func (h *Host) Argv() []string { return h.argv }

// Home is the host's home directory.
func (h *Host) Home() string { return h.home }

// Done is closed when the host has exited and everything it started has been killed.
func (h *Host) Done() <-chan struct{} { return h.p.Done() }

// Kill kills the host's process group and every process it started, and waits for it.
func (h *Host) Kill() {
	h.p.Kill()
	h.p.Wait()
}

// ExitString says how the host ended (after Done).
func (h *Host) ExitString() string {
	e := h.p.Exit()
	switch {
	case e.Killed:
		return "killed"
	case e.Signal != 0:
		return "killed by " + e.Signal.String()
	default:
		return fmt.Sprintf("exit status %d", e.Code)
	}
}

// StderrTail is the end of the host's stderr (and of its stdout, when stderr is empty).
func (h *Host) StderrTail() string {
	if s := strings.TrimSpace(h.stderr.String()); s != "" {
		return s
	}
	return strings.TrimSpace(h.stdout.String())
}

// Close kills the host if it still runs and removes its directory.
func (h *Host) Close() {
	h.closed.Do(func() {
		h.Kill()
		os.RemoveAll(h.dir)
	})
}

// Tail keeps the last bytes written to it.
type Tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

// NewTail keeps the last max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
