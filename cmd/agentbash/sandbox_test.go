package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime/sandbox"
)

// -sandbox-unix-socket PATH lets a sandboxed command without the network connect to the unix socket at
// PATH (or beneath the directory PATH), and to no other outside the workspace; a relative PATH is the
// current directory's.
func TestSandboxUnixSocketFlag(t *testing.T) {
	c := sandbox.Config{Mode: sandbox.ReadOnly}
	if why := sandbox.Unavailable(c); why != "" {
		t.Skipf("this machine cannot sandbox %s: missing %s (agentbash sandbox check)", c, why)
	}
	py := ""
	for _, p := range []string{"/usr/local/bin/python3", "/usr/bin/python3", "/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("needs python3")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "agent.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client := py + ` -c 'import socket,sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); s.sendall(b"hi"); print("sent")
except OSError as e:
    print("refused:", e.strerror)' ` + sock
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, sock)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"no flag", nil, `"stdout":"refused: Permission denied\n"`},
		{"the socket", []string{"-sandbox-unix-socket", sock}, `"stdout":"sent\n"`},
		{"its directory, relative", []string{"-sandbox-unix-socket", filepath.Dir(rel)}, `"stdout":"sent\n"`},
		{"another socket", []string{"-sandbox-unix-socket", sock + ".other"}, `"stdout":"refused: Permission denied\n"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "rye", "-workspace", t.TempDir(), "-sandbox", "read-only"}, tc.flags...)
			var o, e bytes.Buffer
			if code := Main(append(args, "--", client), &o, &e); code != 0 || !strings.Contains(o.String(), tc.want) {
				t.Errorf("exit %d, stdout %s stderr %s; want %s", code, o.String(), e.String(), tc.want)
			}
			_ = ln.SetDeadline(time.Now().Add(50 * time.Millisecond)) // a connection made is in the backlog
			conn, err := ln.Accept()
			if connected := err == nil; connected != strings.Contains(tc.want, "sent") {
				t.Errorf("the socket saw a connection: %v", connected)
			}
			if conn != nil {
				conn.Close()
			}
		})
	}
}
