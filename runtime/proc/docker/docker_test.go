//go:build linux

package docker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/agentbash/agentbash/internal/dockertest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/proc/docker"
	"github.com/agentbash/agentbash/variants"
)

// setup returns an executor on the local engine running image kind, with cfg's limits.
func setup(t *testing.T, kind string, cfg docker.Config) (*docker.Executor, *client.Client) {
	t.Helper()
	cli := dockertest.Local(t)
	if cfg.Host != "" {
		_, cli = dockertest.TCP(t)
	}
	cfg.Agent = dockertest.Agent(t)
	cfg.Image = dockertest.Image(t, cli, kind)
	x, err := docker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x, cli
}

// newEngine returns an engine of the variant id in a fresh workspace, with the executor.
func newEngine(t *testing.T, id string, x *docker.Executor) (*runtime.Engine, string) {
	t.Helper()
	v, err := variants.Spec(id)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	eng, err := runtime.New(v, runtime.WithWorkspace(ws), runtime.WithExecutor(x))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, ws
}

// call calls a tool and returns its result as text (a text tool's) or JSON.
func call(t *testing.T, eng *runtime.Engine, tool string, params map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(params)
	res, err := eng.Call(context.Background(), tool, b)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, b, err)
	}
	var text string
	if json.Unmarshal(res, &text) == nil {
		return text
	}
	return string(res)
}

// bash calls codegensandbox's Bash (combined output, "exit: N" for a failure).
func bash(t *testing.T, eng *runtime.Engine, command string, extra ...any) string {
	t.Helper()
	p := map[string]any{"command": command, "description": "test"}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i].(string)] = extra[i+1]
	}
	return call(t, eng, "Bash", p)
}

// containers lists the containers an engine of workspace ws has on the engine.
func containers(t *testing.T, cli *client.Client, ws string) []container.Summary {
	t.Helper()
	f := make(client.Filters).Add("label", docker.LabelWorkspace+"="+ws)
	l, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// only returns the id of the one container of workspace ws.
func only(t *testing.T, cli *client.Client, ws string) string {
	t.Helper()
	l := containers(t, cli, ws)
	if len(l) != 1 {
		t.Fatalf("%d containers for %s, want 1", len(l), ws)
	}
	return l[0].ID
}

// processes lists the command lines of the processes in container id, through the API (docker top), less
// the agent.
func processes(t *testing.T, cli *client.Client, id string) []string {
	t.Helper()
	top, err := cli.ContainerTop(context.Background(), id, client.ContainerTopOptions{Arguments: []string{"-eo", "pid,args"}})
	if err != nil {
		t.Fatalf("docker top %s: %v", id, err)
	}
	var out []string
	for _, p := range top.Processes {
		line := strings.Join(p, " ")
		if !strings.Contains(line, docker.AgentPath) {
			out = append(out, line)
		}
	}
	return out
}

// gone waits until container id is removed (its removal may be in progress), and fails if it is not.
func gone(t *testing.T, cli *client.Client, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := cli.ContainerWait(ctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionRemoved})
	select {
	case <-w.Result:
	case err := <-w.Error:
		if !cerrdefs.IsNotFound(err) {
			t.Fatalf("waiting for %s to be removed: %v", id, err)
		}
	}
	if _, err := cli.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Fatalf("container %s is still there (%v)", id, err)
	}
}

