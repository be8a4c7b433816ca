package main

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/agentbash/agentbash/internal/shellcorpus"
	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
	"mvdan.cc/sh/v3/syntax"
)

// Policy budgets: one check of a 1 KB command, in CPU time.
const (
	shellBudget = 100 * time.Microsecond
	regexBudget = 10 * time.Microsecond
)

// regexCommand is the 1 KB command the deny-list engines check (allowed by each).
var regexCommand = shellcorpus.Command1KB("git log --oneline -5 | grep -v foo | head -n 20 ")

// policies measures each variant's policies on a 1 KB command they allow, and the library shell policy
// (shell_guard) on every shape of 1 KB command, beside what mvdan.cc/sh alone takes to parse it (the
// floor of a check the fast parser declines). A figure is the process CPU time per check (user and
// system: the collector's work on other threads counts; unlike wall time it does not grow when other
// processes take the cores), best of interleaved rounds; a figure over its budget is measured again.
func policies(e *env) ([]*row, error) {
	type subject struct {
		m      measure
		budget time.Duration
		floor  *measure
	}
	var subjects []*subject
	for _, id := range builtins {
		v, err := variants.Spec(id)
		if err != nil {
			return nil, err
		}
		if len(v.Policies) == 0 {
			continue
		}
		cs, err := policy.CompileAll(v.Policies)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, p := range v.Policies {
			names = append(names, p.Name)
		}
		subjects = append(subjects, &subject{m: measure{name: id + " (" + strings.Join(names, ", ") + ")", f: checkAll(cs, regexCommand)}, budget: regexBudget})
	}
	guard, ok := spec.LibraryPolicy("shell_guard")
	if !ok {
		return nil, fmt.Errorf("the policy library has no shell_guard")
	}
	shell, err := policy.Compile(guard)
	if err != nil {
		return nil, err
	}
	p := syntax.NewParser()
	for _, s := range shellcorpus.Shapes {
		if v := shell.Check(s.Cmd); !v.Allowed {
			return nil, fmt.Errorf("shape %s is blocked: %s", s.Name, v.Message)
		}
		cmd := s.Cmd
		subjects = append(subjects, &subject{
			m:      measure{name: "shell_guard, " + s.Name, f: func() { shell.Check(cmd) }},
			budget: shellBudget,
			floor:  &measure{f: func() { _, _ = p.Parse(strings.NewReader(cmd), "") }},
		})
	}
	for range e.policyRounds {
		for _, s := range subjects {
			s.m.round(e.policyPer)
			if s.floor != nil {
				s.floor.round(e.policyPer)
			}
		}
	}
	for range e.policyRetries {
		over := false
		for _, s := range subjects {
			if s.m.cpu > s.budget {
				s.m.round(e.policyPer)
				over = true
			}
		}
		if !over {
			break
		}
	}
	var rows []*row
	for _, s := range subjects {
		r := &row{measure: s.m.name, figure: us(s.m.cpu.Seconds()) + fmt.Sprintf(" (wall %s)", us(s.m.wall.Seconds()))}
		if s.floor != nil {
			r.baseline = "mvdan.cc/sh parse " + us(s.floor.cpu.Seconds())
			r.ratio = s.m.cpu.Seconds() / s.floor.cpu.Seconds()
		}
		rows = append(rows, r.judge(s.m.cpu.Seconds()*1e6, limit{max: float64(s.budget.Microseconds()), text: fmt.Sprintf("≤ %d µs", s.budget.Microseconds())}))
	}
	return rows, nil
}

func checkAll(cs map[string]policy.Checker, cmd string) func() {
	var list []policy.Checker
	for _, c := range cs {
		list = append(list, c)
	}
	return func() {
		for _, c := range list {
			c.Check(cmd)
		}
	}
}

// measure is one figure: the best CPU time per operation over its rounds, and that round's wall time.
type measure struct {
	name      string
	f         func()
	cpu, wall time.Duration
	rounds    int
}

// round runs f in a loop for about per (after one call to warm up) and keeps the figures if they are the
// best so far.
func (m *measure) round(per time.Duration) {
	m.f()
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

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
