package cases

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/agentbash/agentbash/spec"
)

// The session battery: conversations of several calls (Case.Steps) with a session_start tool and the
// session tools beside it, derived from the spec: a command still running after its window and polled to
// its exit, a read answered through stdin, a REPL echoing each line, a poll after the exit, a window as
// sent, a closed stdin, a terminal, the session limit, kill and list, and the budget at its limit.

// sessionTools are a variant's session tools by kind (the first of each).
type sessionTools struct {
	start, write, read, kill, list *spec.Tool
}

func sessionsOf(v *spec.Variant) sessionTools {
	var st sessionTools
	for i := range v.Tools {
		t := &v.Tools[i]
		slot := map[spec.Kind]**spec.Tool{spec.KindSessionStart: &st.start, spec.KindSessionWrite: &st.write,
			spec.KindSessionRead: &st.read, spec.KindSessionKill: &st.kill, spec.KindSessionList: &st.list}[t.Kind]
		if slot != nil && *slot == nil {
			*slot = t
		}
	}
	return st
}

// yieldValue is a window of d in a tool's yield unit, clamped to its range (the poll range for a poll).
func yieldValue(t *spec.Tool, d time.Duration, poll bool) any {
	y := t.Session.Yield
	v := d.Seconds()
	if y.Unit != spec.Seconds {
		v = float64(d.Milliseconds())
	}
	v = y.Clamp(v, poll)
	if v == math.Trunc(v) {
		return int64(v)
	}
	return v
}

// window is the length of a yield value in a tool's unit.
func window(t *spec.Tool, v any) time.Duration {
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case int:
		f = float64(x)
	case float64:
		f = x
	}
	if t.Session.Yield.Unit == spec.Seconds {
		return time.Duration(f * float64(time.Second))
	}
	return time.Duration(f * float64(time.Millisecond))
}

// sessionParams builds a call of a session tool: its parameters by role, the others required filled.
func sessionParams(t *spec.Tool, set map[string]any) json.RawMessage {
	return (&toolInfo{t: t}).params(set)
}

// token is a session token as a parameter value.
func token(n int) any { return SessionToken(n) }

// canTalk reports whether the start can give a session a stdin the write tool reaches: a terminal (a tty
// parameter, or pty by default) or an open pipe.
func (st sessionTools) canTalk() bool {
	if st.write == nil || st.start == nil {
		return false
	}
	s := st.start.Session
	return st.start.Param(spec.RoleTTY) != nil || s.PTY || s.Stdin == spec.SessionStdinOpen
}

// onTerminal is the parameter that asks for a terminal, when the start has one.
func (st sessionTools) onTerminal(set map[string]any) map[string]any {
	if st.start.Param(spec.RoleTTY) != nil {
		set["tty"] = true
	}
	return set
}