// The engine's commands run in its container: the workspace at its own path, the agent as init, no
// network; the container is made on the first call and removed by Close.
func TestDockerRuns(t *testing.T) {
	x, cli := setup(t, dockertest.Box, docker.Config{})
	eng, ws := newEngine(t, "codegensandbox", x)
	if l := containers(t, cli, ws); len(l) != 0 {
		t.Fatalf("a container before the first call: %v", l)
	}
	if err := os.WriteFile(filepath.Join(ws, "here.txt"), []byte("from the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ command, want string }{
		{"pwd; cat here.txt", ws + "\nfrom the host\n"},
		{"cat /proc/1/cmdline | tr '\\0' ' '; echo", docker.AgentPath + " \n"},
		{"echo out; echo err >&2; exit 3", "out\nerr\nexit: 3\n"},
		{"cat /sys/class/net/*/operstate 2>/dev/null | wc -l; ls /sys/class/net", "1\nlo\n"},
		{"echo made > new.txt", ""},
	} {
		if got := bash(t, eng, tc.command); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.command, got, tc.want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "new.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("a file the command wrote in the bound workspace: %q, %v", b, err)
	}
	id := only(t, cli, ws)
	eng.Close()
	gone(t, cli, id)
}

// No process of a run is left in the container: after a call whose command left processes behind (in and
// out of its group), after KillShell, after a session is killed; and Close leaves no container.
func TestDockerNoSurvivors(t *testing.T) {
	x, cli := setup(t, dockertest.Box, docker.Config{})
	eng, ws := newEngine(t, "codegensandbox", x)
	left := func(when string) {
		t.Helper()
		if p := processes(t, cli, only(t, cli, ws)); len(p) > 0 {
			t.Errorf("%s: left in the container: %v", when, p)
		}
	}
	bash(t, eng, "sleep 1000.1 & setsid sleep 1000.2 & (sleep 1000.3 &); echo started")
	left("after a call")
	out := bash(t, eng, "sleep 1000.4 & setsid sleep 1000.5 & sleep 1000.6", "run_in_background", true)
	id := strings.TrimPrefix(strings.SplitN(out, "\n", 2)[0], "shell_id: ")
	if p := processes(t, cli, only(t, cli, ws)); len(p) < 3 {
		t.Fatalf("the background shell's processes are not running: %v (%q)", p, out)
	}
	call(t, eng, "KillShell", map[string]any{"shell_id": id})
	left("after KillShell")

	ceng, cws := newEngine(t, "codex", x)
	out = call(t, ceng, "exec_command", map[string]any{"cmd": "setsid sleep 1000.7 & sleep 1000.8", "yield_time_ms": 300})
	s := ceng.Sessions()
	if len(s) != 1 {
		t.Fatalf("no session: %q", out)
	}
	if err := ceng.KillSession(s[0].ID); err != nil {
		t.Fatal(err)
	}
	if p := processes(t, cli, only(t, cli, cws)); len(p) > 0 {
		t.Errorf("after the session was killed: %v", p)
	}
	// Close with a background shell and a session running: both die with the container.
	bash(t, eng, "sleep 1000.9", "run_in_background", true)
	call(t, ceng, "exec_command", map[string]any{"cmd": "sleep 1000.10", "yield_time_ms": 250})
	ids := []string{only(t, cli, ws), only(t, cli, cws)}
	eng.Close()
	ceng.Close()
	for _, id := range ids {
		gone(t, cli, id)
	}
}

// A host SIGKILLed with a background shell running leaves no container once a new host has started: the
// agent ends with its stream, and the new host removes the containers whose host is gone.
func TestDockerHostKilled(t *testing.T) {
	x, cli := setup(t, dockertest.Box, docker.Config{})
	ws := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDockerHostHelper$")
	cmd.Env = append(os.Environ(), "AGENTBASH_DOCKER_HOST_HELPER="+ws, "AGENTBASH_DOCKER_HOST_IMAGE="+x.Config().Image,
		"AGENTBASH_DOCKER_HOST_AGENT="+x.Config().Agent)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 256)
	n, _ := out.Read(line)
	if !strings.HasPrefix(string(line[:n]), "running") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the helper host said %q", line[:n])
	}
	id := only(t, cli, ws)
	if p := processes(t, cli, id); len(p) == 0 {
		t.Fatal("the helper's background shell is not running")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	// A new host starts (its first call).
	eng, _ := newEngine(t, "codegensandbox", x)
	bash(t, eng, "true")
	gone(t, cli, id)
}

