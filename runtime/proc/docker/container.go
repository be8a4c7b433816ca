//go:build linux

package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/proc/agent"
)

// AgentPath is where the agent is in each container.
const AgentPath = "/.agentbash/" + agent.Name

// Error is a failure of the engine or the container that kept a run from starting; the runtime renders it
// as the tool's spawn error, with this message.
type Error struct {
	Op  string // what failed: "connect", "create", "start", ...
	Err error
}

func (e *Error) Error() string { return "docker: " + e.Op + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// starter is one engine's: its container, made on the first Start.
type starter struct {
	x     *Executor
	roots []string

	mu     sync.Mutex
	c      *box
	closed bool
}

// box is a running container and the agent's stream.
type box struct {
	id     string
	conn   *agent.Conn
	hijack client.HijackedResponse
	stderr *tailBuffer // what the agent wrote on its stderr
	copied sync.WaitGroup
}

// Start starts a run in the engine's container, making the container first when there is none (or the
// last one ended: the agent exited, or the container was removed).
func (s *starter) Start(spec proc.Spec) (*proc.Process, error) {
	b, err := s.box()
	if err != nil {
		return nil, err
	}
	return b.conn.Start(spec)
}

// ID returns the id of the engine's container ("" before the first call, and after Close).
func (s *starter) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil {
		return ""
	}
	return s.c.id
}

func (s *starter) box() (*box, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("docker: the engine is closed")
	}
	if s.c != nil {
		select {
		case <-s.c.conn.Done():
			// The container ended under us: its runs are finished as killed. Remove what is left, and
			// make another.
			s.x.remove(context.Background(), s.c.id)
			s.c = nil
		default:
			return s.c, nil
		}
	}
	b, err := s.x.create(s.roots)
	if err != nil {
		return nil, err
	}
	s.c = b
	return b, nil
}

// Close ends the engine's container: the agent's stream is closed (the agent kills every run and exits),
// and the container removed, with everything still in it.
func (s *starter) Close() error {
	s.mu.Lock()
	b := s.c
	s.c, s.closed = nil, true
	s.mu.Unlock()
	s.x.forget(s)
	if b == nil {
		return nil
	}
	b.conn.Close()
	s.x.remove(context.Background(), b.id)
	b.copied.Wait()
	return nil
}

// create makes, starts and attaches to a container for roots, and waits for its agent's hello.
func (x *Executor) create(roots []string) (*box, error) {
	ctx, cancel := context.WithTimeout(context.Background(), x.cfg.StartTimeout)
	defer cancel()
	x.sweepOnce.Do(func() { x.sweep(ctx) })

	labels := map[string]string{LabelOwner: x.owner.String(), LabelMachine: x.owner.machine}
	if len(roots) > 0 {
		labels[LabelWorkspace] = roots[0]
	}
	var mounts []mount.Mount
	var seed []string // the roots whose volume is new: copied in before the start
	for _, r := range roots {
		if !x.volume {
			mounts = append(mounts, mount.Mount{Type: mount.TypeBind, Source: r, Target: r})
			continue
		}
		name := x.VolumeName(r)
		if _, err := x.cli.VolumeInspect(ctx, name, client.VolumeInspectOptions{}); err != nil {
			if !cerrdefs.IsNotFound(err) {
				return nil, x.engineError("volume", err)
			}
			vl := map[string]string{LabelMachine: x.owner.machine, LabelWorkspace: r}
			if _, err := x.cli.VolumeCreate(ctx, client.VolumeCreateOptions{Name: name, Labels: vl}); err != nil {
				return nil, x.engineError("volume", err)
			}
			seed = append(seed, r)
		}
		mounts = append(mounts, mount.Mount{Type: mount.TypeVolume, Source: name, Target: r})
	}
	if !x.volume {
		mounts = append(mounts, mount.Mount{Type: mount.TypeBind, Source: x.agent, Target: AgentPath, ReadOnly: true})
	}
	res := container.Resources{Memory: x.cfg.Memory, NanoCPUs: int64(x.cfg.CPUs * 1e9)}
	if x.cfg.Memory > 0 {
		res.MemorySwap = x.cfg.Memory // no swap beyond the bound
	}
	if x.cfg.Pids > 0 {
		n := x.cfg.Pids
		res.PidsLimit = &n
	}
	cfg := &container.Config{
		Image: x.cfg.Image, Cmd: []string{AgentPath}, Entrypoint: []string{}, Env: []string{agent.Env + "=1"},
		User: x.cfg.User, WorkingDir: "/", Labels: labels,
		AttachStdin: true, AttachStdout: true, AttachStderr: true, OpenStdin: true, StdinOnce: true,
	}
	host := &container.HostConfig{
		NetworkMode: container.NetworkMode(x.cfg.Network), Mounts: mounts, Resources: res,
		LogConfig:  container.LogConfig{Type: "none"}, // the stream is the agent's protocol: log none of it
		AutoRemove: true,                              // an agent that exits (its host gone: end of stdin) takes its container with it
	}
	created, err := x.cli.ContainerCreate(ctx, client.ContainerCreateOptions{Config: cfg, HostConfig: host})
	if err != nil {
		return nil, x.engineError("create", err)
	}
	id := created.ID
	fail := func(op string, err error) (*box, error) {
		x.remove(context.Background(), id)
		for _, r := range seed {
			// Made for this container and maybe copied in part: the next one makes it anew.
			_, _ = x.cli.VolumeRemove(context.Background(), x.VolumeName(r), client.VolumeRemoveOptions{Force: true})
		}
		return nil, x.engineError(op, err)
	}
	if x.volume {
		if err := x.copyAgent(ctx, id); err != nil {
			return fail("copying the agent", err)
		}
		for _, r := range seed {
			if err := x.copyDir(ctx, id, r); err != nil {
				return fail("copying the workspace "+r, err)
			}
		}
	}
	att, err := x.cli.ContainerAttach(ctx, id, client.ContainerAttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return fail("attach", err)
	}
	b := &box{id: id, hijack: att.HijackedResponse, stderr: &tailBuffer{max: 4 << 10}}
	pr, pw := io.Pipe()
	b.copied.Add(1)
	go func() {
		defer b.copied.Done()
		_, err := stdcopy.StdCopy(pw, b.stderr, att.Reader)
		pw.CloseWithError(err)
	}()
	b.conn = agent.NewConn(pr, att.Conn, closerFunc(func() error {
		att.Close()
		return pr.Close()
	}))
	if _, err := x.cli.ContainerStart(ctx, id, client.ContainerStartOptions{}); err != nil {
		b.conn.Close()
		return fail("start", err)
	}
	if _, err := b.conn.Ready(ctx); err != nil {
		b.conn.Close()
		if msg := strings.TrimSpace(b.stderr.String()); msg != "" {
			err = fmt.Errorf("%w (the agent said: %s)", err, msg)
		}
		return fail("starting the agent", err)
	}
	return b, nil
}

// engineError names the engine in an error of the Engine API.
func (x *Executor) engineError(op string, err error) error {
	if client.IsErrConnectionFailed(err) {
		return &Error{Op: "connect", Err: fmt.Errorf("no Docker Engine at %s: %w", x.host, err)}
	}
	if cerrdefs.IsNotFound(err) && op == "create" {
		return &Error{Op: op, Err: fmt.Errorf("image %s: %w (build or pull it on the engine at %s)", x.cfg.Image, err, x.host)}
	}
	return &Error{Op: op, Err: err}
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// tailBuffer keeps the first max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := t.max - t.b.Len(); room > 0 {
		t.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

var _ = time.Second
