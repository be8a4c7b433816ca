package runtime

import (
	"errors"
	"syscall"
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

// setErrno fills the errno fields of the template data from a spawn error.
func (c *call) setErrno(err error) {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return
	}
	c.data.Errno = int(errno)
	if t, ok := errnoText[errno]; ok {
		c.data.ErrnoName, c.data.Strerror = t[0], t[1]
		return
	}
	c.data.Strerror = errno.Error()
}
