package spec

import (
	"strings"
)

// What agent CLIs do around a command that the spec language says with these blocks: a command wrapped
// before the shell runs it (a guard prefix, a trap that reports background jobs), output with its terminal
// escapes stripped and binary output detected, and a timeout of inactivity.

// CommandWrap rewrites a command before the shell runs it.
type CommandWrap struct {
	// Command is a template for the text the shell runs instead of the command; data: .Command (the command
	// as sent), .PidsFile. Template functions such as trim and shquote help ({{trim .Command}}).
	Command string `yaml:"command" json:"command"`
	// PidsFile makes a file for each run, named by .PidsFile (a file of its own under the system's
	// temporary directory), that the wrapped command writes the process ids of the jobs it left running to
	// (a trap's `jobs -p`); after the shell exits they are read, one per line, into .BackgroundPids (the
	// shell's own pid left out), and the file is removed.
	PidsFile bool `yaml:"pids_file,omitempty" json:"pids_file,omitempty"`
}

// BinaryOutput detects binary output from its first bytes.
type BinaryOutput struct {
	// Sample is how many of the output's first bytes are looked at for a NUL byte (Node CLIs: 512).
	Sample int `yaml:"sample" json:"sample" jsonschema:"minimum=1,maximum=1048576"`
}

// MaxBinarySample bounds output.binary.sample.
const MaxBinarySample = 1 << 20

// hostFeatures checks the blocks of hostfeatures.go on one tool.
func (c *checker) hostFeatures(ptr string, t *Tool, kind Kind, roles map[Role]string) {
	if w := t.Wait; w != nil {
		if _, bg := roles[RoleBackground]; kind != KindPoll && (kind != KindExec || !bg) {
			c.errf(ptr+"/wait", "wait applies to an exec tool with a parameter of role background, or to a poll tool")
		}
		if w.Empty != nil {
			c.errf(ptr+"/wait/empty", "empty applies to a session_write's yield window, not to wait")
		}
		if w.Min != nil && w.Max != nil && *w.Min > *w.Max {
			c.errf(ptr+"/wait/min", "min %v is greater than max %v", *w.Min, *w.Max)
		}
		unit := w.Unit
		if unit == "" {
			unit = Milliseconds
		}
		c.atMost(ptr+"/wait/default", "default", w.Default, unit.Of(MaxTimeout))
	}
	if tm := t.Timeout; tm != nil && tm.Idle && tm.Expiry == ExpiryBackground {
		c.errf(ptr+"/timeout/idle", "an idle timeout kills (expiry kill): a command that went quiet is not moved to the background")
	}
	if o := t.Output; o != nil && o.Binary != nil {
		c.atMost(ptr+"/output/binary/sample", "sample", float64(o.Binary.Sample), MaxBinarySample)
		if o.Binary.Sample < 1 {
			c.errf(ptr+"/output/binary/sample", "sample %d: at least 1 byte is looked at", o.Binary.Sample)
		}
	}
}

// hostVariant checks the variant-level blocks of hostfeatures.go.
func (c *checker) hostVariant() {
	v := c.v
	if w := v.Shell.Wrap; w != nil {
		if v.Shell.Embedded {
			c.errf("/shell/wrap", "wrap rewrites the command an argv shell runs, not the embedded shell's")
		}
		if strings.TrimSpace(w.Command) == "" {
			c.errf("/shell/wrap/command", "wrap needs command, a template of the text the shell runs")
		} else {
			c.template("/shell/wrap/command", w.Command)
		}
		if w.PidsFile && !strings.Contains(w.Command, ".PidsFile") {
			c.errf("/shell/wrap/pids_file", "pids_file: the command template never names .PidsFile, so nothing writes to it")
		}
	}
}
