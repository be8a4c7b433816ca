package cases

import (
	"encoding/json"
	"fmt"
)

// Step is a further call of a case, made after its first call (and the steps before it) on the same
// workspace, so on the same engine: a conversation with a session. Its parameters may name the session an
// earlier call answered with SessionToken(n) (as a JSON string: it is replaced by the id, a number or a
// string as the session id parameter's type says).
type Step struct {
	// Tool is the tool called.
	Tool string `json:"tool"`
	// Params are the parameters; WorkspaceToken and SessionToken(n) are replaced before the call.
	Params json.RawMessage `json:"params"`
	// Repeat sends the call this many times at once (0 and 1: once); each answer is compared.
	Repeat int `json:"repeat,omitempty"`
}

// SessionToken stands, in a step's parameters, for the session id that call n of the case answered (0 is
// the case's own call; a repeated step counts once per copy).
func SessionToken(n int) string { return fmt.Sprintf("<SESSION:%d>", n) }

// Calls lists a case's calls in order: its own, then its steps (a repeated step as one entry).
func (c Case) Calls() []Step {
	out := []Step{{Tool: c.Tool, Params: c.Params}}
	return append(out, c.Steps...)
}

// CallTool is the tool of call n (repeated steps counted once per copy).
func (c Case) CallTool(n int) string {
	i := 0
	for _, st := range c.Calls() {
		i += max(st.Repeat, 1)
		if n < i {
			return st.Tool
		}
	}
	return ""
}
