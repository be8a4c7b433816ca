package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	goruntime "runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
)

// soakCalls is the environment variable setting TestSoak's number of calls (make soak: 2,000).
const soakCalls = "AGENTBASH_SOAK_CALLS"

// soakOp is one kind of call of the soak: it returns the name of its outcome, or an error if the answer is
// not the variant's.
type soakOp struct {
	name    string
	variant string
	run     func(ctx context.Context, eng *runtime.Engine, sleep string) (string, error)
}

// soakOps mixes, across the built-in variants, quick commands, output, immediate and real timeouts,
// cancelled calls, background shells (polled, killed, left running for Close), timeouts moved to the
// background, and escapes from the process group.
func soakOps() []soakOp {
	call := func(ctx context.Context, eng *runtime.Engine, tool string, params map[string]any) (json.RawMessage, error) {
		raw, _ := json.Marshal(params)
		return eng.Call(ctx, tool, raw)
	}
	expect := func(res json.RawMessage, err error, want string) (string, error) {
		var te *runtime.ToolError
		switch {
		case errors.As(err, &te):
			if strings.Contains(te.Message, want) {
				return te.Type, nil
			}
			return "", fmt.Errorf("%v, want %q", err, want)
		case err != nil:
			return "", err
		case !strings.Contains(string(res), want):
			return "", fmt.Errorf("%s, want %q", res, want)
		}
		return "ok", nil
	}
	return []soakOp{
		{"echo", "rye", func(ctx context.Context, eng *runtime.Engine, _ string) (string, error) {
			res, err := call(ctx, eng, "bash", map[string]any{"command": "echo hi; echo err >&2"})
			return expect(res, err, `"output":"hi\n\n[stderr]\nerr\n"`)
		}},
		{"output 200 KB", "rye", func(ctx context.Context, eng *runtime.Engine, _ string) (string, error) {
			res, err := call(ctx, eng, "bash", map[string]any{"command": "head -c 200000 /dev/zero | tr '\\0' x"})
			return expect(res, err, `"truncated":true`)
		}},
		{"timeout 0 expires at once", "rye", func(ctx context.Context, eng *runtime.Engine, sleep string) (string, error) {
			res, err := call(ctx, eng, "bash", map[string]any{"command": "sleep " + sleep, "timeout": 0})
			return expect(res, err, "Command timed out after 0 seconds")
		}},
		{"timeout 1 s", "toolregistry", func(ctx context.Context, eng *runtime.Engine, sleep string) (string, error) {
			res, err := call(ctx, eng, "bash", map[string]any{"command": "sleep " + sleep, "timeout": 1})
			return expect(res, err, `"timed_out":true`)
		}},
		{"exit status", "toolregistry", func(ctx context.Context, eng *runtime.Engine, _ string) (string, error) {
			res, err := call(ctx, eng, "bash", map[string]any{"command": "echo x; exit 3"})
			return expect(res, err, "x")
		}},
		{"cancel", "rye", func(ctx context.Context, eng *runtime.Engine, sleep string) (string, error) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(time.Duration(rand.IntN(20))*time.Millisecond, cancel)
			_, err := call(ctx, eng, "bash", map[string]any{"command": "sleep " + sleep})
			if !errors.Is(err, context.Canceled) {
				return "", fmt.Errorf("cancelled call: %v", err)
			}
			return "canceled", nil
		}},
		{"escape", "codegensandbox", func(ctx context.Context, eng *runtime.Engine, sleep string) (string, error) {
			res, err := call(ctx, eng, "Bash", map[string]any{"command": "setsid sleep " + sleep + " & echo hi", "description": "d"})
			return expect(res, err, `"hi\n"`)
		}},
		{"background polled and killed", "codegensandbox", func(ctx context.Context, eng *runtime.Engine, sleep string) (string, error) {
			res, err := call(ctx, eng, "Bash", map[string]any{"command": "echo started; sleep " + sleep, "description": "d", "run_in_background": true})
			if _, err := expect(res, err, "shell_id: "); err != nil {
				return "", err
			}
			id := strings.TrimPrefix(strings.SplitN(string(res), `\n`, 2)[0], `"shell_id: `)
			res, err = call(ctx, eng, "BashOutput", map[string]any{"shell_id": id})
			if _, err := expect(res, err, "status: "); err != nil {
				return "", err
			}
			res, err = call(ctx, eng, "KillShell", map[string]any{"shell_id": id})
			return expect(res, err, id)
		}},
		{"background left for Close", "codegensandbox", func(ctx context.Context, eng *runtime.Engine, sleep string) (string, error) {
			res, err := call(ctx, eng, "Bash", map[string]any{"command": "sleep " + sleep, "description": "d", "run_in_background": true})
			return expect(res, err, "shell_id: ")
		}},
		{"timeout moves to the background", "agentrail", func(ctx context.Context, eng *runtime.Engine, sleep string) (string, error) {
			res, err := call(ctx, eng, "Bash", map[string]any{"command": "echo early; sleep " + sleep, "timeout": rand.IntN(30)})
			return expect(res, err, `"mode":"background"`)
		}},
		{"agentrail quick", "agentrail", func(ctx context.Context, eng *runtime.Engine, _ string) (string, error) {
			res, err := call(ctx, eng, "Bash", map[string]any{"command": "echo hi"})
			return expect(res, err, `"stdout":"hi\n"`)
		}},
		{"tunacode strip", "tunacode", func(ctx context.Context, eng *runtime.Engine, _ string) (string, error) {
			res, err := call(ctx, eng, "bash", map[string]any{"command": "printf '  hi  '"})
			return expect(res, err, "hi")
		}},
		{"tunacode timeout", "tunacode", func(ctx context.Context, eng *runtime.Engine, sleep string) (string, error) {
			res, err := call(ctx, eng, "bash", map[string]any{"command": "sleep " + sleep, "timeout": 1})
			return expect(res, err, "Command timed out after 1 seconds")
		}},
	}
}

