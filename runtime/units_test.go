package runtime_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// unitSpec is a tool whose timeout is in unit, with a default of def (in that unit), and whose shell
// reports a signal as signalExit says.
func unitSpec(unit string, def float64, signalExit string) string {
	return fmt.Sprintf(`
id: units
title: t
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c], signal_exit: %s}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: timeout, type: number, role: timeout}
    timeout: {unit: %s, default: %v, expiry: kill}
    results:
      format: text
      cases:
        exit: {text: "exit {{.ExitCode}}"}
        timeout: {text: "timeout {{.TimeoutValue}}"}
`, signalExit, unit, def)
}

func unitEngine(t *testing.T, yaml string) *runtime.Engine {
	t.Helper()
	v, err := spec.Parse("units.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

func callUnits(t *testing.T, eng *runtime.Engine, params map[string]any) string {
	t.Helper()
	raw, _ := json.Marshal(params)
	res, err := eng.Call(bounded(t), "bash", raw)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	var s string
	if err := json.Unmarshal(res, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTimeoutUnit: a timeout is read in its spec's unit. A short one (0.3 s) ends `sleep 10` well within
// the test's bound, and a long one (3 s) lets `sleep 0.1` finish: read in the other unit, the first would
// wait 1000x longer and the second would cut the sleep after 3 ms. The default is in the unit too.
func TestTimeoutUnit(t *testing.T) {
	for _, c := range []struct {
		unit              string
		short, long       float64
		defShort, defLong float64
	}{
		{"s", 0.3, 3, 0.3, 3},
		{"ms", 300, 3000, 300, 3000},
	} {
		t.Run(c.unit, func(t *testing.T) {
			t.Parallel()
			for _, d := range []struct {
				name    string
				def     float64
				params  map[string]any
				want    string
				atLeast time.Duration
			}{
				{"short", 5, map[string]any{"command": "sleep 10", "timeout": c.short}, fmt.Sprintf("timeout %v", c.short), 300 * time.Millisecond},
				{"long", 5, map[string]any{"command": "sleep 0.1", "timeout": c.long}, "exit 0", 100 * time.Millisecond},
				{"default short", c.defShort, map[string]any{"command": "sleep 10"}, fmt.Sprintf("timeout %v", c.defShort), 300 * time.Millisecond},
				{"default long", c.defLong, map[string]any{"command": "sleep 0.1"}, "exit 0", 100 * time.Millisecond},
			} {
				eng := unitEngine(t, unitSpec(c.unit, d.def, "negative"))
				start := time.Now()
				got := callUnits(t, eng, d.params)
				took := time.Since(start)
				if got != d.want {
					t.Errorf("%s: %q, want %q", d.name, got, d.want)
				}
				// The answer comes after the timeout, and long before the sleep would have ended.
				if took < d.atLeast || took > 8*time.Second {
					t.Errorf("%s: answered after %v", d.name, took)
				}
			}
		})
	}
}

// TestSignalExitModes: the exit code each signal_exit mode reports for a shell ended by a signal, and an
// ordinary exit status left alone by every mode.
func TestSignalExitModes(t *testing.T) {
	for _, c := range []struct {
		mode         spec.SignalExit
		term, killed string
	}{
		{spec.SignalNegative, "exit -15", "exit -9"},
		{spec.SignalZero, "exit 0", "exit 0"},
		{spec.SignalMinusOne, "exit -1", "exit -1"},
		{spec.SignalShell, "exit 143", "exit 137"},
		{spec.SignalOne, "exit 1", "exit 1"},
	} {
		t.Run(string(c.mode), func(t *testing.T) {
			t.Parallel()
			eng := unitEngine(t, unitSpec("s", 10, string(c.mode)))
			for _, d := range []struct{ command, want string }{
				{"kill -TERM $$", c.term},
				{"kill -KILL $$", c.killed},
				{"exit 3", "exit 3"},
				{"exit 0", "exit 0"},
			} {
				if got := callUnits(t, eng, map[string]any{"command": d.command}); got != d.want {
					t.Errorf("%s: %q, want %q", d.command, got, d.want)
				}
			}
		})
	}
	// Every mode the spec language has is in the table.
	if n := strings.Count(unitModes(), ","); n != 4 {
		t.Errorf("the table covers 5 modes; the spec language has %d: %s", n+1, unitModes())
	}
}

// unitModes lists the signal_exit values the spec language declares (its JSON Schema enumeration).
func unitModes() string {
	f, _ := reflect.TypeFor[spec.Shell]().FieldByName("SignalExit")
	var out []string
	for _, part := range strings.Split(f.Tag.Get("jsonschema"), ",") {
		if v, ok := strings.CutPrefix(part, "enum="); ok {
			out = append(out, v)
		}
	}
	return strings.Join(out, ",")
}

// FuzzTimeoutKills: a command that sleeps past a short timeout (a few milliseconds, in either unit), in
// any of the shapes a shell can give it (a child, a background job waited for, a subshell, a nested
// shell, a job that leaves the process group), gets the timeout outcome, and nothing it started is alive
// afterwards. `make fuzz` runs it with fewer executions than the others (each one starts processes).
func FuzzTimeoutKills(f *testing.F) {
	for _, s := range []struct {
		ms    uint8
		shape uint8
		unit  bool
	}{{1, 0, false}, {5, 1, true}, {10, 2, false}, {3, 3, true}, {8, 4, false}, {2, 5, true}} {
		f.Add(s.ms, s.shape, s.unit)
	}
	engines := map[bool]*runtime.Engine{}
	for _, ms := range []bool{false, true} {
		unit := "s"
		if ms {
			unit = "ms"
		}
		v, err := spec.Parse("units.yaml", []byte(unitSpec(unit, 10, "negative")))
		if err != nil {
			f.Fatal(err)
		}
		eng, err := runtime.New(v, runtime.WithWorkspace(f.TempDir()))
		if err != nil {
			f.Fatal(err)
		}
		defer eng.Close()
		engines[ms] = eng
	}
	shapes := []string{
		"sleep %s",
		"sleep %s & wait",
		"(sleep %s)",
		"sh -c 'sleep %s'",
		"setsid sleep %s & wait",
		"nohup sleep %s >/dev/null 2>&1 & sleep %s",
	}
	f.Fuzz(func(t *testing.T, ms uint8, shape uint8, inMs bool) {
		wait := time.Duration(ms%20+1) * time.Millisecond
		mark := proctest.UniqueSleep()
		cmd := strings.ReplaceAll(shapes[int(shape)%len(shapes)], "%s", mark)
		timeout := wait.Seconds()
		want := fmt.Sprintf("timeout %v", timeout)
		if inMs {
			timeout = float64(wait.Milliseconds())
			want = fmt.Sprintf("timeout %v", timeout)
		}
		if got := callUnits(t, engines[inMs], map[string]any{"command": cmd, "timeout": timeout}); got != want {
			t.Errorf("%s with timeout %v: %q, want %q", cmd, timeout, got, want)
		}
		requireNoneAlive(t, mark)
	})
}
