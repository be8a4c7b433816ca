package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/internal/dockertest"
)

// -executor and its flags: what they mean nothing without is refused as a usage error, before anything
// runs; an agent that is not a static build is refused naming the fix.
func TestExecutorFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"rye", "-image", "x", "--", "true"}, 2, "-image is for -executor docker"},
		{[]string{"rye", "-executor", "docker", "--", "true"}, 2, "-executor docker needs -image IMAGE"},
		{[]string{"rye", "-executor", "dokcer", "--", "true"}, 2, `unknown -executor "dokcer" (did you mean docker?)`},
		{[]string{"rye", "-executor", "docker", "-image", "x", "-memory", "lots", "--", "true"}, 2, "-memory: size \"lots\""},
		{[]string{"rye", "-executor", "docker", "-image", "x", "-pids", "0", "--", "true"}, 2, `-pids "0": want a positive count`},
		{[]string{"rye", "-executor", "docker", "-image", "x", "-cpus", "-1", "--", "true"}, 2, `-cpus "-1"`},
		{[]string{"rye", "-executor", "docker", "-image", "x", "-docker-workspaces", "nfs", "--", "true"}, 1, `workspaces "nfs": want bind or volume`},
		{[]string{"rye", "-executor", "docker", "-image", "x", "-docker-agent", "/bin/sh", "--", "true"}, 1, "CGO_ENABLED=0"},
		{[]string{"rye", "-executor", "docker", "-image", "x", "-docker-host", "ssh://me@far", "--", "true"}, 1, "ssh is not supported"},
	} {
		var out, errb bytes.Buffer
		code := cmdRun(tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("run %s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, errb.String(), tc.code, tc.want)
		}
	}
}

// The CLI end to end: `run -executor docker` answers from a container, and `conformance -executor docker`
// (the reference in containers) passes against `serve -executor docker` (the target in containers).
func TestExecutorDockerCommands(t *testing.T) {
	cli := dockertest.Local(t)
	agent := dockertest.Agent(t)
	image := dockertest.Image(t, cli, dockertest.Debian)
	ws := t.TempDir()
	docker := []string{"-executor", "docker", "-image", image, "-docker-agent", agent}
	var out, errb bytes.Buffer
	args := append(append([]string{"rye", "-workspace", ws}, docker...), "--", "cat /proc/1/comm; pwd")
	if code := cmdRun(args, &out, &errb); code != 0 || !strings.Contains(out.String(), `"stdout":"agentbash-agent\n`+ws+`\n"`) {
		t.Fatalf("run: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	args = append(append([]string{"codex", "-run", "stdout only|killed by a signal|session: a read answered|session: on a terminal|timeout with partial", "-time-scale", timeScale}, docker...), "--", os.Args[0], "agentbash-main", "serve", "codex", "-transport", "wire")
	args = append(args, docker...)
	code := cmdConformance(args, &out, &errb)
	m := countsLine.FindStringSubmatch(out.String())
	if code != 0 || m == nil || m[2] != "0" || m[1] == "0" {
		t.Fatalf("conformance: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	t.Logf("codex, both sides in containers: %s", strings.TrimSpace(m[0]))
}
