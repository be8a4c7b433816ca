package runtime

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os/exec"
	"syscall"

	"github.com/agentbash/agentbash/runtime/sandbox"
	"github.com/agentbash/agentbash/spec"
)

// errnoText holds C's strerror text and the symbolic name for the errors a spawn can meet; Python's OSError
// and Node's error codes show these, not Go's lower-case texts.
var errnoText = map[syscall.Errno][2]string{
	syscall.EPERM:        {"EPERM", "Operation not permitted"},
	syscall.ENOENT:       {"ENOENT", "No such file or directory"},
	syscall.EIO:          {"EIO", "Input/output error"},
	syscall.E2BIG:        {"E2BIG", "Argument list too long"},
	syscall.ENOEXEC:      {"ENOEXEC", "Exec format error"},
	syscall.ENOMEM:       {"ENOMEM", "Cannot allocate memory"},
	syscall.EACCES:       {"EACCES", "Permission denied"},
	syscall.ENOTDIR:      {"ENOTDIR", "Not a directory"},
	syscall.EISDIR:       {"EISDIR", "Is a directory"},
	syscall.EMFILE:       {"EMFILE", "Too many open files"},
	syscall.ETXTBSY:      {"ETXTBSY", "Text file busy"},
	syscall.EAGAIN:       {"EAGAIN", "Resource temporarily unavailable"},
	syscall.ENAMETOOLONG: {"ENAMETOOLONG", "File name too long"},
	syscall.ELOOP:        {"ELOOP", "Too many levels of symbolic links"},
}

// spawnError renders a shell that could not be started: the tool's spawn_error.<ERRNO> case if it has
// one, else its spawn_error case.
func (c *call) spawnError(err error) (json.RawMessage, error) {
	c.data.Err = err.Error()
	c.setErrno(err)
	// The path the failing step names: the directory when entering it failed, the program when executing
	// it failed, none when the failure is the host's own (no descriptor left for a pipe).
	c.data.SpawnPath = ""
	var pe *fs.PathError
	isPath := errors.As(err, &pe)
	if isPath {
		c.data.SpawnPath = c.data.Shell
		if pe.Op == "chdir" {
			c.data.SpawnPath = c.data.Cwd
		}
	}
	if c.direct && c.data.ErrnoName != "" && (!isPath || pe.Op != "chdir") {
		c.data.SpawnPath = c.argv[0] // role argv: the program run without a shell
	}
	c.data.Message = err.Error()
	// A command the sandbox could not confine did not run: its message is the sandbox's own (the spec's
	// template words an OS error as its host does, which would hide what is missing), rendered in the
	// tool's spawn_error.EACCES or spawn_error case, as a spawn the host was denied (setErrno).
	var sbe *sandbox.Error
	if tmpl := c.e.v.Shell.SpawnError; tmpl != "" && !errors.As(err, &sbe) {
		if msg, rerr := c.t.tmpl.render(tmpl, &c.data); rerr == nil {
			c.data.Message = msg
		}
	}
	c.data.ExitCode = 1
	if c.data.ErrnoName != "" {
		return c.render(spec.SpawnErrorOf(c.data.ErrnoName))
	}
	return c.render(spec.OutcomeSpawnError)
}

// setErrno fills the errno fields of the template data from a spawn error (a program not found on PATH
// is ENOENT, as execvp reports it).
func (c *call) setErrno(err error) {
	var errno syscall.Errno
	var sbe *sandbox.Error
	if errors.Is(err, exec.ErrNotFound) {
		errno = syscall.ENOENT
	} else if errors.As(err, &sbe) {
		errno = syscall.EACCES
	} else if !errors.As(err, &errno) {
		return
	}
	c.data.Errno = int(errno)
	if t, ok := errnoText[errno]; ok {
		c.data.ErrnoName, c.data.Strerror = t[0], t[1]
		return
	}
	c.data.Strerror = errno.Error()
}