// TestSoak runs a few hundred mixed calls (AGENTBASH_SOAK_CALLS, 300 by default) on four workers over one
// long-lived engine per built-in variant, closes the engines, and checks that no process, descriptor or
// goroutine is left. It logs the figures (make soak runs 2,000 calls and prints them).
func TestSoak(t *testing.T) {
	n := 300
	if s := os.Getenv(soakCalls); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n <= 0 {
			t.Fatalf("%s=%q", soakCalls, s)
		}
	}
	// Warm-up: one call per engine kind, so that what a process opens once is open before the counts.
	warm := builtin(t, "rye")
	if _, err := warm.Call(context.Background(), "bash", json.RawMessage(`{"command":"true"}`)); err != nil {
		t.Fatal(err)
	}
	warm.Close()
	goruntime.GC()
	g0, f0, c0 := goruntime.NumGoroutine(), openFDs(), len(childrenOf())

	mark := proctest.UniqueSleep()[len("1000."):] // every sleep of the soak: 5.<mark> seconds
	sleep := "5." + mark
	engines := map[string]*runtime.Engine{}
	for _, id := range variants.IDs() {
		v, err := variants.Spec(id)
		if err != nil {
			t.Fatal(err)
		}
		if engines[id], err = runtime.New(v, runtime.WithWorkspace(t.TempDir())); err != nil {
			t.Fatal(err)
		}
	}
	ops := soakOps()
	var mu sync.Mutex
	outcomes := map[string]int{}
	var failures []string
	var peakG, peakF int
	jobs := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				op := ops[i%len(ops)]
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				outcome, err := op.run(ctx, engines[op.variant], sleep)
				cancel()
				mu.Lock()
				if err != nil {
					failures = append(failures, fmt.Sprintf("call %d (%s/%s): %v", i, op.variant, op.name, err))
				} else {
					outcomes[op.name+": "+outcome]++
				}
				peakG, peakF = max(peakG, goruntime.NumGoroutine()), max(peakF, openFDs())
				mu.Unlock()
			}
		}()
	}
	for _, i := range rand.Perm(n) {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	callsTook := time.Since(start)
	live := 0
	for _, eng := range engines {
		for _, sh := range eng.Shells() {
			if sh.Running {
				live++
			}
		}
	}
	for _, eng := range engines {
		eng.Close()
	}

	gone := func() bool {
		return goruntime.NumGoroutine() <= g0 && openFDs() <= f0 && len(childrenOf()) <= c0 && len(proctest.WithCmdline(mark)) == 0
	}
	settled := pollFor(gone)
	keys := make([]string, 0, len(outcomes))
	for k := range outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "soak: %d calls in %v (4 workers), %d failed; %d background shells running at Close\n", n, callsTook.Round(time.Millisecond), len(failures), live)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %5d  %s\n", outcomes[k], k)
	}
	fmt.Fprintf(&b, "  goroutines: %d before, %d at peak, %d after\n", g0, peakG, goruntime.NumGoroutine())
	fmt.Fprintf(&b, "  open descriptors: %d before, %d at peak, %d after\n", f0, peakF, openFDs())
	fmt.Fprintf(&b, "  child processes: %d before, %d after; processes of the soak alive after: %d\n", c0, len(childrenOf()), len(proctest.WithCmdline(mark)))
	t.Log(b.String())
	for i, f := range failures {
		if i == 10 {
			t.Errorf("... and %d more failures", len(failures)-10)
			break
		}
		t.Error(f)
	}
	if !settled {
		requireNoneAlive(t, mark)
		t.Errorf("left behind: goroutines %d (was %d), descriptors %d (was %d), children %v", goruntime.NumGoroutine(), g0, openFDs(), f0, childrenOf())
	}
}
