package agentrail_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

// A call backgrounded at 200 ms keeps running in the engine's registry; its completion and its full output
// (including what came after the call returned) are visible there, and Close leaves nothing behind.
func TestBackgroundedCallCompletesInRegistry(t *testing.T) {
	v, err := variants.Spec("agentrail")
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	eng, err := runtime.New(v, runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	// The command waits on a file the test creates, so "after the call returned" needs no sleep.
	cmd := `echo before; while [ ! -e go ]; do sleep 0.05; done; echo after; echo err >&2; exit 7`
	params, _ := json.Marshal(map[string]any{"command": cmd, "timeout": 200})
	start := time.Now()
	res, err := eng.Call(behavior.Bounded(t), "Bash", params)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 200*time.Millisecond || el > 2*time.Second {
		t.Fatalf("call returned after %v, want about 200ms", el)
	}
	var out struct {
		Details struct {
			Mode   string `json:"mode"`
			Pid    int    `json:"pid"`
			Stdout string `json:"stdout"`
		} `json:"details"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatal(err)
	}
	if out.Details.Mode != "background" || out.Details.Stdout != "before\n" || out.Details.Pid <= 0 {
		t.Fatalf("result = %s", res)
	}
	id := strconv.Itoa(out.Details.Pid)
	if sh, ok := eng.Shell(id); !ok || !sh.Running {
		t.Fatalf("shell %s: %+v, %v", id, sh, ok)
	}
	if err := touch(ws + "/go"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(behavior.Bounded(t), 10*time.Second)
	defer cancel()
	sh, err := eng.WaitShell(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Running || sh.ExitCode != 7 || sh.Stdout != "before\nafter\n" || sh.Stderr != "err\n" {
		t.Fatalf("completed shell = %+v", sh)
	}
}

func touch(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return f.Close()
}
