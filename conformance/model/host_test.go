package model_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/conformance/model"
	"github.com/agentbash/agentbash/internal/proctest"
)

// A host starts in the workspace with stdin on /dev/null, HOME, TMPDIR and the XDG directories in a
// directory of its own (removed by Close), its leading NAME=VALUE words in its environment, and its files
// written, placeholders replaced everywhere.
func TestStartHost(t *testing.T) {
	ws := t.TempDir()
	var out bytes.Buffer
	spec := model.HostSpec{
		Argv: []string{"GREETING=hi from {home}", "/bin/sh", "-c",
			`echo "$HOME|$TMPDIR|$XDG_CONFIG_HOME|$XDG_DATA_HOME|$GREETING|$1"; cat "$HOME/cfg/f"; echo; cat /etc/hostname-absent 2>/dev/null; pwd; tr "\\0" "\\n" < /proc/$$/environ | grep "^PWD="; cat; echo "<$(cat)>"; exit 7`,
			"sh", "{base_url}"},
		Env:    []string{"PATH=/usr/bin:/bin", "HOME=/root/not-this", "XDG_CONFIG_HOME=/not-this", "PWD=/not-this"},
		Files:  []model.File{{Path: "cfg/f", Content: "url={base_url} ws={workspace}"}, {Path: "{workspace}/in-ws", Content: "{home}"}},
		Stdout: &out,
	}
	h, err := model.StartHost(spec, model.Vars{BaseURL: "http://127.0.0.1:1/v1", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	<-h.Done()
	home := h.Home()
	dir := filepath.Dir(home)
	want := strings.Join([]string{
		home + "|" + dir + "/tmp|" + home + "/.config|" + home + "/.local/share|hi from " + home + "|http://127.0.0.1:1/v1",
		"url=http://127.0.0.1:1/v1 ws=" + ws,
		ws,
		"PWD=" + ws,
		"<>",
	}, "\n") + "\n"
	if out.String() != want {
		t.Errorf("the host printed\n%q\nwant\n%q", out.String(), want)
	}
	if got := h.ExitString(); got != "exit status 7" {
		t.Errorf("exit: %s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "in-ws")); string(b) != home {
		t.Errorf("the workspace file: %q", b)
	}
	h.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the host's directory is still there: %v", err)
	}
}

func TestStartHostErrors(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "file"), nil, 0o644)
	os.Mkdir(filepath.Join(ws, "dir"), 0o755)
	for _, tc := range []struct {
		spec model.HostSpec
		want string
	}{
		{model.HostSpec{Argv: []string{"A=b"}}, "has no command"},
		{model.HostSpec{Argv: []string{"/nonexistent/host"}}, "starting the host /nonexistent/host"},
		{model.HostSpec{Argv: []string{"/bin/true"}, Files: []model.File{{Path: "{workspace}/file/x", Content: "x"}}}, "writing the host's file"},
		{model.HostSpec{Argv: []string{"/bin/true"}, Files: []model.File{{Path: "{workspace}/dir", Content: "x"}}}, "is a directory"},
	} {
		_, err := model.StartHost(tc.spec, model.Vars{Workspace: ws})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.spec.Argv, err, tc.want)
		}
	}
}

// Kill ends the host and everything it started, even a child in a session of its own; Tree saw that
// child as the host's.
func TestHostKillAndTree(t *testing.T) {
	sleep := proctest.UniqueSleep()
	h, err := model.StartHost(model.HostSpec{Argv: []string{"/bin/sh", "-c", "setsid sleep " + sleep + " & echo started; wait"}}, model.Vars{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var child []int
	if !proctest.Poll(5*time.Second, func() bool { child = proctest.WithCmdline("sleep " + sleep); return len(child) == 1 }) {
		t.Fatalf("the child did not start: %v", child)
	}
	if tree := h.Tree(); tree[0] != h.Pid() || !slices.Contains(tree, child[0]) {
		t.Errorf("Tree %v lacks the host %d or its child %d", tree, h.Pid(), child[0])
	}
	h.Kill()
	if h.ExitString() != "killed" {
		t.Errorf("exit: %s", h.ExitString())
	}
	if !proctest.Poll(5*time.Second, func() bool { return len(proctest.WithCmdline("sleep "+sleep)) == 0 }) {
		t.Errorf("the child outlived the host")
	}
}