// TestDockerHostHelper is the host TestDockerHostKilled kills: an engine with a background shell.
func TestDockerHostHelper(t *testing.T) {
	ws := os.Getenv("AGENTBASH_DOCKER_HOST_HELPER")
	if ws == "" {
		t.Skip("the host TestDockerHostKilled starts and kills")
	}
	x, err := docker.New(docker.Config{Image: os.Getenv("AGENTBASH_DOCKER_HOST_IMAGE"), Agent: os.Getenv("AGENTBASH_DOCKER_HOST_AGENT")})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	v, _ := variants.Spec("codegensandbox")
	eng, err := runtime.New(v, runtime.WithWorkspace(ws), runtime.WithExecutor(x))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	res, err := eng.Call(context.Background(), "Bash", json.RawMessage(`{"command":"sleep 1000.11","description":"x","run_in_background":true}`))
	if err != nil {
		fmt.Println("error:", err, string(res))
		return
	}
	fmt.Println("running")
	select {} // until killed
}

// The sweep: a container whose host is gone (its owner's pid has no process, or a later one) is removed
// when another host makes its first container; one whose host lives is not.
func TestDockerSweep(t *testing.T) {
	x, cli := setup(t, dockertest.Box, docker.Config{})
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(owner string) string {
		c, err := cli.ContainerCreate(context.Background(), client.ContainerCreateOptions{
			Config: &container.Config{Image: x.Config().Image, Cmd: []string{"sleep", "1000.12"},
				Labels: map[string]string{docker.LabelOwner: owner, docker.LabelMachine: docker.Self().Machine()}},
			HostConfig: &container.HostConfig{NetworkMode: "none"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.ContainerStart(context.Background(), c.ID, client.ContainerStartOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cli.ContainerRemove(context.Background(), c.ID, client.ContainerRemoveOptions{Force: true}) })
		return c.ID
	}
	me := docker.Self()
	stale := mk(me.WithPid(dead.Process.Pid, "1").String())
	live := mk(me.String())
	eng, _ := newEngine(t, "codegensandbox", x)
	bash(t, eng, "true")
	gone(t, cli, stale)
	if _, err := cli.ContainerInspect(context.Background(), live, client.ContainerInspectOptions{}); err != nil {
		t.Errorf("the sweep removed a container whose host lives: %v", err)
	}
}

// A container that ends under the engine (removed by someone else) fails the runs in it as killed, and the
// next call makes another.
func TestDockerContainerLost(t *testing.T) {
	x, cli := setup(t, dockertest.Box, docker.Config{})
	eng, ws := newEngine(t, "codegensandbox", x)
	bash(t, eng, "true")
	first := only(t, cli, ws)
	if _, err := cli.ContainerRemove(context.Background(), first, client.ContainerRemoveOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	gone(t, cli, first)
	if got := bash(t, eng, "echo again"); got != "again\n" {
		t.Fatalf("after the container was lost: %q", got)
	}
	if second := only(t, cli, ws); second == first {
		t.Fatal("the same container")
	}
}

// Limits hold: a command that allocates past -memory is killed, and answered as a run killed by SIGKILL
// is; -pids bounds the processes; -network none refuses a connect that the host's network allows.
func TestDockerLimits(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		x, _ := setup(t, dockertest.Box, docker.Config{Memory: 64 << 20})
		eng, _ := newEngine(t, "codegensandbox", x)
		got := bash(t, eng, "x=$(head -c 300000000 /dev/zero | tr '\\0' a); echo ${#x}")
		want := bash(t, eng, "kill -KILL $$")
		if got != want {
			t.Errorf("an allocation past -memory: got %q, want %q (a run killed by SIGKILL)", got, want)
		}
	})
	t.Run("pids", func(t *testing.T) {
		count := `perl -e 'my $n = 0; for (1..60) { my $p = fork; if (!defined $p) { print "fork: $!\n"; last } if (!$p) { sleep 1000; exit } $n++ } print "forked $n\n"'`
		for _, tc := range []struct {
			pids int64
			max  int
		}{{0, 60}, {20, 19}} {
			x, _ := setup(t, dockertest.Debian, docker.Config{Pids: tc.pids})
			eng, _ := newEngine(t, "codegensandbox", x)
			out := bash(t, eng, count)
			var n int
			if _, err := fmt.Sscanf(out[strings.Index(out, "forked"):], "forked %d", &n); err != nil {
				t.Fatalf("-pids %d: %q", tc.pids, out)
			}
			if tc.pids == 0 && n != 60 || tc.pids > 0 && (n >= tc.max || !strings.Contains(out, "Resource temporarily unavailable")) {
				t.Errorf("-pids %d: %q", tc.pids, out)
			}
		}
	})
	t.Run("network", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		for _, tc := range []struct{ network, want string }{{"none", "refused"}, {"host", "connected"}} {
			x, _ := setup(t, dockertest.Box, docker.Config{Network: tc.network})
			eng, _ := newEngine(t, "codegensandbox", x)
			got := bash(t, eng, "(echo hi > /dev/tcp/127.0.0.1/"+port+") 2>/dev/null && echo connected || echo refused")
			if got != tc.want+"\n" {
				t.Errorf("-network %s: %q, want %q", tc.network, got, tc.want)
			}
		}
	})
}

