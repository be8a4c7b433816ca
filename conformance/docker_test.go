package conformance

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/agentbash/agentbash/internal/dockertest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/proc/docker"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// Running the commands in containers changes no contract: every built-in variant whose engine runs its
// commands in a container per workspace, on the local Docker Engine (the workspace bound), passes the
// whole suite against the reference on this machine (anthropic-bash's persistent shell too: one
// long-lived run whose stdin each call writes to); codegensandbox (background shells), codex (sessions)
// and anthropic-bash (the persistent shell) do on a second engine reached over TCP (the workspace a
// volume, made through the executor from the directory the suite set up). The image is debootstrap's
// minbase of this machine's release, so the programs are this machine's.
//
// Under the race detector (the whole suite of six variants twice takes minutes there) codegensandbox runs
// on the local engine and codex on the TCP one; `make docker` (CI) runs them all, without it.
func TestDockerBuiltins(t *testing.T) {
	cli := dockertest.Local(t)
	local, remote := variants.IDs(), []string{"codegensandbox", "codex", "anthropic-bash"}
	if raceEnabled {
		local, remote = []string{"codegensandbox"}, []string{"codex"}
		t.Log("under the race detector: codegensandbox locally and codex over TCP (make test-norace runs them all)")
	}
	t.Run("local", func(t *testing.T) { dockerSuites(t, cli, "", local) })
	t.Run("tcp", func(t *testing.T) {
		addr, cli := dockertest.TCP(t)
		dockerSuites(t, cli, addr, remote)
	})
}

func dockerSuites(t *testing.T, cli *client.Client, host string, ids []string) {
	agent := dockertest.Agent(t)
	x, err := docker.New(docker.Config{Image: dockertest.Image(t, cli, dockertest.Debian), Host: host, Agent: agent})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	volumes := func() int {
		f := make(client.Filters).Add("label", docker.LabelWorkspace)
		l, err := cli.VolumeList(context.Background(), client.VolumeListOptions{Filters: f})
		if err != nil {
			t.Fatal(err)
		}
		return len(l.Items)
	}
	before := volumes()
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			v := mustVariant(t, id)
			requireInContainer(t, id, x)
			r, err := Check(context.Background(), v, InProcess(v, runtime.WithExecutor(x)), Parallel(2), TimeScale(timeScale))
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed == 0 || !r.OK() {
				t.Errorf("summary:\n%s", r.Summary())
			}
			t.Logf("%s: %d passed, %d skipped, %d failed", id, r.Passed, r.Skipped, r.Failed)
		})
	}
	if after := volumes(); after != before {
		t.Errorf("%d workspace volumes before the suites, %d after", before, after)
	}
}

// requireInContainer makes sure an engine with the executor runs its commands in a container: its
// process 1 is the agent.
func requireInContainer(t *testing.T, id string, x *docker.Executor) {
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
	defer x.ResetWorkspace(ws) // after Close: the container holds the volume
	defer eng.Close()
	tool := v.Tools[0]
	params := map[string]any{}
	for _, p := range tool.Params {
		if p.Required && p.Type == "string" {
			params[p.Name] = "x"
		}
	}
	probe := "tr '\\0' ' ' </proc/1/cmdline" // NULs would read as binary output
	name, value, ok := tool.CommandArg(probe)
	if !ok {
		t.Fatalf("%s: its first tool takes no command", id)
	}
	params[name] = value
	b, _ := json.Marshal(params)
	res, err := eng.Call(context.Background(), tool.Name, b)
	if err != nil || !strings.Contains(string(res), docker.AgentPath) {
		t.Fatalf("not in a container: %s %v", res, err)
	}
}

// A spec that carries the shell's state across calls (carry: [cwd, env]) carries it in a container too: the
// state files the shell writes there come back with the run's end (proc.Spec.Writable).
func TestDockerCarry(t *testing.T) {
	cli := dockertest.Local(t)
	agent := dockertest.Agent(t)
	x, err := docker.New(docker.Config{Image: dockertest.Image(t, cli, dockertest.Debian), Agent: agent})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	v, err := spec.Parse("carry.yaml", []byte(carrySpec))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Check(context.Background(), v, InProcess(v, runtime.WithExecutor(x)), Filter(func(c Case) bool { return c.Group == "carry" }), TimeScale(timeScale))
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed == 0 || !r.OK() {
		t.Errorf("summary:\n%s", r.Summary())
	}
}
