package runtime

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentbash/agentbash/spec"
)

// The working directory as the kernel sees it: a path is never cleaned as text before a check. A relative
// path is joined to the workspace as it was sent ("nope/../sub" stays so, and fails when nope is missing);
// existence and is-a-directory are asked of the kernel (stat), which resolves each component in turn,
// symlinks and ".." included; resolve_symlinks is CPython's Path.resolve() (os.path.realpath, strict=False),
// component by component.

// workdir resolves the working-directory parameter after the default is set (applyWorkdir).
func (c *call) workdir(w *spec.Workdir, p *spec.Param, ws string) error {
	raw := c.params[p.Name]
	if w.FalsyIsDefault && pyFalsy(raw) {
		return nil
	}
	sent, isStr := raw.(string)
	if !isStr && raw != nil {
		if c.t.spec.Coerce == spec.CoercePython {
			// Path(value), os.fspath: what CPython says of a value that is not a path.
			return c.raiseRuntime(&runtimeError{class: "TypeError", msg: "expected str, bytes or os.PathLike object, not " + spec.PyType(raw)})
		}
		return nil // a lenient parameter of another type reads as absent
	}
	if sent == "" && w.EmptyIsDefault {
		return nil
	}
	if isStr && sent == "" && w.EmptyFailsSpawn { // not null: None is fine
		// The checks see the workspace (Path("") is "."); the spawn fails.
		c.cwdEmpty = true
		c.data.Path, c.data.Cwd = "", ""
		return nil
	}
	if raw == nil {
		return nil
	}
	c.data.Path = sent
	if w.Absolute != nil && !filepath.IsAbs(sent) {
		return c.fail(w.Absolute)
	}
	path := sent
	if !filepath.IsAbs(path) {
		path = strings.TrimSuffix(ws, "/") + "/" + path
	}
	resolved := path
	if w.ResolveSymlinks {
		r, err := pyRealpath(path)
		if err != nil && c.pythonRuntime() {
			return c.raiseRuntime(err)
		}
		resolved = r
	}
	c.data.Resolved = resolved
	c.cwd = resolved
	if w.ResolveSymlinks {
		c.data.Cwd = resolved
	} else {
		c.data.Cwd = sent
	}
	if w.Confine != nil {
		root := ws
		if w.ResolveSymlinks {
			root = c.e.resolveRoot(ws)
		}
		if !within(root, filepath.Clean(resolved)) {
			return c.fail(w.Confine)
		}
	}
	for _, rule := range []struct {
		f   *spec.Failure
		dir bool
	}{{w.MustExist, false}, {w.MustBeDir, true}} {
		if rule.f == nil {
			continue
		}
		ok, re := c.statCheck(resolved, rule.dir)
		if re != nil {
			return c.raiseRuntime(re)
		}
		if !ok {
			return c.fail(rule.f)
		}
	}
	return nil
}

// statCheck asks the kernel whether something (a directory, with dir) is at path, as the source's
// runtime asks: CPython's Path.exists() and is_dir() answer false for ENOENT, ENOTDIR, EBADF, ELOOP and a
// NUL byte, and raise the OSError of any other failure (ENAMETOOLONG, EACCES); other runtimes see false.
func (c *call) statCheck(path string, dir bool) (bool, *runtimeError) {
	fi, err := os.Stat(path)
	if err == nil {
		return !dir || fi.IsDir(), nil
	}
	var errno syscall.Errno
	if !c.pythonRuntime() || !errors.As(err, &errno) {
		return false, nil
	}
	switch errno {
	case syscall.ENOENT, syscall.ENOTDIR, syscall.EBADF, syscall.ELOOP, syscall.EINVAL:
		return false, nil
	}
	return false, pyOSError(errno, path)
}

// pyOSError is the OSError CPython raises for a failed stat of path that exists() and is_dir() do not
// swallow: PermissionError for EACCES and EPERM, else OSError, and its text "[Errno N] strerror: 'path'".
func pyOSError(errno syscall.Errno, path string) *runtimeError {
	class := "OSError"
	switch errno {
	case syscall.EACCES, syscall.EPERM:
		class = "PermissionError"
	}
	text := errno.Error()
	if t, ok := errnoText[errno]; ok {
		text = t[1]
	}
	return &runtimeError{class: class, msg: "[Errno " + strconv.Itoa(int(errno)) + "] " + text + ": " + pyRepr(path)}
}

