package cases

import (
	"strings"

	"github.com/agentbash/agentbash/spec"
)

// The model APIs' tool shapes (spec/apitools.go) get the basic battery: a persistent shell's command, a
// batch of one command, a program run without a shell as /bin/sh -c and the command.

// apiShaped reports a tool the battery reaches only through these shapes: a persistent or batch tool, or
// an exec tool whose command is an argv.
func (ti *toolInfo) apiShaped() bool {
	k := ti.t.Kind
	return k == spec.KindPersistent || k == spec.KindBatch ||
		(k == spec.KindExec || k == "") && ti.role(spec.RoleCommand) == nil && ti.role(spec.RoleArgv) != nil
}

// apiBasics adds the basic cases of such a tool. A persistent shell is one for every case and runs on
// between them (so no case checks for survivors: the runtime's tests check that a timeout, a restart and
// Close end it); a case that ends it (exit, a signal) or reads its stdin (which is the shell's input) is
// left out.
func (b *builder) apiBasics() {
	b.group = "basics"
	b.basics()
	b.group = "roles"
	b.apiRoles()
	if b.ti.t.Kind != spec.KindPersistent {
		return
	}
	kept := b.cases[:0]
	for _, c := range b.cases {
		switch strings.TrimPrefix(c.Name, c.Tool+"/") {
		case "killed by a signal", "stdin is closed", "non-zero exit", "exit 1 without output":
		default:
			c.NoSurvivors = false
			kept = append(kept, c)
		}
	}
	b.cases = kept
}

// apiRoles adds the cases of these shapes' own parameters and checks: a restart, a call without its
// command (a required check), a timeout and an output limit sent with a command.
func (b *builder) apiRoles() {
	t := b.ti.t
	feat := func(f string) []string { return []string{"tool " + t.Name + " " + f} }
	if t.Kind != spec.KindPersistent { // typed into a persistent bash, "" leaves its sentinel a syntax error
		b.cmd("empty command", "", nil, Case{})
	}
	if b.ti.role(spec.RoleRestart) != nil {
		b.run("restart", "", map[string]any{"command": omit, string(spec.RoleRestart): true}, Case{})
	}
	var timeoutCheck bool
	for _, ch := range t.Checks {
		switch {
		case ch.Required != "" && b.ti.role(spec.RoleCommand) != nil && ch.Required == b.ti.role(spec.RoleCommand).Name:
			b.run("no command", "", map[string]any{"command": omit}, Case{Features: feat("check required " + ch.Required)})
		case ch.Timeout && t.Timeout != nil && b.ti.role(spec.RoleTimeout) != nil:
			timeoutCheck = true
		}
	}
	more := map[string]any{}
	var c Case
	if timeoutCheck {
		more[string(spec.RoleTimeout)] = 5 * unitScale(t.Timeout.Unit)
		c.Features = feat("check timeout")
	}
	if b.ti.role(spec.RoleOutputLimit) != nil {
		more[string(spec.RoleOutputLimit)] = 7
	}
	if len(more) > 0 {
		b.cmd("a timeout and an output limit", "echo hello; echo err >&2", more, c)
	}
}

// unitScale is a second in a timeout's unit.
func unitScale(u spec.TimeUnit) int {
	if u == spec.Milliseconds {
		return 1000
	}
	return 1
}

// apiValues are the parameter values by role that carry a command in these shapes.
func apiValues(set map[string]any, command string) {
	set[string(spec.RoleCommands)] = []string{command}
	set[string(spec.RoleArgv)] = []string{"/bin/sh", "-c", command}
}
