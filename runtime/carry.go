package runtime

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/spec"
)

// Carried state (spec Tool.Carry): a contract that keeps one shell for a conversation is run as a fresh
// shell per call that starts where the last one ended. The command is followed, on a line of its own, by
// a few words that write the shell's physical working directory (pwd -P) and its exported environment
// (env -0) to files of a private directory, and exit with the command's status; when the shell ends by
// itself within the call, the runtime reads them back for the next call of the engine in the same
// workspace. What ends the shell before those words (exit, set -e, a signal, a timeout, a cancel) or a
// command that is not complete shell syntax carries nothing: the state stays as it was.

// carryState is the state carried in one workspace.
type carryState struct {
	cwd string   // "" until a command left one
	env []string // nil until a command left one
}

// carrier holds the carried state of an engine, per workspace root.
type carrier struct {
	mu    sync.Mutex
	dir   string // the state files' directory, made on first use
	seq   int
	state map[string]*carryState
}

// prefix returns a fresh path prefix for the state files of one call.
func (c *carrier) prefix() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dir == "" {
		dir, err := os.MkdirTemp("", "agentbash-carry-")
		if err != nil {
			return "", err
		}
		c.dir = dir
	}
	c.seq++
	return filepath.Join(c.dir, strconv.Itoa(c.seq)), nil
}

// get returns the state carried in a workspace (zero if none).
func (c *carrier) get(root string) carryState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.state[root]; s != nil {
		return *s
	}
	return carryState{}
}

// close removes the state files.
func (c *carrier) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
		c.dir = ""
	}
}

// carryCommand returns command followed by the words that save the state the tool carries to files
// named by prefix, or command unchanged when it is not complete shell syntax (an unclosed quote or
// here-document would swallow the words).
func carryCommand(command, prefix string, what []spec.CarryState) string {
	if _, err := syntax.NewParser().Parse(strings.NewReader(command), ""); err != nil {
		return command
	}
	var b strings.Builder
	b.WriteString(command)
	b.WriteString("\n__agentbash_status=$?; {")
	for _, w := range what {
		switch w {
		case spec.CarriedCwd:
			b.WriteString(" pwd -P >|" + shellQuote(prefix+".cwd") + ";")
		case spec.CarriedEnv:
			b.WriteString(" env -0 >|" + shellQuote(prefix+".env") + ";")
		}
	}
	b.WriteString(" } 2>/dev/null; exit $__agentbash_status")
	return b.String()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// save reads back the state files a call's shell wrote and keeps what they hold for the workspace root;
// a file missing or empty (the shell did not get to write it) leaves that part as it was.
func (c *carrier) save(root, prefix string) {
	cwd, _ := os.ReadFile(prefix + ".cwd")
	env, _ := os.ReadFile(prefix + ".env")
	removeCarryFiles(prefix)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == nil {
		c.state = map[string]*carryState{}
	}
	s := c.state[root]
	if s == nil {
		s = &carryState{}
		c.state[root] = s
	}
	if d := strings.TrimSuffix(string(cwd), "\n"); d != "" && filepath.IsAbs(d) {
		s.cwd = d
	}
	if len(env) > 0 {
		var kept []string
		for _, kv := range bytes.Split(bytes.TrimSuffix(env, []byte{0}), []byte{0}) {
			k, _, ok := strings.Cut(string(kv), "=")
			if !ok || shellOwned[k] || proc.IsMarker(string(kv)) {
				continue
			}
			kept = append(kept, string(kv))
		}
		s.env = kept
	}
}

// createCarryFiles creates the state files of a call, empty, for a sandbox to let the shell write them
// (and only them); an empty file is one the shell did not get to write.
func createCarryFiles(prefix string) ([]string, error) {
	files := []string{prefix + ".cwd", prefix + ".env"}
	for _, f := range files {
		h, err := os.OpenFile(f, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			removeCarryFiles(prefix)
			return nil, err
		}
		h.Close()
	}
	return files, nil
}

func removeCarryFiles(prefix string) {
	_ = os.Remove(prefix + ".cwd")
	_ = os.Remove(prefix + ".env")
}

// shellOwned are the variables a shell sets for itself: not carried.
var shellOwned = map[string]bool{"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true}

// carriedDir returns the working directory carried in root, if it is still a directory.
func (s carryState) carriedDir() (string, bool) {
	if s.cwd == "" {
		return "", false
	}
	fi, err := os.Stat(s.cwd)
	return s.cwd, err == nil && fi.IsDir()
}
