//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package sandbox_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime/sandbox"
)

// What a confined command must not reach, whatever it tries: the metadata of files outside the writable
// roots, capabilities, unix sockets outside them, descriptors its host holds, and the helper's status
// channel. Each test runs as this process's user; TestStartAsNobody runs them again as nobody when this
// process is root (a host that is not root confines through a user namespace of its own).

// sh runs script with /bin/sh through sb in dir, with a PATH of the system's programs only.
func sh(t *testing.T, sb *sandbox.Sandbox, dir, script string) result {
	t.Helper()
	r, err := start(t, sb, dir, []string{"PATH=/usr/local/bin:/usr/bin:/bin"}, "/bin/sh", "-c", script)
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return r
}

// python3 returns the system's python3 (not a user's shim), or skips the test.
func python3(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/local/bin/python3", "/usr/bin/python3", "/bin/python3"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	t.Skip("needs python3 in /usr/local/bin, /usr/bin or /bin")
	return ""
}

// q quotes s for /bin/sh.
func q(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fileState is what a metadata change would change: the inode change time moves with every one (mode,
// owner, times, extended attributes), and the rest says which.
type fileState struct {
	mode          os.FileMode
	uid, gid      uint32
	mtime, ctime  syscall.Timespec
	xattrs, fcaps string
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	list := make([]byte, 4096)
	n, _ := syscall.Listxattr(path, list)
	caps := make([]byte, 64)
	m, _ := syscall.Getxattr(path, "security.capability", caps)
	return fileState{os.FileMode(st.Mode), st.Uid, st.Gid, st.Mtim, st.Ctim, string(list[:max(n, 0)]), string(caps[:max(m, 0)])}
}

// A command cannot change the metadata of a file outside the writable roots in any mode: its mode (a
// set-user-ID bit included), owner, times, extended attributes, file capabilities. Landlock does not
// cover these; the root is read-only in the run's mount namespace, and the command holds no capability.
func TestStartMetadataReadOnly(t *testing.T) {
	py := python3(t)
	ops := []struct{ name, script string }{
		{"chmod setuid", "chmod 4755 F"},
		{"chmod", "chmod 600 F"},
		{"touch -d", "touch -d 2001-01-01 F"},
		{"os.chmod", py + ` -c 'import os,sys; os.chmod(sys.argv[1], 0o4755)' F`},
		{"os.utime", py + ` -c 'import os,sys; os.utime(sys.argv[1], (0, 0))' F`},
		{"os.chown", py + ` -c 'import os,sys; os.chown(sys.argv[1], os.getuid(), os.getgid())' F`},
		{"os.setxattr", py + ` -c 'import os,sys; os.setxattr(sys.argv[1], "user.agentbash", b"x")' F`},
		{"os.removexattr", py + ` -c 'import os,sys; os.removexattr(sys.argv[1], "user.kept")' F`},
	}
	for _, tool := range []struct{ name, script string }{
		{"setcap", "setcap cap_setuid+ep F"},
		{"setfattr", "setfattr -n user.agentbash -v x F"},
		{"chattr", "chattr +i F"},
	} {
		for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/bin", "/bin"} {
			if _, err := os.Stat(filepath.Join(dir, strings.Fields(tool.script)[0])); err == nil {
				ops = append(ops, struct{ name, script string }{tool.name, dir + "/" + tool.script})
				break
			}
		}
	}
	for _, c := range []sandbox.Config{{Mode: sandbox.ReadOnly}, {Mode: sandbox.WorkspaceWrite}} {
		t.Run(c.Mode.String(), func(t *testing.T) {
			ws, outside := t.TempDir(), t.TempDir()
			sb := newSandbox(t, c, ws)
			for _, op := range ops {
				t.Run(op.name, func(t *testing.T) {
					f := filepath.Join(outside, strings.NewReplacer(" ", "-", ".", "-").Replace(op.name))
					if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
						t.Fatal(err)
					}
					old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
					if err := os.Chtimes(f, old, old); err != nil {
						t.Fatal(err)
					}
					_ = syscall.Setxattr(f, "user.kept", []byte("1"), 0) // where the filesystem has user xattrs
					before := stateOf(t, f)
					r := sh(t, sb, ws, strings.ReplaceAll(op.script, "F", q(f)))
					if r.ws.ExitStatus() == 0 {
						t.Errorf("%s succeeded (stdout %q stderr %q)", op.script, r.stdout, r.stderr)
					}
					if after := stateOf(t, f); after != before {
						t.Errorf("%s changed the file outside: %+v, was %+v (stderr %q)", op.name, after, before, r.stderr)
					}
				})
			}
			if c.Mode == sandbox.WorkspaceWrite {
				// Inside the workspace metadata is the command's to change, as without the sandbox.
				r := sh(t, sb, ws, "echo x > g && chmod 600 g && touch -d 2001-01-01 g && stat -c '%a %y' g")
				if !strings.HasPrefix(r.stdout, "600 2001-01-01") {
					t.Errorf("metadata in the workspace: stdout %q stderr %q", r.stdout, r.stderr)
				}
			}
		})
	}
}

