package spec

// A background shell's log and the tools that read and list the background registry: what a host that
// writes each background process's output to a log file (stdout and stderr as they arrive) and reads the
// file's last lines says with these blocks (docs/spec.md, "Background registry").

// BackgroundLog keeps each background shell's stdout and stderr merged into one log, in the order the
// chunks arrive from the two pipes, as a host that appends every chunk it reads to one file does. Only the
// last Limit bytes are kept (the front is dropped, and counted): memory is bounded by Limit per shell.
type BackgroundLog struct {
	// Limit is how many of the log's last bytes are kept (the most a read can see, as a host that reads at
	// most this much of a log file's end).
	Limit int `yaml:"limit" json:"limit" jsonschema:"minimum=1,maximum=268435456"`
	// StripANSI removes terminal escape sequences from what a read returns, as a host that strips them
	// before it writes the log.
	StripANSI bool `yaml:"strip_ansi,omitempty" json:"strip_ansi,omitempty"`
	// AfterWait is written to the log when a background start's wait (the tool's wait block) ends with the
	// command still running and some output logged, as a host that copies the output so far into a new
	// log file, then a newline, when it moves a command to the background.
	AfterWait string `yaml:"after_wait,omitempty" json:"after_wait,omitempty"`
}

// LogRead is how a poll tool reads a shell's log.
type LogRead struct {
	// Lines is how many of the log's last lines .LogTail holds when the parameter with role lines is absent
	// (0: all of them).
	Lines int `yaml:"lines,omitempty" json:"lines,omitempty" jsonschema:"minimum=0"`
	// Until ends the tool's wait early: output (the first output that arrives during the wait, or the
	// shell's exit), or time (the default: the whole wait, unless the shell exits).
	Until ReadUntil `yaml:"until,omitempty" json:"until,omitempty" jsonschema:"enum=time,enum=output"`
}

// ReadUntil is what ends a read's wait.
type ReadUntil string

const (
	ReadUntilTime   ReadUntil = "time"   // the whole wait, or the shell's exit
	ReadUntilOutput ReadUntil = "output" // the first new output, or the shell's exit, or the wait's end
)

// ShellInfo describes one background shell in a list tool's .Shells.
type ShellInfo struct {
	// ID is the shell's id (a uuid, or its pid), Pid its process id, Command the command as sent.
	ID      string
	Pid     int
	Command string
	// Running is true until the shell has exited and its output is drained; then ExitCode (signal_exit
	// applied) and Signal (the signal's number, or 0) are set.
	Running  bool
	ExitCode int
	Signal   int
	// Started is the start time (RFC 3339); Age the seconds since then, at the call (a fraction).
	Started string
	Age     float64
}

// MaxLogLines bounds read.lines and a lines parameter's effect: a read returns at most this many lines.
const MaxLogLines = 1 << 20

// backgroundLog checks the variant's background.log block.
func (c *checker) backgroundLog() {
	b := c.v.Background
	if b == nil || b.Log == nil {
		return
	}
	if b.Log.Limit < 1 {
		c.errf("/background/log/limit", "limit %d: a log keeps at least 1 byte", b.Log.Limit)
	}
	c.atMost("/background/log/limit", "limit", float64(b.Log.Limit), MaxSize)
	c.atMost("/background/log/after_wait", "after_wait's length", float64(len(b.Log.AfterWait)), 4096)
}

// logTool checks what a poll or list tool adds: the lines role and read block only on a poll tool of a
// variant whose background registry keeps a log, a wait only on a poll (or a background start).
func (c *checker) logTool(ptr string, t *Tool, kind Kind, roles map[Role]string) {
	hasLog := c.v.Background != nil && c.v.Background.Log != nil
	if name, ok := roles[RoleLines]; ok {
		c.numberRole(ptr, t, RoleLines)
		switch {
		case pagedRead(t, kind):
			// a paged session_read: how many lines a read returns
		case kind != KindPoll:
			c.errf(ptr+"/params", "parameter %q has role lines, which only a poll tool (or a session_read with session.page) has", name)
		case !hasLog:
			c.errf(ptr+"/params", "parameter %q has role lines but the background block keeps no log (background.log)", name)
		}
	}
	if r := t.Read; r != nil {
		if kind != KindPoll {
			c.errf(ptr+"/read", "read goes with a poll tool, not %s", kind)
		} else if !hasLog && r.Lines != 0 {
			c.errf(ptr+"/read/lines", "read.lines needs the background block's log (background.log)")
		}
		c.atMost(ptr+"/read/lines", "lines", float64(r.Lines), MaxLogLines)
		if r.Until == ReadUntilOutput && t.Wait == nil {
			c.errf(ptr+"/read/until", "until: output ends a wait, and the tool has no wait block")
		}
		if r.Until == ReadUntilOutput && !hasLog {
			c.errf(ptr+"/read/until", "until: output watches the shell's log: the background block needs log")
		}
	}
	if kind == KindList {
		if len(t.Params) > 0 {
			for _, p := range t.Params {
				if p.Role != "" && p.Role != RoleNone {
					c.errf(ptr+"/params", "parameter %q has role %s, but a list tool takes none", p.Name, p.Role)
				}
			}
		}
		if c.v.Background == nil {
			c.errf(ptr+"/kind", "a list tool needs the variant's background registry")
		}
	}
}
