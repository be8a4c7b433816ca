package policy

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// Benchmarks: one check of a 1 KB command per engine (go test -run X -bench . ./runtime/policy/).

// command1KB repeats unit to 1024 bytes (padding with spaces).
func command1KB(unit string) string {
	var b strings.Builder
	for b.Len()+len(unit) <= 1024 {
		b.WriteString(unit)
	}
	for b.Len() < 1024 {
		b.WriteByte(' ')
	}
	return b.String()
}

var (
	// regexCommand passes every regex policy, so a check tries every rule.
	regexCommand = command1KB("git log --oneline -5 | grep -v foo | head -n 20 ")
	// shellCommand is a 1 KB script of lists and pipelines that shell_guard allows.
	shellCommand = command1KB(`git log --oneline -5 && echo "hello world" | grep -v foo; `)
	// nestedCommand is a 1 KB script of nested shells and substitutions that shell_guard allows.
	nestedCommand = command1KB(`bash -c "echo $(printf '%s' ok) | grep -c o" && x=$(date); `)
)

func benchCheckers(b *testing.B, c []Checker, cmd string) {
	if len(cmd) != 1024 {
		b.Fatalf("command is %d bytes", len(cmd))
	}
	for _, x := range c {
		if v := x.Check(cmd); !v.Allowed {
			b.Fatalf("benchmark command blocked: %s", v.Message)
		}
	}
	b.SetBytes(int64(len(cmd)))
	b.ReportAllocs()
	for b.Loop() {
		for _, x := range c {
			x.Check(cmd)
		}
	}
}

func BenchmarkToolregistry1KB(b *testing.B) {
	benchCheckers(b, fuzzCheckers(b, "toolregistry", "toolregistry_deny"), regexCommand)
}

func BenchmarkTunacode1KB(b *testing.B) {
	benchCheckers(b, fuzzCheckers(b, "tunacode", "tunacode_destructive", "tunacode_security"), regexCommand)
}

// BenchmarkTunacodeUnicode1KB is the Python dialect on a non-ASCII command (the subject is mapped).
func BenchmarkTunacodeUnicode1KB(b *testing.B) {
	cmd := command1KB("echo héllo wörld | grep ſ ")
	benchCheckers(b, fuzzCheckers(b, "tunacode", "tunacode_destructive", "tunacode_security"), cmd)
}

func BenchmarkCodegensandbox1KB(b *testing.B) {
	benchCheckers(b, fuzzCheckers(b, "codegensandbox", "codegensandbox_deny"), regexCommand)
}

func BenchmarkAgentrail1KB(b *testing.B) {
	cs := compileFragment(b, "agentrail", WithPermissions(HostPermissions{Deny: []string{"Bash(rm:*)"}, Allow: []string{"Bash(git:*)", "Bash(npm:*)"}}))
	benchCheckers(b, []Checker{cs["agentrail_dangerous"], cs["agentrail_permissions"]}, regexCommand)
}

func BenchmarkShell1KB(b *testing.B) {
	benchCheckers(b, fuzzCheckers(b, "shell", "shell_guard"), shellCommand)
}

// BenchmarkShellNested1KB is a 1 KB command whose words are nested scripts and substitutions.
func BenchmarkShellNested1KB(b *testing.B) {
	benchCheckers(b, fuzzCheckers(b, "shell", "shell_guard"), nestedCommand)
}

// BenchmarkParseOnly1KB is the floor of the shell policy: mvdan.cc/sh parsing the same command.
func BenchmarkParseOnly1KB(b *testing.B) {
	p := syntax.NewParser()
	b.SetBytes(int64(len(shellCommand)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Parse(strings.NewReader(shellCommand), ""); err != nil {
			b.Fatal(err)
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestBudgets checks the performance budgets of one check of a 1 KB command: regex engines under 10 µs,
// the shell policy under 100 µs. Timing depends on the machine and its load, so it runs only with
// AGENTBASH_BUDGETS=1 (and never under -race; `make bench` sets it). It measures process CPU time, interleaves
// the engines over 30 short rounds and keeps each one's best round, which is robust to other processes; it
// logs the parse-only floor and the nested-script command (which parses every nested script too) as well.
func TestBudgets(t *testing.T) {
	if os.Getenv("AGENTBASH_BUDGETS") != "1" || raceEnabled {
		t.Skip("set AGENTBASH_BUDGETS=1 (not under -race) to check timing budgets")
	}
	p := syntax.NewParser()
	shell := fuzzCheckers(t, "shell", "shell_guard")
	type m struct {
		name   string
		n      int
		f      func()
		budget time.Duration
		best   time.Duration
	}
	all := func(cs []Checker, cmd string) func() {
		return func() {
			for _, c := range cs {
				c.Check(cmd)
			}
		}
	}
	agentrail := compileFragment(t, "agentrail")
	ms := []*m{
		{name: "parse only (floor)", n: 100, f: func() { _, _ = p.Parse(strings.NewReader(shellCommand), "") }},
		{name: "shell", n: 100, f: all(shell, shellCommand), budget: 100 * time.Microsecond},
		{name: "shell, nested", n: 30, f: all(shell, nestedCommand)},
		{name: "toolregistry", n: 1000, f: all(fuzzCheckers(t, "toolregistry", "toolregistry_deny"), regexCommand), budget: 10 * time.Microsecond},
		{name: "tunacode", n: 1000, f: all(fuzzCheckers(t, "tunacode", "tunacode_destructive", "tunacode_security"), regexCommand), budget: 10 * time.Microsecond},
		{name: "codegensandbox", n: 1000, f: all(fuzzCheckers(t, "codegensandbox", "codegensandbox_deny"), regexCommand), budget: 10 * time.Microsecond},
		{name: "agentrail", n: 1000, f: all([]Checker{agentrail["agentrail_dangerous"], agentrail["agentrail_permissions"]}, regexCommand), budget: 10 * time.Microsecond},
	}
	for _, x := range ms {
		x.best = time.Hour
	}
	for round := 0; round < 30; round++ {
		for _, x := range ms {
			t0 := cpuTime()
			for i := 0; i < x.n; i++ {
				x.f()
			}
			if d := (cpuTime() - t0) / time.Duration(x.n); d < x.best {
				x.best = d
			}
		}
	}
	for _, x := range ms {
		t.Logf("%-20s %v per 1 KB check", x.name, x.best)
		if x.budget > 0 && x.best > x.budget {
			t.Errorf("%s: %v per check, budget %v", x.name, x.best, x.budget)
		}
	}
}