// The command holds no capability (none in any set, the bounding set included) and cannot gain any
// (no_new_privs), whether its host is root or not.
func TestStartNoCapabilities(t *testing.T) {
	for _, c := range []sandbox.Config{{Mode: sandbox.ReadOnly}, {Mode: sandbox.WorkspaceWrite}, {Mode: sandbox.WorkspaceWrite, Network: true}} {
		t.Run(c.String(), func(t *testing.T) {
			ws := t.TempDir()
			sb := newSandbox(t, c, ws)
			r := sh(t, sb, ws, "grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status")
			want := "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n" +
				"CapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\n"
			if r.stdout != want {
				t.Errorf("the command's capabilities:\n%swant\n%s(stderr %q)", r.stdout, want, r.stderr)
			}
		})
	}
}

// unixServer listens on a stream socket and a datagram socket in dir (outside any workspace) and reports
// what reached them. (Through package syscall: every helper a test starts is this test binary, whose
// start-up a package such as net would make slower, and BenchmarkStart with it.)
type unixServer struct {
	stream, dgram string
	ln, pc        int
}

func newUnixServer(t *testing.T, dir string) *unixServer {
	t.Helper()
	s := &unixServer{stream: filepath.Join(dir, "u.sock"), dgram: filepath.Join(dir, "d.sock")}
	var err error
	if s.ln, err = syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0); err != nil {
		t.Fatal(err)
	}
	if s.pc, err = syscall.Socket(syscall.AF_UNIX, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(s.ln); syscall.Close(s.pc) })
	if err := syscall.Bind(s.ln, &syscall.SockaddrUnix{Name: s.stream}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(s.ln, 16); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(s.pc, &syscall.SockaddrUnix{Name: s.dgram}); err != nil {
		t.Fatal(err)
	}
	return s
}

