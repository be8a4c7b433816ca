package runtime_test

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/proc/agent"
)

// agentExecutor runs an engine's commands through an agent served in this process (agent.Serve over
// pipes): the protocol a container's agent speaks, without the container.
type agentExecutor struct{}

func (x agentExecutor) Open([]string) (proc.Starter, error) {
	toAgent, fromHost := io.Pipe()
	fromAgent, toHost := io.Pipe()
	served := make(chan struct{})
	go func() {
		agent.Serve(toAgent, toHost)
		toHost.Close()
		close(served)
	}()
	c := agent.NewConn(fromAgent, fromHost, closeAll{fromHost, fromAgent})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Ready(ctx); err != nil {
		return nil, err
	}
	return agentStarter{c, served}, nil
}

type agentStarter struct {
	c      *agent.Conn
	served chan struct{}
}

func (s agentStarter) Start(ps proc.Spec) (*proc.Process, error) { return s.c.Start(ps) }

func (s agentStarter) Close() error {
	err := s.c.Close()
	<-s.served
	return err
}

type closeAll []io.Closer

func (cs closeAll) Close() error {
	for _, c := range cs {
		c.Close()
	}
	return nil
}

// A persistent shell runs through an executor (the agent protocol, as in a container) as it runs here:
// the same calls give the same answers (the command's stderr with its call, not the next one's, though
// the agent reads the two pipes apart), a timeout kills the shell's group, and Close ends it.
func TestPersistentThroughAgent(t *testing.T) {
	eng, ws := newEngine(t, persistentSpec, runtime.WithExecutor(agentExecutor{}))
	persistentSteps(t, eng, ws)
	for i := range 30 {
		n := strconv.Itoa(i)
		got, err := callText(t, eng, `{"command":"echo out`+n+`; echo err`+n+` >&2"}`)
		if want := "ok|out" + n + "|err" + n; err != nil || got != want {
			t.Fatalf("call %d: %q %v, want %q", i, got, err, want)
		}
	}
	mark := proctest.UniqueSleep()
	if got, err := callText(t, eng, `{"command":"sleep `+mark+`"}`); err != nil || got != "timeout 2" {
		t.Fatalf("a call past the timeout: %q %v", got, err)
	}
	if !proctest.Poll(5*time.Second, func() bool { return len(proctest.WithCmdline("sleep "+mark)) == 0 }) {
		t.Fatal("the sleep survived the timeout")
	}
	if got, err := callText(t, eng, `{"restart":true}`); err != nil || got != "restarted" {
		t.Fatalf("restart: %q %v", got, err)
	}
	got, err := callText(t, eng, `{"command":"echo $$; sleep `+mark+` >/dev/null 2>&1 & echo up"}`)
	if err != nil || !strings.HasSuffix(got, "\nup|") {
		t.Fatalf("after the restart: %q %v", got, err)
	}
	eng.Close()
	if !proctest.Poll(5*time.Second, func() bool { return len(proctest.WithCmdline("sleep "+mark)) == 0 }) {
		t.Fatal("Close left the shell's child running")
	}
}
