package runtime_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/spec"
)

// hostChild is the environment variable that makes TestHostKilled run as the host to be killed; its value
// is the marker of its commands.
const hostChild = "AGENTBASH_TEST_HOST_CHILD"

// TestHostKilled: a host (this test binary run again) with the watchdog enabled runs a foreground call
// and a background shell whose child left the group; the test SIGKILLs the host, and nothing the host
// started is alive afterwards.
func TestHostKilled(t *testing.T) {
	if mark := os.Getenv(hostChild); mark != "" {
		hostForKill(mark)
		return
	}
	mark := proctest.UniqueSleep()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostKilled$", "-test.count=1")
	cmd.Env = append(os.Environ(), hostChild+"="+mark)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "ready") || strings.HasPrefix(line, "error") {
				ready <- line
			}
		}
		close(ready)
	}()
	var line string
	select {
	case line = <-ready:
	case <-time.After(30 * time.Second):
		line = "error: the host never got ready"
	}
	_ = cmd.Process.Kill() // SIGKILL: nothing runs in the host after this
	_ = cmd.Wait()
	if line != "ready" {
		requireNoneAlive(t, mark)
		t.Fatal(line)
	}
	requireNoneAlive(t, mark)
}

func hostForKill(mark string) {
	fail := func(format string, args ...any) {
		fmt.Printf("error "+format+"\n", args...)
		time.Sleep(20 * time.Second) // the test kills us
		os.Exit(1)
	}
	if err := proc.EnableWatchdog(); err != nil {
		fail("%v", err)
	}
	v, err := spec.Parse("test.yaml", []byte(timeoutSpec))
	if err != nil {
		fail("%v", err)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(os.TempDir()))
	if err != nil {
		fail("%v", err)
	}
	go func() {
		_, _ = eng.Call(context.Background(), "run", json.RawMessage(`{"command":"sleep `+mark+`"}`))
	}()
	raw, _ := json.Marshal(map[string]any{"command": "setsid sleep " + mark + " & sleep " + mark, "bg": true})
	if _, err := eng.Call(context.Background(), "run", raw); err != nil {
		fail("%v", err)
	}
	sleeps := func() (n int) {
		for _, pid := range proctest.WithCmdline(mark) {
			if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); string(b) == "sleep\x00"+mark+"\x00" {
				n++
			}
		}
		return n
	}
	if !pollFor(func() bool { return sleeps() == 3 && len(proctest.Escaped(mark)) == 1 }) {
		fail("the commands did not start: %d sleeps", sleeps())
	}
	fmt.Println("ready")
	time.Sleep(20 * time.Second) // the test kills us
	os.Exit(1)
}
