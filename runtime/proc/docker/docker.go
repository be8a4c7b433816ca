//go:build linux

package docker

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/agentbash/agentbash/runtime/proc"
)

// Workspace modes: how a container sees the engine's workspace roots.
const (
	// WorkspacesAuto binds on a local engine (a unix socket) and uses volumes on any other.
	WorkspacesAuto = ""
	// WorkspacesBind bind-mounts each root, at its own path: the engine shares this machine's filesystem.
	WorkspacesBind = "bind"
	// WorkspacesVolume mounts a named volume per root, at the root's path, made from the root's directory
	// here when the volume is created (a remote engine, with no shared filesystem).
	WorkspacesVolume = "volume"
)

// Config configures the Docker executor.
type Config struct {
	// Image is the image the containers run (required): any image with the spec's shell. The agent is
	// added to each container; nothing else is needed.
	Image string
	// Host is the engine's address (unix:///var/run/docker.sock, tcp://HOST:PORT); empty means the
	// environment's (DOCKER_HOST, with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH) or the default socket.
	Host string
	// Memory bounds each container's memory in bytes (swap included: none is allowed beyond it); 0: no
	// bound.
	Memory int64
	// Pids bounds the number of processes in each container (the agent included); 0: no bound.
	Pids int64
	// CPUs bounds each container's CPU time, in CPUs (1.5: one and a half); 0: no bound.
	CPUs float64
	// Network is the containers' network: "none" (the default: a loopback only), "bridge", "host", or a
	// network's name.
	Network string
	// User runs the agent, and so every command, as this user (NAME, UID or UID:GID) instead of the
	// image's.
	User string
	// Agent is the path of the agentbash binary copied into each container as its agent: it must be
	// statically linked (CGO_ENABLED=0). Empty means this executable.
	Agent string
	// Workspaces is how containers see workspaces: WorkspacesAuto, WorkspacesBind or WorkspacesVolume.
	Workspaces string
	// StartTimeout bounds a container's start, from its creation to the agent's hello (default 60 s).
	StartTimeout time.Duration
}

// Executor runs each engine's commands in a container of its own on one Docker Engine (a proc.Executor).
// It is safe for concurrent use; Close closes its client once no engine uses it.
type Executor struct {
	cfg    Config
	cli    *client.Client
	host   string // the engine's address, for messages
	volume bool   // workspaces are volumes
	agent  string // the agent binary here
	owner  owner

	sweepOnce sync.Once

	mu       sync.Mutex
	starters map[*starter]bool
}

// New returns an executor for the engine cfg names. It does not connect yet: the first container does (and
// a failure then is the failing call's spawn error, naming what is missing).
func New(cfg Config) (*Executor, error) {
	if cfg.Image == "" {
		return nil, errors.New("docker: no image (-image): name one with the spec's shell in it")
	}
	switch cfg.Network {
	case "":
		cfg.Network = "none"
	case "none", "bridge", "host":
	default:
		if strings.ContainsFunc(cfg.Network, unicode.IsSpace) {
			return nil, fmt.Errorf("docker: network %q: not a network name", cfg.Network)
		}
	}
	if cfg.Memory < 0 || cfg.Pids < 0 || cfg.CPUs < 0 {
		return nil, errors.New("docker: -memory, -pids and -cpus cannot be negative")
	}
	if cfg.Memory > 0 && cfg.Memory < 6<<20 {
		return nil, fmt.Errorf("docker: -memory %d: the engine needs at least 6 MiB", cfg.Memory)
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 60 * time.Second
	}
	opts := []client.Opt{client.FromEnv}
	host := cfg.Host
	if host != "" {
		opts = append(opts, client.WithHost(host))
	} else if host = os.Getenv("DOCKER_HOST"); host == "" {
		host = client.DefaultDockerHost
	}
	u, err := url.Parse(host)
	if err != nil || u.Scheme == "" {
		return nil, fmt.Errorf("docker: engine address %q: want unix:///PATH or tcp://HOST:PORT", host)
	}
	if u.Scheme == "ssh" {
		return nil, fmt.Errorf("docker: engine address %q: ssh is not supported by the Engine API's Go client; forward the engine's socket (ssh -NL /tmp/docker.sock:/var/run/docker.sock HOST) and use unix:///tmp/docker.sock with -docker-workspaces volume", host)
	}
	x := &Executor{cfg: cfg, host: host, starters: map[*starter]bool{}}
	switch cfg.Workspaces {
	case WorkspacesAuto:
		x.volume = u.Scheme != "unix"
	case WorkspacesBind:
	case WorkspacesVolume:
		x.volume = true
	default:
		return nil, fmt.Errorf("docker: workspaces %q: want bind or volume", cfg.Workspaces)
	}
	if x.agent, err = agentPath(cfg.Agent); err != nil {
		return nil, err
	}
	if x.cli, err = client.New(opts...); err != nil {
		return nil, fmt.Errorf("docker: %w", err)
	}
	x.owner = self()
	return x, nil
}

