// Package dockertest gives tests what runs commands in containers needs: a Docker Engine (the local one,
// and a second one on TCP standing in for a remote engine), a static agentbash binary for the agent, and
// images built from Debian packages (no registry): "box", a root filesystem of busybox-static and
// bash-static (seconds to build), and "debian", debootstrap's minbase of the machine's release (the same
// programs as this machine, for the conformance suite against the local reference; about half a minute,
// once, cached). A test skips, naming what is missing, only when no engine can be reached: .ci/docker
// starts them (as .ci/run and `make docker` do). It is for tests only (it imports package testing).
package dockertest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// TCPEnv names the second engine's address (tcp://127.0.0.1:PORT): .ci/docker starts it and prints it.
const TCPEnv = "AGENTBASH_DOCKER_TCP"

// Local returns a client of the local engine ($DOCKER_HOST, else the default socket), or skips the test
// naming what is missing.
func Local(t testing.TB) *client.Client {
	t.Helper()
	return connect(t, "", "the local Docker Engine")
}

// TCP returns the second engine's address and a client of it, or skips the test naming what is missing.
func TCP(t testing.TB) (string, *client.Client) {
	t.Helper()
	addr := os.Getenv(TCPEnv)
	if addr == "" {
		t.Skipf("no second Docker Engine on TCP: $%s is not set (.ci/docker starts one on tcp://127.0.0.1:23750 and prints it)", TCPEnv)
	}
	return addr, connect(t, addr, "the Docker Engine at "+addr)
}

func connect(t testing.TB, host, what string) *client.Client {
	opts := []client.Opt{client.FromEnv}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	cli, err := client.New(opts...)
	if err != nil {
		t.Skipf("no Docker Engine client: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		cli.Close()
		t.Skipf("%s does not answer (%v): install docker.io and start dockerd (.ci/docker does both)", what, err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

var (
	agentOnce sync.Once
	agentPath string
	agentErr  error
)

// Agent builds agentbash statically (CGO_ENABLED=0), once per test binary, and returns its path: the
// agent the containers run (a test binary is linked dynamically when cgo is on).
func Agent(t testing.TB) string {
	t.Helper()
	agentOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentbash-agent-")
		if err != nil {
			agentErr = err
			return
		}
		agentPath = filepath.Join(dir, "agentbash")
		cmd := exec.Command("go", "build", "-o", agentPath, "./cmd/agentbash")
		cmd.Dir = moduleRoot()
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			agentErr = fmt.Errorf("building the static agent: %v\n%s", err, out)
		}
	})
	if agentErr != nil {
		t.Fatal(agentErr)
	}
	return agentPath
}

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Image kinds.
const (
	Box    = "box"    // busybox-static and bash-static
	Debian = "debian" // debootstrap --variant=minbase of this machine's release
)

// ImageName is the tag of an image kind.
func ImageName(kind string) string { return "agentbash-test/" + kind + ":1" }

// Image returns the tag of an image of the kind on the engine, importing it when missing (through the
// Engine API's image import) from a root filesystem built from Debian packages and cached in the user's
// cache directory. It skips the test naming a missing tool (apt-get, dpkg-deb, debootstrap).
func Image(t testing.TB, cli *client.Client, kind string) string {
	t.Helper()
	name := ImageName(kind)
	ctx := context.Background()
	if _, err := cli.ImageInspect(ctx, name); err == nil {
		return name
	} else if !cerrdefs.IsNotFound(err) {
		t.Fatalf("inspecting %s: %v", name, err)
	}
	tarball := rootfs(t, kind)
	unlock := lock(t, tarball+".import") // two test binaries may import it at once
	defer unlock()
	if _, err := cli.ImageInspect(ctx, name); err == nil {
		return name
	}
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rc, err := cli.ImageImport(ctx, client.ImageImportSource{Source: f, SourceName: "-"}, name, client.ImageImportOptions{})
	if err != nil {
		t.Fatalf("importing %s: %v", name, err)
	}
	_, err = io.Copy(io.Discard, rc)
	rc.Close()
	if err != nil {
		t.Fatalf("importing %s: %v", name, err)
	}
	return name
}

// rootfs returns the cached tarball of the kind's root filesystem, building it when missing.
func rootfs(t testing.TB, kind string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "agentbash", "images")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(dir, kind+".tar")
	unlock := lock(t, tarball)
	defer unlock()
	if _, err := os.Stat(tarball); err == nil {
		return tarball
	}
	work, err := os.MkdirTemp(dir, kind+"-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	root := filepath.Join(work, "root")
	switch kind {
	case Box:
		buildBox(t, work, root)
	case Debian:
		buildDebian(t, root)
	default:
		t.Fatalf("unknown image kind %q", kind)
	}
	tmp := tarball + ".tmp"
	run(t, work, "tar", "-C", root, "--numeric-owner", "-cf", tmp, ".")
	if err := os.Rename(tmp, tarball); err != nil {
		t.Fatal(err)
	}
	return tarball
}

// buildBox unpacks busybox-static and bash-static (apt-get download, dpkg-deb -x) and links busybox's
// programs and bash.
func buildBox(t testing.TB, work, root string) {
	need(t, "apt-get", "dpkg-deb", "tar")
	run(t, work, "apt-get", "download", "busybox-static", "bash-static")
	debs, _ := filepath.Glob(filepath.Join(work, "*.deb"))
	for _, d := range debs {
		run(t, work, "dpkg-deb", "-x", d, root)
	}
	bin := filepath.Join(root, "bin")
	out, err := exec.Command(filepath.Join(bin, "busybox"), "--list").Output()
	if err != nil {
		t.Fatalf("busybox --list: %v", err)
	}
	for _, name := range strings.Fields(string(out)) {
		if _, err := os.Lstat(filepath.Join(bin, name)); os.IsNotExist(err) {
			if err := os.Symlink("busybox", filepath.Join(bin, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Symlink("bash-static", filepath.Join(bin, "bash")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"tmp", "etc", "proc", "sys", "dev", "usr/bin", "root"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "tmp"), 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc", "passwd"), []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc", "group"), []byte("root:x:0:\nnogroup:x:65534:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// buildDebian runs debootstrap --variant=minbase for this machine's release.
func buildDebian(t testing.TB, root string) {
	need(t, "debootstrap", "tar")
	suite := "bookworm"
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VERSION_CODENAME="); ok && v != "" {
				suite = strings.Trim(v, `"`)
			}
		}
	}
	run(t, "", "debootstrap", "--variant=minbase", suite, root, "http://deb.debian.org/debian")
}

func need(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("building the test image needs %s, which is missing (apt-get install %s)", p, p)
		}
	}
}

func run(t testing.TB, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
}

// lock takes an exclusive lock on path+".lock" (between test binaries) and returns its release.
func lock(t testing.TB, path string) func() {
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
