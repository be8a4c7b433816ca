package cases

import (
	"time"

	"github.com/agentbash/agentbash/spec"
)

// backgroundTools adds, to the exec tool that starts commands in the background, the cases of the tools
// that read the background registry: a list tool after a start that ended, a poll tool's log with its last
// lines, and a poll whose wait ends at the first new output (read.until: output). A later call names the
// shell the start answered with by SessionToken(0) (its .ShellID, or its .Pid with ids: pid).
func (b *builder) backgroundTools() {
	t := b.ti.t
	w := t.Wait
	if b.ti.role(spec.RoleBackground) == nil || w == nil || b.ti.role(spec.RoleYield) == nil || b.ti.v.Background == nil {
		return // a start that answers at once: whether the command has ended by the next call is a race
	}
	long := w.Unit.Of(10 * time.Second) // the start answers when the command exits, well within this
	bg := b.ti.v.Background
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
	start := map[string]any{"background": true, "yield": long}
	cmd := "echo one; echo two; exit 3"
	slack := 5*time.Second + b.ti.grace
	if list != nil {
		b.cmd("background: list", cmd, start, Case{Group: "background",
			About:      "a start in the background that waits for the command's exit, then the list of background processes",
			Steps:      []Step{{Tool: list.Name, Params: Params(list, nil)}},
			MaxElapsed: slack, NoSurvivors: true, Features: []string{"tool " + list.Name + " list"}})
	}
	for _, p := range polls {
		id := map[string]any{"shell_id": token(0)}
		if p.Wait != nil && p.Param(spec.RoleYield) != nil {
			id["yield"] = p.Wait.Unit.Of(100 * time.Millisecond) // a delay before the read
		}
		steps := []Step{{Tool: p.Name, Params: Params(p, id)}}
		if p.Param(spec.RoleLines) != nil {
			steps = append(steps, Step{Tool: p.Name, Params: Params(p, map[string]any{"shell_id": token(0), "lines": 1})})
		}
		b.cmd("background: "+p.Name+" after the exit", cmd, start, Case{Group: "background",
			About:      "a start in the background that waits for the command's exit, then reads of its output",
			Steps:      steps,
			MaxElapsed: slack, NoSurvivors: true, Features: []string{"tool " + p.Name + " read"}})
		r, pw := p.Read, p.Wait
		if bg.Log == nil || r == nil || r.Until != spec.ReadUntilOutput || pw == nil || p.Param(spec.RoleYield) == nil {
			continue
		}
		// The start answers at once (no wait); the read, given ten seconds, answers at the line written a
		// second later, the command still running.
		b.cmd("background: "+p.Name+" answers at the first output", "sleep 1; echo late; sleep 2",
			map[string]any{"background": true, "yield": 0}, Case{Group: "background",
				About: "a read that waits up to ten seconds answers when the first output arrives",
				Steps: []Step{{Tool: p.Name, Params: Params(p, map[string]any{"shell_id": token(0), "yield": pw.Unit.Of(10 * time.Second)})}},
				// Less than the read's ten seconds: a read that waited them all fails the case.
				MaxElapsed: 8 * time.Second, Features: []string{"tool " + p.Name + " read until output"}})
	}
}