// agentPath returns the agent binary to copy, checked static.
func agentPath(p string) (string, error) {
	if p == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("docker: the agent is this executable, which cannot be found: %w", err)
		}
		p = exe
	}
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	f, err := elf.Open(p)
	if err != nil {
		return "", fmt.Errorf("docker: the agent %s: %w", p, err)
	}
	defer f.Close()
	for _, ph := range f.Progs {
		if ph.Type == elf.PT_INTERP {
			return "", fmt.Errorf("docker: the agent %s is dynamically linked, and a container need not have its libraries: build agentbash with CGO_ENABLED=0 (make agent does), or name a static build with -docker-agent", p)
		}
	}
	return p, nil
}

// Config returns the executor's configuration, defaults filled.
func (x *Executor) Config() Config { return x.cfg }

// Host returns the engine's address.
func (x *Executor) Host() string { return x.host }

// Volumes reports whether the containers see workspaces as volumes (a remote engine).
func (x *Executor) Volumes() bool { return x.volume }

// Client returns the executor's Engine API client.
func (x *Executor) Client() *client.Client { return x.cli }

// Open returns the starter of one engine (proc.Executor): its container is created on its first Start,
// with the roots mounted at their own paths, and removed by its Close.
func (x *Executor) Open(roots []string) (proc.Starter, error) {
	s := &starter{x: x, roots: append([]string(nil), roots...)}
	x.mu.Lock()
	x.starters[s] = true
	x.mu.Unlock()
	return s, nil
}

// Close closes every starter still open (removing their containers) and the client.
func (x *Executor) Close() error {
	x.mu.Lock()
	var open []*starter
	for s := range x.starters {
		open = append(open, s)
	}
	x.mu.Unlock()
	for _, s := range open {
		_ = s.Close()
	}
	return x.cli.Close()
}

func (x *Executor) forget(s *starter) {
	x.mu.Lock()
	delete(x.starters, s)
	x.mu.Unlock()
}

// VolumeName is the name of the volume that holds workspace root on a remote engine: the same for every
// engine of this machine that serves the root, distinct per machine.
func (x *Executor) VolumeName(root string) string {
	h := sha256.Sum256([]byte(x.owner.machine + "\x00" + root))
	return "agentbash-ws-" + hex.EncodeToString(h[:10])
}

// ResetWorkspace removes the engine's copy of workspace root (a volume), so that the next container made
// for it copies the root's directory anew: the conformance suite calls it after setting a case's workspace
// up, and after the case. It does nothing when containers bind the roots themselves, and fails while a
// container uses the volume.
func (x *Executor) ResetWorkspace(root string) error {
	if !x.volume {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := x.cli.VolumeRemove(ctx, x.VolumeName(root), client.VolumeRemoveOptions{Force: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("docker: removing the volume of %s: %w", root, err)
	}
	return nil
}

// ParseBytes reads a size as Docker's flags write it: a number with an optional unit b, k, m or g (binary
// multiples; kb, mb, gb and KiB, MiB, GiB alike).
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10},
		{"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.m
			break
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || n < 0 || n*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("size %q: want a number with an optional unit b, k, m or g (512m, 1g)", s)
	}
	return int64(n * float64(mult)), nil
}