// sessions adds the session battery to the session_start tool's builder.
func (b *builder) sessions() {
	st := sessionsOf(b.ti.v)
	if st.start == nil || b.ti.t != st.start {
		return
	}
	sv := b.ti.v.Sessions
	start := st.start
	t := "tool " + start.Name + " "
	grace := b.ti.grace
	short := yieldValue(start, time.Second, false)
	long := func(tool *spec.Tool, poll bool) any { return yieldValue(tool, 10*time.Second, poll) }
	startCall := func(cmd string, yield any, more map[string]any) json.RawMessage {
		set := map[string]any{"command": cmd, "yield": yield}
		for k, v := range more {
			set[k] = v
		}
		return sessionParams(start, set)
	}
	// poll is a call that waits for the session of call n: an empty write, or a read (the spec's
	// conformance poll: read, or no write tool).
	poll := func(n int) (Step, bool) {
		switch {
		case st.write != nil && (b.ti.v.Conformance == nil || b.ti.v.Conformance.Poll != spec.PollRead):
			return Step{Tool: st.write.Name, Params: sessionParams(st.write, map[string]any{"session_id": token(n), "stdin": "", "yield": long(st.write, true)})}, true
		case st.read != nil:
			return Step{Tool: st.read.Name, Params: sessionParams(st.read, map[string]any{"session_id": token(n), "yield": long(st.read, false)})}, true
		}
		return Step{}, false
	}
	write := func(n int, text string, d time.Duration) Step {
		return Step{Tool: st.write.Name, Params: sessionParams(st.write, map[string]any{"session_id": token(n), "stdin": text, "yield": yieldValue(st.write, d, text == "")})}
	}
	add := func(name, about string, c Case) {
		c.Name, c.About, c.Group = name, about, "sessions"
		c.Features = append(c.Features, t+"session")
		if c.MaxElapsed == 0 {
			c.MaxElapsed = DefaultMaxElapsed
		}
		b.add(c)
	}
	slack := 5*time.Second + grace

	if p, ok := poll(0); ok {
		add("session: still running after the window, polled to its exit", "a command that outlives its window is a session; a poll waits until it exits",
			Case{Params: startCall("echo start; sleep 2; echo end", short, nil), Steps: []Step{p}, NoSurvivors: true,
				MaxElapsed: window(start, short) + 2*time.Second + slack})
		add("session: window as sent", "the yield parameter sets the window: output half a second in is in it",
			Case{Params: startCall("sleep 0.5; echo in-window; sleep 2; echo after", yieldValue(start, 1500*time.Millisecond, false), nil),
				Steps: []Step{p}, NoSurvivors: true, MaxElapsed: 3*time.Second + slack})
		p3, _ := poll(0)
		p4, _ := poll(0)
		add("session: a poll after the exit", "a command that exits between calls: the next poll answers its exit at once, the one after fails",
			Case{Params: startCall("echo a; sleep 2; echo b; exit 4", short, nil), Steps: []Step{
				{Tool: start.Name, Params: startCall("sleep 3", yieldValue(start, 10*time.Second, false), nil)}, p3, p4},
				NoSurvivors: true, MaxElapsed: window(start, short) + 3*time.Second + slack})
	}
	if r := st.read; r != nil && r.Session != nil && r.Session.Page != nil {
		// A paged read (session.page): no read here waits (an offset, or lines past the read position), and
		// the command runs on until the case's end, when what it left is killed.
		read := func(set map[string]any) Step {
			set["session_id"], set["yield"] = token(0), yieldValue(r, 2*time.Second, false)
			return Step{Tool: r.Name, Params: sessionParams(r, set)}
		}
		var steps []Step
		if r.Param(spec.RoleOffset) != nil {
			steps = append(steps, read(map[string]any{"offset": 1, "lines": 2}), read(map[string]any{"offset": -2}))
		}
		steps = append(steps, read(map[string]any{"lines": 2}), read(map[string]any{}))
		add("session: paged reads", "a read pages by lines: from a line, from the end, and from the read position on",
			Case{Params: startCall("printf 'l1\\nl2\\nl3\\n'; sleep 10", short, nil), Steps: steps,
				MaxElapsed: window(start, short) + slack, Features: []string{"tool " + r.Name + " session page"}})
	}
	if st.canTalk() {
		add("session: a read answered through stdin", "a command waiting for a line gets it from a write, and exits",
			Case{Params: startCall(`read x; echo "got:$x"`, short, st.onTerminal(map[string]any{})),
				Steps: []Step{write(0, "hello\n", 10*time.Second)}, NoSurvivors: true, MaxElapsed: window(start, short) + slack,
				Features: []string{"tool " + st.write.Name + " stdin"}})
		add("session: a REPL echoes each line", "head -n 2 answers each line written, and exits after the second",
			Case{Params: startCall("head -n 2", short, st.onTerminal(map[string]any{})),
				Steps:       []Step{budgeted(write(0, "ping\n", 2*time.Second), st.write, 2), write(0, "pong\n", 10*time.Second)},
				NoSurvivors: true, MaxElapsed: window(start, short) + 2*time.Second + slack})
	}
	if st.write != nil && start.Session.Stdin == spec.SessionStdinClosed && (start.Param(spec.RoleTTY) != nil || !start.Session.PTY) {
		more := map[string]any{}
		if start.Param(spec.RoleTTY) != nil {
			more["tty"] = false
		}
		steps := []Step{write(0, "x\n", time.Second)}
		if p, ok := poll(0); ok {
			steps = append(steps, p)
		}
		add("session: stdin closed", "a write to a session on pipes with its stdin closed fails; a poll still works",
			Case{Params: startCall("sleep 2", short, more), Steps: steps, NoSurvivors: true,
				MaxElapsed: window(start, short) + 2*time.Second + slack, Features: []string{"tool " + st.write.Name + " stdin closed"}})
	}
	if start.Param(spec.RoleTTY) != nil {
		add("session: on a terminal", "tty true: a terminal of 24x80",
			Case{Params: startCall("[ -t 0 ] && [ -t 1 ] && echo tty; stty size", short, map[string]any{"tty": true}), NoSurvivors: true})
	}
	if st.kill != nil {
		steps := []Step{{Tool: st.kill.Name, Params: sessionParams(st.kill, map[string]any{"session_id": token(0)})}}
		if p, ok := poll(0); ok {
			steps = append(steps, p)
		}
		add("session: kill", "a killed session is forgotten",
			Case{Params: startCall("sleep 30", short, nil), Steps: steps, NoSurvivors: true, MaxElapsed: window(start, short) + slack})
	}
	if st.list != nil {
		steps := []Step{{Tool: st.list.Name, Params: sessionParams(st.list, nil)}}
		if p, ok := poll(0); ok {
			steps = append(steps, p)
		}
		add("session: list", "the list shows a running session",
			Case{Params: startCall("sleep 2", short, nil), Steps: steps, NoSurvivors: true, MaxElapsed: window(start, short) + 2*time.Second + slack})
	}
	if sv != nil && sv.MaxLive <= 128 {
		// The first session is the least recently used; max_live - 1 more fill the registry at once; one
		// more start prunes the first (or fails); a call naming the first tells which. The sleeps end on
		// their own (the target may keep its engine for the workspace after the case).
		tiny := yieldValue(start, 0, false)
		cmd := "sleep 8"
		probe := Step{}
		switch {
		case st.write != nil:
			probe = Step{Tool: st.write.Name, Params: sessionParams(st.write, map[string]any{"session_id": token(0), "stdin": "x", "yield": yieldValue(st.write, 0, false)})}
		case st.read != nil:
			probe = Step{Tool: st.read.Name, Params: sessionParams(st.read, map[string]any{"session_id": token(0), "yield": yieldValue(st.read, 0, false)})}
		}
		steps := []Step{
			{Tool: start.Name, Params: startCall(cmd, tiny, nil), Repeat: sv.MaxLive - 1},
			{Tool: start.Name, Params: startCall(cmd, tiny, nil)},
		}
		if probe.Tool != "" {
			steps = append(steps, probe)
		}
		add("session: the limit", fmt.Sprintf("%d sessions fill the registry; one more start %s", sv.MaxLive, map[bool]string{true: "prunes the least recently used", false: "fails"}[sv.OnFull == spec.OnFullPrune]),
			Case{Params: startCall(cmd, tiny, nil), Steps: steps, MaxElapsed: 4*window(start, tiny) + 10*time.Second + slack,
				Features: []string{t + "session limit"}})
	}
}

