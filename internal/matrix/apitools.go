package matrix

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentbash/agentbash/spec"
)

// apiShapes describes what the model APIs' tool shapes (spec/apitools.go) change in a column: a persistent
// shell, a list of commands, a program run without a shell, a wrapped command.
func apiShapes(c *Column, t *spec.Tool) {
	if p := t.Param(spec.RoleArgv); p != nil {
		c.Shell = "none: " + p.Name + " is the program and its arguments"
	}
	if t.Wrap != "" {
		c.Shell += fmt.Sprintf(", each command as `%s`", t.Wrap)
	}
	if t.Output != nil && t.Output.Capture == spec.CaptureSequential {
		c.Capture = "stdout then stderr, one text"
	}
	if tm := t.Timeout; tm != nil && tm.NonPositive == spec.NonPositiveNone {
		if tm.Default <= 0 && tm.Min == nil && tm.Max == nil {
			c.Timeout = fmt.Sprintf("%s, none", tm.Unit)
		}
		c.Timeout += "; 0 or less is none"
	}
	switch t.Kind {
	case spec.KindPersistent:
		p := t.Persistent
		c.Shell = strings.Join(p.Argv, " ") + ", one per conversation, fed each command on stdin (sentinel `" + p.Sentinel + "`)"
		c.Timeout = fmt.Sprintf("s, %s per call, fixed", num(p.Timeout.D().Seconds()))
		c.OnExpiry = "the shell's process group killed; every call answers the timeout until a restart"
	case spec.KindBatch:
		b := t.Batch
		c.Shell += fmt.Sprintf(", up to %d commands a call, each answered", b.MaxCommands)
		if l := b.Limit; l != nil {
			c.Limit = fmt.Sprintf("%s %s per command", t.Param(spec.RoleOutputLimit).Name, l.Unit)
			if l.Default > 0 {
				c.Limit += fmt.Sprintf(" (default %d)", l.Default)
			}
			c.Truncation, c.Marker = "head: stdout first, stderr what stdout left", "-"
		}
		fields := map[string]bool{}
		for _, sh := range b.Each.Cases {
			for _, f := range sh.Fields {
				fields[f.Name] = true
			}
		}
		if b.Each.Format == spec.FormatJSON {
			c.Result += ", one answer per command {" + strings.Join(slices.Sorted(maps.Keys(fields)), ", ") + "}"
		}
	}
	if a := t.API; a != nil {
		var forms []string
		if f := a.Anthropic; f != nil {
			forms = append(forms, "anthropic "+f.Type)
		}
		if f := a.OpenAIResponses; f != nil {
			forms = append(forms, "openai-responses "+f.Type)
		}
		c.Tools += " (" + strings.Join(forms, ", ") + ")"
	}
}
