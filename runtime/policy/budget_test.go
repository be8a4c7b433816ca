package policy

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/shellcorpus"
	"mvdan.cc/sh/v3/syntax"
)

// Performance budgets of one check of a 1 KB command: every shape of the shell policy
// (shellcorpus.Shapes, the shapes of BenchmarkShellShapes1KB) under 100 µs, every regex engine under 10 µs.
const (
	shellBudget = 100 * time.Microsecond
	regexBudget = 10 * time.Microsecond
)

// budgetRun says how hard TestBudgets measures: rounds of each measurement, each running the check for
// about per.
type budgetRun struct {
	rounds, retries int
	per             time.Duration
}

// budgetRuns are the settings of AGENTBASH_BUDGETS: 1 for `make bench` (the figures of record), quick for
// CI (a few seconds).
var budgetRuns = map[string]budgetRun{
	"1":     {rounds: 5, retries: 5, per: 200 * time.Millisecond},
	"quick": {rounds: 2, retries: 4, per: 30 * time.Millisecond},
}

// TestBudgets asserts the budgets. Timing depends on the machine and its load, so it runs only with
// AGENTBASH_BUDGETS=1 or =quick, never under -race.
//
// A figure is the process CPU time per check (user and system, so the garbage collector's work on other
// threads counts), over a loop of checks of about `per`: CPU time, unlike wall time, does not grow when
// other processes take the cores, and on an idle machine it is at least the wall time. The measurements
// are interleaved in rounds and the best round kept; a figure still over its budget is measured again, up
// to `retries` more rounds, before it fails. The wall time of the best round is logged beside it, and for
// each shell shape what mvdan.cc/sh alone takes to parse it (the floor of a check that
// shellsyntax.FastParse declines).
func TestBudgets(t *testing.T) {
	mode := os.Getenv("AGENTBASH_BUDGETS")
	run, ok := budgetRuns[mode]
	if !ok || raceEnabled {
		t.Skip("set AGENTBASH_BUDGETS=1 (make bench) or AGENTBASH_BUDGETS=quick (CI), not under -race, to check the timing budgets")
	}
	p := syntax.NewParser()
	parse := func(cmd string) func() { return func() { _, _ = p.Parse(strings.NewReader(cmd), "") } }
	all := func(cs []Checker, cmd string) func() {
		return func() {
			for _, c := range cs {
				c.Check(cmd)
			}
		}
	}
	shell := fuzzCheckers(t, "shell", "shell_guard")
	agentrail := compileFragment(t, "agentrail")
	ms := []*measure{
		{name: "toolregistry", f: all(fuzzCheckers(t, "toolregistry", "toolregistry_deny"), regexCommand), budget: regexBudget},
		{name: "tunacode", f: all(fuzzCheckers(t, "tunacode", "tunacode_destructive", "tunacode_security"), regexCommand), budget: regexBudget},
		{name: "codegensandbox", f: all(fuzzCheckers(t, "codegensandbox", "codegensandbox_deny"), regexCommand), budget: regexBudget},
		{name: "agentrail", f: all([]Checker{agentrail["agentrail_dangerous"], agentrail["agentrail_permissions"]}, regexCommand), budget: regexBudget},
	}
	for _, s := range shellcorpus.Shapes {
		for _, c := range shell {
			if v := c.Check(s.Cmd); !v.Allowed {
				t.Fatalf("shape %s is blocked: %s", s.Name, v.Message)
			}
		}
		ms = append(ms, &measure{name: "shell, " + s.Name, f: all(shell, s.Cmd), budget: shellBudget},
			&measure{name: "  mvdan.cc/sh parse", f: parse(s.Cmd)})
	}
	for round := 0; round < run.rounds; round++ {
		for _, m := range ms {
			m.round(run.per)
		}
	}
	for retry := 0; retry < run.retries; retry++ {
		over := false
		for _, m := range ms {
			if m.budget > 0 && m.cpu > m.budget {
				m.round(run.per)
				over = true
			}
		}
		if !over {
			break
		}
	}
	t.Logf("best of %d rounds (more for a figure over budget), %v of checks each, GOMAXPROCS %d:", run.rounds, run.per, runtime.GOMAXPROCS(0))
	t.Logf("%-22s %9s %9s %8s", "1 KB check", "CPU µs", "wall µs", "budget")
	for _, m := range ms {
		budget := ""
		if m.budget > 0 {
			budget = fmt.Sprintf("%8.0f", us(m.budget))
		}
		t.Logf("%-22s %9.1f %9.1f %8s", m.name, us(m.cpu), us(m.wall), budget)
		if m.budget > 0 && m.cpu > m.budget {
			t.Errorf("%s: %.1f µs of CPU per check after %d rounds, budget %v", m.name, us(m.cpu), m.rounds, m.budget)
		}
	}
}

// measure is one figure: the best CPU time per operation over its rounds, and that round's wall time.
type measure struct {
	name      string
	f         func()
	budget    time.Duration
	cpu, wall time.Duration
	rounds    int
}

// round runs f in a loop for about per (after one call to warm up) and keeps the figures if they are the
// best so far.
func (m *measure) round(per time.Duration) {
	m.f()
	runtime.GC()
	n := 0
	cpu0, wall0 := processCPU(), time.Now()
	for batch := 1; time.Since(wall0) < per; batch *= 2 {
		for range batch {
			m.f()
		}
		n += batch
	}
	cpu, wall := (processCPU()-cpu0)/time.Duration(n), time.Since(wall0)/time.Duration(n)
	if m.rounds == 0 || cpu < m.cpu {
		m.cpu, m.wall = cpu, wall
	}
	m.rounds++
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