// received returns what each connection to the stream socket sent, and the datagrams that arrived, once
// the clients are done: a connection made is in the backlog, a datagram in the queue, so nothing is
// waited for.
func (s *unixServer) received(t *testing.T) (stream []string, dgrams []string) {
	t.Helper()
	for {
		c, _, err := syscall.Accept4(s.ln, syscall.SOCK_CLOEXEC)
		if err != nil {
			break // EAGAIN: no other connection
		}
		tv := syscall.NsecToTimeval(int64(5 * time.Second))
		_ = syscall.SetsockoptTimeval(c, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
		var got []byte
		for { // the client has closed its end: read to the end
			var b [256]byte
			n, err := syscall.Read(c, b[:])
			if n <= 0 || err != nil {
				break
			}
			got = append(got, b[:n]...)
		}
		syscall.Close(c)
		stream = append(stream, string(got))
	}
	for {
		var b [256]byte
		n, _, err := syscall.Recvfrom(s.pc, b[:], 0)
		if err != nil {
			break
		}
		dgrams = append(dgrams, string(b[:n]))
	}
	return stream, dgrams
}

// unixClient is a python3 program: stream PATH connects to PATH and sends "hello"; dgram PATH sends
// "hello" to PATH; each prints "sent" or the error.
const unixClient = `
import ctypes, socket, sys, threading
kind, path = sys.argv[1], sys.argv[2]
if kind == "undumpable": # as ssh and gpg-agent make themselves
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
    kind = "stream"
if kind == "thread": # from a thread that is not the process's first
    t = threading.Thread(target=lambda: connect(path))
def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(b"hello")
    s.close()
    print("sent")
try:
    if kind == "thread":
        t.start(); t.join()
        sys.exit(0)
    if kind == "stream":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(b"hello")
    else:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.sendto(b"hello", path)
    s.close()
    print("sent")
except OSError as e:
    print(type(e).__name__, e.strerror)
    sys.exit(1)
`

// Without the network a command cannot connect to a unix socket outside the writable roots, nor send a
// datagram to one, in any mode; an allowed socket (Config.UnixSockets, a socket or a directory) can be
// connected to; with the network every socket can.
func TestStartUnixSockets(t *testing.T) {
	py := python3(t)
	outside := t.TempDir()
	srv := newUnixServer(t, outside)
	client := func(kind, path string) string {
		return py + " -c " + q(unixClient) + " " + kind + " " + q(path)
	}
	for _, tc := range []struct {
		name   string
		c      sandbox.Config
		script string
		stdout string // the client's output
		stream []string
		dgrams []string
	}{
		{"read-only: connect", sandbox.Config{Mode: sandbox.ReadOnly}, client("stream", srv.stream), "PermissionError Permission denied\n", nil, nil},
		{"read-only: sendto", sandbox.Config{Mode: sandbox.ReadOnly}, client("dgram", srv.dgram), "PermissionError Permission denied\n", nil, nil},
		{"workspace-write: connect", sandbox.Config{Mode: sandbox.WorkspaceWrite}, client("stream", srv.stream), "PermissionError Permission denied\n", nil, nil},
		{"workspace-write: sendto", sandbox.Config{Mode: sandbox.WorkspaceWrite}, client("dgram", srv.dgram), "PermissionError Permission denied\n", nil, nil},
		{"workspace-write: connect through a symbolic link in the workspace", sandbox.Config{Mode: sandbox.WorkspaceWrite},
			"ln -s " + q(srv.stream) + " link && " + client("stream", "link"), "PermissionError Permission denied\n", nil, nil},
		{"workspace-write: connect from a background process", sandbox.Config{Mode: sandbox.WorkspaceWrite},
			"(" + client("stream", srv.stream) + ") & wait", "PermissionError Permission denied\n", nil, nil},
		{"allowed socket", sandbox.Config{Mode: sandbox.ReadOnly, UnixSockets: []string{srv.stream}}, client("stream", srv.stream), "sent\n", []string{"hello"}, nil},
		{"allowed socket, from a process that is not dumpable", sandbox.Config{Mode: sandbox.ReadOnly, UnixSockets: []string{srv.stream}},
			client("undumpable", srv.stream), "sent\n", []string{"hello"}, nil},
		{"allowed socket, from a thread", sandbox.Config{Mode: sandbox.ReadOnly, UnixSockets: []string{srv.stream}},
			client("thread", srv.stream), "sent\n", []string{"hello"}, nil},
		{"workspace-write: connect from a thread", sandbox.Config{Mode: sandbox.WorkspaceWrite}, client("thread", srv.stream), "", nil, nil},
		{"allowed socket, relative path", sandbox.Config{Mode: sandbox.ReadOnly, UnixSockets: []string{srv.stream}},
			"cd " + q(outside) + " && " + client("stream", "u.sock"), "sent\n", []string{"hello"}, nil},
		{"allowed directory", sandbox.Config{Mode: sandbox.WorkspaceWrite, UnixSockets: []string{outside}}, client("stream", srv.stream), "sent\n", []string{"hello"}, nil},
		{"another socket than the allowed one", sandbox.Config{Mode: sandbox.WorkspaceWrite, UnixSockets: []string{filepath.Join(outside, "other.sock")}},
			client("stream", srv.stream), "PermissionError Permission denied\n", nil, nil},
		{"network allowed: connect", sandbox.Config{Mode: sandbox.WorkspaceWrite, Network: true}, client("stream", srv.stream), "sent\n", []string{"hello"}, nil},
		{"network allowed: sendto", sandbox.Config{Mode: sandbox.WorkspaceWrite, Network: true}, client("dgram", srv.dgram), "sent\n", nil, []string{"hello"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			sb := newSandbox(t, tc.c, ws)
			r := sh(t, sb, ws, tc.script)
			stream, dgrams := srv.received(t)
			if r.stdout != tc.stdout {
				t.Errorf("client: %q (stderr %q), want %q", r.stdout, r.stderr, tc.stdout)
			}
			if strings.Join(stream, ",") != strings.Join(tc.stream, ",") || strings.Join(dgrams, ",") != strings.Join(tc.dgrams, ",") {
				t.Errorf("the server outside received %q and datagrams %q, want %q and %q", stream, dgrams, tc.stream, tc.dgrams)
			}
		})
	}
}

// What still works without the network: a socket pair, a unix socket of the run's own in the workspace or
// its TMPDIR, an abstract socket of the run's own, and TCP on the run's loopback.
func TestStartUnixSocketsOwn(t *testing.T) {
	py := python3(t)
	const own = `
import os, socket, sys
a, b = socket.socketpair()
a.sendall(b"pair "); print(b.recv(16).decode(), end="")
for addr in (sys.argv[1], os.environ["TMPDIR"] + "/own.sock", "\0agentbash-test-" + str(os.getpid())):
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); srv.bind(addr); srv.listen(1)
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.connect(addr); c.sendall(b"x")
    conn, _ = srv.accept(); print(conn.recv(1).decode(), end=" ")
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
c = socket.create_connection(srv.getsockname()); conn, _ = srv.accept(); print("tcp")
`
	ws := t.TempDir()
	sb := newSandbox(t, sandbox.Config{Mode: sandbox.WorkspaceWrite}, ws)
	r := sh(t, sb, ws, py+" -c "+q(own)+" "+q(filepath.Join(ws, "own.sock")))
	if r.stdout != "pair x x x tcp\n" || r.ws.ExitStatus() != 0 {
		t.Errorf("stdout %q stderr %q, want %q", r.stdout, r.stderr, "pair x x x tcp\n")
	}
}

// Without the network the filter refuses what would get past the network namespace or the supervisor: a
// unix datagram socket (its destination is named at each send), a socket pair of them, a vsock socket
// (vsock reaches the hypervisor's host from any namespace), an io_uring (its operations pass no filter).
// With the network nothing is refused.
func TestStartSocketFilter(t *testing.T) {
	py := python3(t)
	const probe = `
import ctypes, socket
def try_(what, f):
    try:
        f(); print(what, "ok")
    except OSError as e:
        print(what, e.strerror)
try_("dgram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))
try_("dgram pair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))
try_("vsock", lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM))
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.io_uring_setup(4, params) if hasattr(libc, "io_uring_setup") else libc.syscall(425, 4, params)
print("io_uring", "ok" if fd >= 0 else __import__("os").strerror(ctypes.get_errno()))
`
	for _, tc := range []struct {
		c    sandbox.Config
		want string
	}{
		{sandbox.Config{Mode: sandbox.WorkspaceWrite}, "dgram Permission denied\ndgram pair Permission denied\n" +
			"vsock Address family not supported by protocol\nio_uring Operation not permitted\n"},
		{sandbox.Config{Mode: sandbox.WorkspaceWrite, Network: true}, "dgram ok\ndgram pair ok\n"},
	} {
		t.Run(tc.c.String(), func(t *testing.T) {
			ws := t.TempDir()
			sb := newSandbox(t, tc.c, ws)
			r := sh(t, sb, ws, py+" -c "+q(probe))
			if !strings.HasPrefix(r.stdout, tc.want) {
				t.Errorf("stdout %q (stderr %q), want it to start with %q", r.stdout, r.stderr, tc.want)
			}
		})
	}
}

// The command gets its standard files and nothing else its host holds: a descriptor the host inherited
// (here fd 7, open on a file outside, as `exec 7>>file; agentbash run ...` leaves it) is not the
// command's, for a helper started at once or ahead. The test runs itself again with that descriptor.
func TestStartOnlyStdio(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.ReadOnly}
	requireSandbox(t, c)
	if os.Getenv("AGENTBASH_SANDBOX_TEST_FD7") == "1" {
		if err := syscall.Fstat(7, new(syscall.Stat_t)); err != nil {
			t.Fatalf("fd 7 is not open in the child: %v", err)
		}
		ws := t.TempDir()
		sb := newSandbox(t, c, ws)
		for i := range 3 { // the first helper is started at once, the next ones ahead
			// The shell's own descriptors, looked at without opening one (no pipe, no directory).
			r := sh(t, sb, ws, `echo pwned >&7; n=0; while [ $n -lt 1024 ]; do [ -e /proc/$$/fd/$n ] && printf "$n "; n=$((n+1)); done`)
			if r.stdout != "0 1 2 " {
				t.Errorf("run %d: the shell's descriptors: %q (stderr %q), want 0 1 2", i, r.stdout, r.stderr)
			}
		}
		return
	}
	leak := filepath.Join(t.TempDir(), "leak.txt")
	f, err := os.OpenFile(leak, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartOnlyStdio$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AGENTBASH_SANDBOX_TEST_FD7=1")
	cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, f} // fds 3 to 7: 7 is the file
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("the test with fd 7 open: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(leak); len(b) > 0 {
		t.Errorf("a sandboxed command wrote %q through the host's fd 7", b)
	}
}