// budgetLimits adds the cases of an output budget at -1, 0 and +1 of a small budget: the budget
// parameter's value when the tool has one, else its default.
func (b *builder) budgetLimits() {
	bu := b.ti.t.Output.Budget
	if bu == nil {
		return
	}
	n := bu.Default
	more := map[string]any{}
	if b.ti.role(spec.RoleBudget) != nil {
		n = 8
		if bu.Max != nil {
			n = min(n, *bu.Max)
		}
		more["budget"] = n
	}
	units := n
	unit := spec.Chars
	if bu.Unit != spec.BudgetChars {
		unit = spec.Bytes
		if bu.Unit == spec.BudgetTokens {
			units = n * bu.BytesPerToken
		}
	}
	if units > 1<<20 {
		return
	}
	for _, d := range []int{-1, 0, 1} {
		b.cmd(fmt.Sprintf("output at budget%s (%d %s)", signed(d), units+d, unit), emit(units+d, unit, ""), more,
			Case{NoSurvivors: true, Features: []string{"tool " + b.ti.t.Name + " output budget"},
				About: fmt.Sprintf("%d %s of output against a budget of %d %s", units+d, unit, n, bu.Unit)})
	}
	b.cmd("output over budget, in lines", "seq 1 2000", more, Case{NoSurvivors: true, Features: []string{"tool " + b.ti.t.Name + " output budget"}})
}

// unknownSession adds the call of a session_write, session_read or session_kill tool with an id no
// session has (a fresh workspace's engine holds none).
func (b *builder) unknownSession() {
	p := b.ti.role(spec.RoleSessionID)
	if p == nil {
		return
	}
	var id any = "conformance-unknown"
	if p.Type == spec.TypeInteger || p.Type == spec.TypeNumber {
		id = 1
		if sv := b.ti.v.Sessions; sv != nil && sv.FirstID > 0 {
			id = sv.FirstID
		}
	}
	b.add(Case{Name: "unknown session id", Params: b.ti.params(map[string]any{"session_id": id}), NoSurvivors: true,
		Features: []string{"tool " + b.ti.t.Name + " unknown session id"}})
	b.otherChecks("session_id")
}

// budgeted gives a step a budget (a small one: the echo of a line is cut), when its tool has the role.
func budgeted(st Step, t *spec.Tool, n int) Step {
	p := t.Param(spec.RoleBudget)
	if p == nil {
		return st
	}
	var m map[string]any
	if json.Unmarshal(st.Params, &m) != nil {
		return st
	}
	set := map[string]any{}
	for _, q := range t.Params {
		if v, ok := m[q.Name]; ok {
			key := q.Name
			if q.Role != "" && q.Role != spec.RoleNone {
				key = string(q.Role)
			}
			set[key] = v
		}
	}
	set["budget"] = n
	st.Params = sessionParams(t, set)
	return st
}