// What keeps a call from starting is its spawn error, naming what is missing: an image the engine lacks,
// an engine that does not answer.
func TestDockerSpawnErrors(t *testing.T) {
	agent := dockertest.Agent(t)
	for _, tc := range []struct {
		cfg  docker.Config
		want string
	}{
		{docker.Config{Image: "agentbash-test/none:0", Agent: agent}, "image agentbash-test/none:0"},
		{docker.Config{Image: "x", Host: "tcp://127.0.0.1:1", Agent: agent}, "no Docker Engine at tcp://127.0.0.1:1"},
	} {
		if tc.cfg.Host == "" {
			dockertest.Local(t)
		}
		x, err := docker.New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		eng, _ := newEngine(t, "codegensandbox", x)
		// codegensandbox raises a spawn error as a ToolError.
		_, err = eng.Call(context.Background(), "Bash", json.RawMessage(`{"command":"true","description":"x"}`))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want it to name %q", tc.cfg, err, tc.want)
		}
		x.Close()
	}
	if _, err := docker.New(docker.Config{Image: "x", Agent: "/bin/sh"}); err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("a dynamically linked agent: %v", err)
	}
}

// On a remote engine (TCP) each workspace is a volume, made from the workspace's directory here (links to
// the parent included) when first needed; what the commands write stays in it, across engines, until it is
// reset.
func TestDockerRemoteWorkspace(t *testing.T) {
	addr, cli := dockertest.TCP(t)
	x, _ := setup(t, dockertest.Box, docker.Config{Host: addr})
	if !x.Volumes() {
		t.Fatal("a TCP engine without volumes")
	}
	eng, ws := newEngine(t, "codegensandbox", x)
	t.Cleanup(func() { x.ResetWorkspace(ws) })
	os.Mkdir(filepath.Join(ws, "sub"), 0o755)
	os.WriteFile(filepath.Join(ws, "sub", "f.txt"), []byte("seed\n"), 0o644)
	os.Symlink("..", filepath.Join(ws, "up"))
	if got := bash(t, eng, "cat sub/f.txt; readlink up; pwd; echo remote > only-there.txt"); got != "seed\n..\n"+ws+"\n" {
		t.Fatalf("got %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "only-there.txt")); err == nil {
		t.Fatal("a file written in the volume appeared here")
	}
	eng.Close()
	v, err := variants.Spec("codegensandbox")
	if err != nil {
		t.Fatal(err)
	}
	again, err := runtime.New(v, runtime.WithWorkspace(ws), runtime.WithExecutor(x))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got := bash(t, again, "cat only-there.txt"); got != "remote\n" {
		t.Fatalf("the volume did not keep the file: %q", got)
	}
	again.Close()
	if err := x.ResetWorkspace(ws); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.VolumeInspect(context.Background(), x.VolumeName(ws), client.VolumeInspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Fatalf("the volume is still there: %v", err)
	}
}
