// Package dockerimage builds the images the tests and the benchmarks run commands in, from Debian
// packages (there is no registry): Box, a root filesystem of busybox-static and bash-static, and Debian,
// debootstrap's minbase of this machine's release (the same programs as this machine). Each root
// filesystem is built once, cached as a tarball in the user's cache directory, and imported into an engine
// through the Engine API's image import when the engine lacks the image. It also builds the static
// agentbash the containers run as their agent.
package dockerimage

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
	"syscall"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// Image kinds.
const (
	Box    = "box"    // busybox-static and bash-static
	Debian = "debian" // debootstrap --variant=minbase of this machine's release
)

// OffEnv names the variable that, set to "off", turns off everything of the tests and benchmarks that
// needs a Docker Engine, even one that answers: CI's steps other than `make docker`, which runs them all
// on the engines it starts (so they run once, in their own step).
const OffEnv = "AGENTBASH_DOCKER"

// Off returns why the Docker tests and benchmark rows are off ($AGENTBASH_DOCKER=off), or "".
func Off() string {
	if os.Getenv(OffEnv) == "off" {
		return "$" + OffEnv + "=off: the tests and rows that need a Docker Engine run in their own step (make docker)"
	}
	return ""
}

// Name is the tag of an image kind.
func Name(kind string) string { return "agentbash-test/" + kind + ":1" }

// MissingError is a program the build needs that this machine lacks.
type MissingError struct{ Program string }

func (e *MissingError) Error() string {
	return fmt.Sprintf("building the image needs %s, which is missing (apt-get install %s)", e.Program, e.Program)
}

// Ensure returns the tag of an image of the kind on the engine, importing it when missing.
func Ensure(ctx context.Context, cli *client.Client, kind string) (string, error) {
	name := Name(kind)
	if _, err := cli.ImageInspect(ctx, name); err == nil {
		return name, nil
	} else if !cerrdefs.IsNotFound(err) {
		return "", fmt.Errorf("inspecting %s: %w", name, err)
	}
	tarball, err := rootfs(kind)
	if err != nil {
		return "", err
	}
	unlock, err := lock(tarball + ".import") // two test binaries may import it at once
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := cli.ImageInspect(ctx, name); err == nil {
		return name, nil
	}
	f, err := os.Open(tarball)
	if err != nil {
		return "", err
	}
	defer f.Close()
	rc, err := cli.ImageImport(ctx, client.ImageImportSource{Source: f, SourceName: "-"}, name, client.ImageImportOptions{})
	if err != nil {
		return "", fmt.Errorf("importing %s: %w", name, err)
	}
	_, err = io.Copy(io.Discard, rc)
	rc.Close()
	if err != nil {
		return "", fmt.Errorf("importing %s: %w", name, err)
	}
	return name, nil
}

// rootfs returns the cached tarball of the kind's root filesystem, building it when missing.
func rootfs(kind string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "agentbash", "images")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tarball := filepath.Join(dir, kind+".tar")
	unlock, err := lock(tarball)
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(tarball); err == nil {
		return tarball, nil
	}
	work, err := os.MkdirTemp(dir, kind+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	root := filepath.Join(work, "root")
	switch kind {
	case Box:
		err = buildBox(work, root)
	case Debian:
		err = buildDebian(root)
	default:
		err = fmt.Errorf("unknown image kind %q", kind)
	}
	if err != nil {
		return "", err
	}
	tmp := tarball + ".tmp"
	if err := run(work, "tar", "-C", root, "--numeric-owner", "-cf", tmp, "."); err != nil {
		return "", err
	}
	return tarball, os.Rename(tmp, tarball)
}

// buildBox unpacks busybox-static and bash-static (apt-get download, dpkg-deb -x) and links busybox's
// programs and bash, as README's "Run commands in containers" does by hand.
func buildBox(work, root string) error {
	if err := need("apt-get", "dpkg-deb", "tar"); err != nil {
		return err
	}
	if err := run(work, "apt-get", "download", "busybox-static", "bash-static"); err != nil {
		return err
	}
	debs, _ := filepath.Glob(filepath.Join(work, "*.deb"))
	for _, d := range debs {
		if err := run(work, "dpkg-deb", "-x", d, root); err != nil {
			return err
		}
	}
	bin := filepath.Join(root, "bin")
	out, err := exec.Command(filepath.Join(bin, "busybox"), "--list").Output()
	if err != nil {
		return fmt.Errorf("busybox --list: %w", err)
	}
	for _, name := range strings.Fields(string(out)) {
		if _, err := os.Lstat(filepath.Join(bin, name)); os.IsNotExist(err) {
			if err := os.Symlink("busybox", filepath.Join(bin, name)); err != nil {
				return err
			}
		}
	}
	if err := os.Symlink("bash-static", filepath.Join(bin, "bash")); err != nil {
		return err
	}
	for _, d := range []string{"tmp", "etc", "proc", "sys", "dev", "usr/bin", "root"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.Chmod(filepath.Join(root, "tmp"), 0o1777); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "etc", "passwd"), []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "etc", "group"), []byte("root:x:0:\nnogroup:x:65534:\n"), 0o644)
}

// buildDebian runs debootstrap --variant=minbase for this machine's release.
func buildDebian(root string) error {
	if err := need("debootstrap", "tar"); err != nil {
		return err
	}
	suite := "bookworm"
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VERSION_CODENAME="); ok && v != "" {
				suite = strings.Trim(v, `"`)
			}
		}
	}
	return run("", "debootstrap", "--variant=minbase", suite, root, "http://deb.debian.org/debian")
}

// Agent builds agentbash statically (CGO_ENABLED=0) into dir and returns its path: the agent a container
// runs (a test binary, or agentbash built with cgo, is linked dynamically).
func Agent(dir string) (string, error) {
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(dir, "agentbash")
	cmd := exec.Command("go", "build", "-o", path, "./cmd/agentbash")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the static agent: %v\n%s", err, out)
	}
	return path, nil
}

func need(programs ...string) error {
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			return &MissingError{Program: p}
		}
	}
	return nil
}

func run(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return nil
}

// lock takes an exclusive lock on path+".lock" (between processes) and returns its release.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
