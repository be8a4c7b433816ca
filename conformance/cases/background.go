package cases

import (
	"time"

	"github.com/agentbash/agentbash/spec"
)

// backgroundTools adds, to the exec tool that starts commands in the background with a wait, the cases of
// the tools that read the background registry, each after a poll that waits for the command's exit: a
// list tool, a poll tool's log with its last lines, and a poll whose wait ends at the first new output
// (read.until: output). A later call names the
// shell the start answered with by SessionToken(0) (its .ShellID, or its .Pid with ids: pid).
func (b *builder) backgroundTools() {
	t := b.ti.t
	w := t.Wait
	if b.ti.role(spec.RoleBackground) == nil || w == nil || b.ti.role(spec.RoleYield) == nil || b.ti.v.Background == nil {
		return // a start that answers at once: whether the command has ended by the next call is a race
	}
	var list *spec.Tool
	var polls []*spec.Tool
	for i := range b.ti.v.Tools {
		switch o := &b.ti.v.Tools[i]; o.Kind {
		case spec.KindList:
			if list == nil {
				list = o
			}
		case spec.KindPoll:
			if o.Param(spec.RoleShellID) != nil {
				polls = append(polls, o)
			}
		}
	}
	// The command outlives the start's wait (a second) and ends a second later: a host that registers a
	// background process when the wait ends (not at its start) sees it running then. Each read waits
	// for the exit first (its delay), so what it answers does not depend on timing.
	start := map[string]any{"background": true, "yield": w.Unit.Of(time.Second)}
	cmd := "echo one; sleep 2; echo two; exit 3"
	slack := 10*time.Second + b.ti.grace
	var wait *Step // a poll that waits four seconds (for the exit) before it reads
	early := func(p *spec.Tool) bool { return p.Read != nil && p.Read.Until == spec.ReadUntilOutput }
	for _, p := range polls {
		if p.Wait != nil && p.Param(spec.RoleYield) != nil && !early(p) {
			wait = &Step{Tool: p.Name, Params: Params(p, map[string]any{"shell_id": token(0), "yield": p.Wait.Unit.Of(4 * time.Second)})}
			break
		}
	}
	if list != nil && wait != nil {
		b.cmd("background: list", cmd, start, Case{Group: "background",
			About:      "a process moved to the background that ends after the start's wait, then the list of background processes",
			Steps:      []Step{*wait, {Tool: list.Name, Params: Params(list, nil)}},
			MaxElapsed: slack, NoSurvivors: true, Features: []string{"tool " + list.Name + " list"}})
	}
	for _, p := range polls {
		if p.Wait == nil || p.Param(spec.RoleYield) == nil {
			continue // a read at once races the command's end
		}
		if early(p) {
			b.firstOutput(p)
			continue // its wait ends at the output the start's wait saw, not at the exit
		}
		steps := []Step{{Tool: p.Name, Params: Params(p, map[string]any{"shell_id": token(0), "yield": p.Wait.Unit.Of(4 * time.Second)})}}
		if p.Param(spec.RoleLines) != nil {
			steps = append(steps, Step{Tool: p.Name, Params: Params(p, map[string]any{"shell_id": token(0), "lines": 1})})
		}
		b.cmd("background: "+p.Name+" after the exit", cmd, start, Case{Group: "background",
			About:      "a process moved to the background that ends after the start's wait, then reads of its output",
			Steps:      steps,
			MaxElapsed: slack, NoSurvivors: true, Features: []string{"tool " + p.Name + " read"}})
	}
}

// firstOutput adds the case of a poll whose wait ends at the first output (read.until: output): the start
// answers at once (no wait), and the read, given ten seconds, answers at the line written a second later,
// the command still running.
func (b *builder) firstOutput(p *spec.Tool) {
	if b.ti.v.Background.Log == nil {
		return
	}
	b.cmd("background: "+p.Name+" answers at the first output", "sleep 1; echo late; sleep 2",
		map[string]any{"background": true, "yield": 0}, Case{Group: "background",
			About: "a read that waits up to ten seconds answers when the first output arrives",
			Steps: []Step{{Tool: p.Name, Params: Params(p, map[string]any{"shell_id": token(0), "yield": p.Wait.Unit.Of(10 * time.Second)})}},
			// Less than the read's ten seconds: a read that waited them all fails the case.
			MaxElapsed: 8 * time.Second, Features: []string{"tool " + p.Name + " read until output"}})
}
