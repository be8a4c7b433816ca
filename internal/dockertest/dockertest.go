// Package dockertest gives tests what runs commands in containers needs: a Docker Engine (the local one,
// and a second one on TCP standing in for a remote engine), a static agentbash binary for the agent, and
// images built from Debian packages (internal/dockerimage: Box, busybox-static and bash-static, seconds to
// build; Debian, debootstrap's minbase of the machine's release, the same programs as this machine, for
// the conformance suite against the local reference, about half a minute once, then cached). A test
// skips, naming what is missing, only when no engine can be reached: .ci/docker starts them (as
// `make docker` does), or when $AGENTBASH_DOCKER is off (CI's other steps: they run in `make docker`). It
// is for tests only (it imports package testing).
package dockertest

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/agentbash/agentbash/internal/dockerimage"
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
	if why := dockerimage.Off(); why != "" {
		t.Skip(why)
	}
	addr := os.Getenv(TCPEnv)
	if addr == "" {
		t.Skipf("no second Docker Engine on TCP: $%s is not set (.ci/docker starts one on tcp://127.0.0.1:23750 and prints it)", TCPEnv)
	}
	return addr, connect(t, addr, "the Docker Engine at "+addr)
}

func connect(t testing.TB, host, what string) *client.Client {
	t.Helper()
	if why := dockerimage.Off(); why != "" {
		t.Skip(why)
	}
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
// agent the containers run (a test binary is linked dynamically when cgo is on). Under -short, which leaves
// out the tests that run the go command to compile, it skips the test.
func Agent(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the static agent is built with the go command (make docker runs these tests)")
	}
	agentOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentbash-agent-")
		if err != nil {
			agentErr = err
			return
		}
		agentPath, agentErr = dockerimage.Agent(dir)
	})
	if agentErr != nil {
		t.Fatal(agentErr)
	}
	return agentPath
}

// Image kinds (dockerimage's).
const (
	Box    = dockerimage.Box
	Debian = dockerimage.Debian
)

// Image returns the tag of an image of the kind on the engine, importing it when missing (see
// dockerimage); it skips the test naming a program the build needs that this machine lacks.
func Image(t testing.TB, cli *client.Client, kind string) string {
	t.Helper()
	name, err := dockerimage.Ensure(context.Background(), cli, kind)
	var missing *dockerimage.MissingError
	if errors.As(err, &missing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return name
}
