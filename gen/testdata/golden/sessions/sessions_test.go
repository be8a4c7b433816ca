package sessions_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/gen/testdata/golden/sessions"
	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/runtime"
)

func TestSchemas(t *testing.T) {
	defs := sessions.Definitions()
	params := []any{&sessions.StartParams{}, &sessions.SendParams{}, &sessions.ReadParams{}, &sessions.ListParams{}, &sessions.StopParams{}}
	if len(defs) != len(params) {
		t.Fatalf("%d definitions", len(defs))
	}
	for i, p := range params {
		reflected, err := toolschema.Reflect(p)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := toolschema.Summarize(reflected)
		want, _ := toolschema.Summarize(defs[i].InputSchema)
		for _, d := range toolschema.Diff(toolschema.Inferred(want), got) {
			t.Errorf("%s: %s", defs[i].Name, d)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// alive lists the live processes whose command line contains s.
func alive(s string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.Contains(b, []byte(s)) {
			out = append(out, pid)
		}
	}
	return out
}

// TestSessionAPI drives the typed session API end to end: a start that answers, one that becomes a
// session, a conversation through send, a read, the list, the limit, a stop, the typed errors, and Close.
func TestSessionAPI(t *testing.T) {
	tool, err := sessions.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	// A command that ends within the window: its exit, no session.
	res, err := tool.Start(ctx, sessions.StartParams{Command: "echo $SESSION_TOOL; exit 2"})
	if err != nil || res.Status != "exited" || res.ExitCode == nil || *res.ExitCode != 2 || res.SessionID != nil || res.Output != "1\n" || res.Tokens != 1 {
		t.Fatalf("Start: %+v, %v", res, err)
	}

	// A conversation: the first session is 100 (sequential from first_id).
	res, err = tool.Start(ctx, sessions.StartParams{Command: loop, WaitMs: ptr(300)})
	if err != nil || res.Status != "running" || res.SessionID == nil || *res.SessionID != 100 || res.Output != "ready\n" {
		t.Fatalf("Start: %+v, %v", res, err)
	}
	id := *res.SessionID
	sent, err := tool.Send(ctx, sessions.SendParams{SessionID: id, Text: ptr("one\ntwo\n"), WaitMs: ptr(500)})
	if err != nil || sent.Status != "running" || sent.Output != "got one\ngot two\n" {
		t.Fatalf("Send: %+v, %v", sent, err)
	}
	// The budget cuts what a window saw.
	sent, err = tool.Send(ctx, sessions.SendParams{SessionID: id, Text: ptr(strings.Repeat("x", 40) + "\n"), WaitMs: ptr(500)})
	if err != nil || sent.Output != "got "+strings.Repeat("x", 40)+"\n" || sent.Tokens != 12 {
		t.Fatalf("Send: %+v, %v", sent, err)
	}
	if out, err := tool.Read(ctx, sessions.ReadParams{SessionID: id}); err != nil || out != "" {
		t.Errorf("Read: %q, %v", out, err)
	}

	// A second session on a terminal fills the registry (max_live 2): a third start fails.
	marker := fmt.Sprintf("1000.%09d", rand.IntN(1e9))
	res, err = tool.Start(ctx, sessions.StartParams{Command: "sleep " + marker, TTY: ptr(true), WaitMs: ptr(50)})
	if err != nil || res.Status != "running" || *res.SessionID != 101 {
		t.Fatalf("Start on a terminal: %+v, %v", res, err)
	}
	list, err := tool.List(ctx, sessions.ListParams{})
	if err != nil || list != "100 running "+loop+"\n101 running sleep "+marker+"\n" {
		t.Errorf("List: %q, %v", list, err)
	}
	if got := tool.Sessions(); len(got) != 2 || !got[1].Tty || got[0].Tty {
		t.Errorf("Sessions: %+v", got)
	}
	_, err = tool.Start(ctx, sessions.StartParams{Command: "true"})
	var se *sessions.SessionError
	if !errors.As(err, &se) || se.Message != "at most 2 sessions" {
		t.Errorf("a start past the limit: %v", err)
	}

	// Stop ends the session and forgets it: a SIGKILLed shell reports 128+9 (signal_exit: shell).
	stopped, err := tool.Stop(ctx, sessions.StopParams{SessionID: 101})
	if err != nil || stopped.Stopped != 101 || stopped.ExitCode != 137 {
		t.Errorf("Stop: %+v, %v", stopped, err)
	}
	_, err = tool.Read(ctx, sessions.ReadParams{SessionID: 101})
	if !errors.As(err, &se) || se.Message != "no session 101" {
		t.Errorf("Read of a stopped session: %v", err)
	}

	// "quit" ends the loop: the window closes at the exit and reports it, and the session is forgotten.
	sent, err = tool.Send(ctx, sessions.SendParams{SessionID: id, Text: ptr("quit\n"), WaitMs: ptr(5000)})
	if err != nil || sent.Status != "exited" || sent.ExitCode == nil || *sent.ExitCode != 0 || sent.SessionID != nil {
		t.Fatalf("Send quit: %+v, %v", sent, err)
	}
	if _, err := tool.Send(ctx, sessions.SendParams{SessionID: id}); !errors.As(err, &se) || se.Message != "no session 100" {
		t.Errorf("Send to a session whose exit was reported: %v", err)
	}

	// A command that ends between calls: its output and its exit wait for the next read.
	res, err = tool.Start(ctx, sessions.StartParams{Command: "sleep 0.2; echo late; exit 3", WaitMs: ptr(50)})
	if err != nil || res.Status != "running" {
		t.Fatalf("Start: %+v, %v", res, err)
	}
	info, err := tool.WaitSession(ctx, strconv.Itoa(*res.SessionID))
	if err != nil || info.Running || info.ExitCode != 3 {
		t.Fatalf("WaitSession: %+v, %v", info, err)
	}
	out, err := tool.Read(ctx, sessions.ReadParams{SessionID: *res.SessionID})
	if err != nil || out != "late\n[exit 3]" {
		t.Errorf("Read after the exit: %q, %v", out, err)
	}

	// Close kills what is left.
	res, err = tool.Start(ctx, sessions.StartParams{Command: "sleep " + marker, WaitMs: ptr(50)})
	if err != nil || res.Status != "running" {
		t.Fatalf("Start: %+v, %v", res, err)
	}
	if err := tool.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(alive(marker)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if pids := alive(marker); len(pids) > 0 {
		t.Errorf("processes %v outlived Close", pids)
	}
}

// loop answers each line until "quit".
const loop = `echo ready; while read l; do [ "$l" = quit ] && exit 0; echo "got $l"; done`