// pyRepr is Python's repr of a str, for the paths in OSError texts: single quotes unless the text holds
// one and no double quote, backslash escapes for the quote, the backslash and control characters.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x` + strconv.FormatInt(int64(r)|0x100, 16)[1:])
		case r >= 0x80 && r < 0xa0:
			b.WriteString(`\x` + strconv.FormatInt(int64(r), 16))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyRealpath is CPython 3.11's Path(path).resolve() of an absolute path: os.path.realpath(strict=False)
// walks the components, following each symlink it meets (a "..", after one, goes to the parent of its
// target), keeping a component that does not exist as it is (a ".." after it then removes it, as text);
// a symlink met again before it resolved is a loop, and resolve() then raises RuntimeError("Symlink loop
// from '<path>'"); a NUL byte is lstat's ValueError. The path returned is as far as it resolved.
func pyRealpath(path string) (string, *runtimeError) {
	if hasNUL(path) {
		return path, &runtimeError{class: "ValueError", msg: "embedded null byte"}
	}
	seen := map[string]*string{}
	r, ok := joinRealpath("", path, seen, 0)
	r = pyNormpath(r) // realpath returns abspath(path): normalized as text
	if !ok {
		return r, &runtimeError{class: "RuntimeError", msg: "Symlink loop from " + pyRepr(r)}
	}
	// resolve() stats the result: a loop further on (realpath gave up inside it) is the same error.
	if _, err := os.Stat(r); err != nil && errors.Is(err, syscall.ELOOP) {
		return r, &runtimeError{class: "RuntimeError", msg: "Symlink loop from " + pyRepr(r)}
	}
	return r, nil
}

// joinRealpath is posixpath._joinrealpath: rest joined to the resolved prefix p; ok false when a symlink
// loop stopped it (the result is then the unresolved remainder joined on).
func joinRealpath(p, rest string, seen map[string]*string, depth int) (string, bool) {
	if strings.HasPrefix(rest, "/") {
		rest = strings.TrimLeft(rest, "/")
		p = "/"
	}
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		if name == "" || name == "." {
			continue
		}
		if name == ".." {
			if p == "" {
				p = ".."
				continue
			}
			dir, base := pySplit(p)
			p = dir
			if base == ".." {
				p = pyJoin(pyJoin(dir, ".."), "..")
			}
			continue
		}
		np := pyJoin(p, name)
		fi, err := os.Lstat(np)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			p = np
			continue
		}
		if r, known := seen[np]; known {
			if r != nil {
				p = *r
				continue
			}
			return pyJoin(np, rest), false // a loop
		}
		if depth > 255 {
			return pyJoin(np, rest), false
		}
		seen[np] = nil
		target, err := os.Readlink(np)
		if err != nil {
			p = np
			continue
		}
		var ok bool
		p, ok = joinRealpath(p, target, seen, depth+1)
		if !ok {
			return pyJoin(p, rest), false
		}
		r := p
		seen[np] = &r
	}
	if p == "" {
		p = "."
	}
	return p, true
}

// pySplit is posixpath.split: the head (trailing slashes removed unless it is all slashes) and the tail.
func pySplit(p string) (string, string) {
	i := strings.LastIndex(p, "/") + 1
	head, tail := p[:i], p[i:]
	if head != "" && strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head, tail
}

// pyJoin is posixpath.join of two parts.
func pyJoin(a, b string) string {
	switch {
	case strings.HasPrefix(b, "/"):
		return b
	case a == "" || strings.HasSuffix(a, "/"):
		return a + b
	}
	return a + "/" + b
}

// pyNormpath is posixpath.normpath of an absolute path: ".", ".." and repeated slashes removed as text;
// two leading slashes (and only two) are kept.
func pyNormpath(p string) string {
	c := filepath.Clean(p)
	if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
		return "/" + c
	}
	return c
}