// A hard link in the workspace to a file outside, made by someone else, is written through: Landlock
// grants by path, and the file's name in the workspace is a path it allows (a documented limit, see
// docs/spec.md). The command cannot make such a link itself.
func TestStartHardLinkLimit(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	sb := newSandbox(t, sandbox.Config{Mode: sandbox.WorkspaceWrite}, ws)
	target := filepath.Join(outside, "target")
	if err := os.WriteFile(target, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(target, filepath.Join(ws, "placed")); err != nil {
		t.Skipf("the workspace and the directory outside cannot share a hard link here: %v", err)
	}
	r := sh(t, sb, ws, "ln "+q(target)+" made; echo b >> placed")
	if _, err := os.Lstat(filepath.Join(ws, "made")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command made a hard link to a file outside: %v (stderr %q)", err, r.stderr)
	}
	if b, _ := os.ReadFile(target); string(b) != "a\nb\n" {
		t.Errorf("the file outside through the placed link: %q; the documented limit says a\\nb\\n", b)
	}
}

// The command cannot reach the helper's status channel: inside the PID namespace the helper is PID 1, and
// neither its descriptors (/proc/1/fd, pidfd_getfd) nor anything written into them can change the run's
// reported status, make a run that ran look as if it did not, or make one hang.
func TestStartStatusForgery(t *testing.T) {
	ws := t.TempDir()
	sb := newSandbox(t, sandbox.Config{Mode: sandbox.WorkspaceWrite}, ws)
	py := python3(t)
	const getfd = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pidfd = os.pidfd_open(1)
fd = libc.syscall(438, pidfd, 3, 0)
if fd < 0: sys.exit(9)
os.write(fd, b"exit 2560\n")
`
	for _, tc := range []struct {
		script string
		code   int
	}{
		{`printf "exit 2560\n" > /proc/1/fd/3; exit 0`, 0},
		{`printf "exit 2560\n" > /proc/1/task/1/fd/3; exit 0`, 0},
		{`printf "garbage" > /proc/1/fd/3; exit 3`, 3},
		{`printf "ok\nexit 0\n" > /proc/1/fd/3; exit 4`, 4},
		{`printf "err 2 exec /x\n" > /proc/1/fd/3; exit 5`, 5},
		{`head -c 3 /proc/1/fd/3; exit 6`, 6},
		{`sh -c 'exec 4>/proc/1/fd/3; printf "exit 1" >&4'; exit 7`, 7},
		{py + " -c " + q(getfd) + "; exit 8", 8},
		{`(sleep 0.1; printf "exit 0\n" > /proc/1/fd/3) & exit 11`, 11},
	} {
		t.Run(tc.script, func(t *testing.T) {
			r := sh(t, sb, ws, tc.script)
			if !r.ws.Exited() || r.ws.ExitStatus() != tc.code {
				t.Errorf("status %v, want exit %d (stdout %q stderr %q)", r.ws, tc.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestStartAsNobody runs the tests above again as nobody, through a copy of this test binary: a host
// that is not root confines through a user namespace of its own, where the command is its own user.
func TestStartAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root, to run the tests as nobody")
	}
	if os.Getenv("AGENTBASH_SANDBOX_TEST_NOBODY") == "1" {
		return
	}
	dir, err := os.MkdirTemp("", "agentbash-sandbox-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sandbox.test")
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	const tests = "^(TestStartMetadataReadOnly|TestStartNoCapabilities|TestStartUnixSockets|TestStartUnixSocketsOwn|TestStartSocketFilter|TestStartOnlyStdio|TestStartStatusForgery|TestStartStatus)$"
	cmd := exec.Command(bin, "-test.run="+tests, "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{"AGENTBASH_SANDBOX_TEST_NOBODY=1", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + os.TempDir()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}, Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "--- PASS") {
		t.Skipf("as nobody, nothing ran:\n%s", out.String())
	}
	t.Logf("as nobody: %d tests and subtests passed", strings.Count(out.String(), "--- PASS"))
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "--- SKIP") {
			t.Logf("as nobody: %s", strings.TrimSpace(line))
		}
	}
}
