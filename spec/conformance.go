package spec

import (
	"slices"
	"strconv"
)

// Conformance is what the conformance suite needs to know to drive a target of the spec, beyond the
// contract itself.
type Conformance struct {
	// Notifications are JSON-RPC notifications sent to an MCP server, in order, right after the client's
	// notifications/initialized: what a server waits to hear before its tools work (npm
	// @openai/codex-shell-tool-mcp answers every call with an error until it gets
	// codex/sandbox-state/update).
	Notifications []Notification `yaml:"notifications,omitempty" json:"notifications,omitempty"`
	// Fixed names parameters the suite never sends a value of its own for: ones whose value the target
	// reads beyond what the spec models (a shell parameter that picks the program to run, where
	// "conformance check" would be run as one). A required one is sent with its default, or its enum's
	// first value. "tool.param" names one tool's parameter, "param" that parameter of every tool.
	Fixed []string `yaml:"fixed,omitempty" json:"fixed,omitempty" jsonschema:"uniqueItems=true"`
	// Poll is how the suite waits on a session between its calls: write (an empty session_write, the
	// default) or read (the session_read tool: for a target whose empty write is input, not a poll).
	Poll SessionPoll `yaml:"poll,omitempty" json:"poll,omitempty" jsonschema:"enum=write,enum=read"`
}

// SessionPoll is how the suite polls a session: Conformance.Poll.
type SessionPoll string

// The ways to poll a session.
const (
	PollWrite SessionPoll = "write"
	PollRead  SessionPoll = "read"
)

// Notification is one JSON-RPC notification: its method and its params (an object).
type Notification struct {
	Method string         `yaml:"method" json:"method" jsonschema:"minLength=1"`
	Params map[string]any `yaml:"params,omitempty" json:"params,omitempty"`
}

// IsFixed reports whether the conformance block names parameter p of tool t as fixed.
func (c *Conformance) IsFixed(t *Tool, p string) bool {
	return c != nil && (slices.Contains(c.Fixed, p) || slices.Contains(c.Fixed, t.Name+"."+p))
}

// conformance checks the conformance block: every fixed name is a parameter, and a read poll has a
// session_read tool to poll with.
func (c *checker) conformance() {
	cf := c.v.Conformance
	if cf == nil {
		return
	}
	for i, name := range cf.Fixed {
		found := false
		for ti := range c.v.Tools {
			t := &c.v.Tools[ti]
			for _, p := range t.Params {
				if name == p.Name || name == t.Name+"."+p.Name {
					found = true
					if p.Required && p.Default == nil && len(p.Enum) == 0 {
						c.errf("/conformance/fixed/"+strconv.Itoa(i), "fixed: %s.%s is required: give it a default or an enum, for the suite to send", t.Name, p.Name)
					}
				}
			}
		}
		if !found {
			c.errf("/conformance/fixed/"+strconv.Itoa(i), "fixed: %q names no parameter (param, or tool.param)", name)
		}
	}
	if cf.Poll == PollRead && !slices.ContainsFunc(c.v.Tools, func(t Tool) bool { return t.Kind == KindSessionRead }) {
		c.errf("/conformance/poll", "poll: read needs a session_read tool")
	}
}
