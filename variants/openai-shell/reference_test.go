package openaishell_test

import (
	"testing"

	"github.com/agentbash/agentbash/variants/internal/openaiagents"
)

// TestReference runs every case through the OpenAI Agents SDK's own code (its example executor and its
// shell_call_output functions; variants/internal/openaiagents): each must answer as the case says, which
// TestBehavior holds our engine to, and each listed case must still answer as listed.
func TestReference(t *testing.T) {
	ws := realDir(t)
	var calls []string
	for _, c := range cases {
		calls = append(calls, c.params)
	}
	for _, l := range listed {
		calls = append(calls, l.params)
	}
	got := openaiagents.Run(t, "shell", ws, calls)
	for i, c := range cases {
		if !openaiagents.SameJSON(got[i], c.want) {
			t.Errorf("%s %s: the SDK answers\n %s\nthe case says\n %s", c.name, c.params, got[i], c.want)
		}
	}
	for i, l := range listed {
		if up := got[len(cases)+i]; !openaiagents.SameJSON(up, l.upstream) {
			t.Errorf("listed %s %s: the SDK now answers\n %s\nnot as listed\n %s", l.name, l.params, up, l.upstream)
		}
	}
}
