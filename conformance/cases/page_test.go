package cases

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// TestPagedReadCase: a variant whose session_read pages (session.page) gets the paged-reads case: reads
// from a line, from the end, and from the read position, none of which waits; a variant without one
// does not.
func TestPagedReadCase(t *testing.T) {
	v, err := spec.Load("../examples/desktop-commander/desktop-commander.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c *Case
	for _, x := range Cases(v) {
		if x.Name == "start_process/session: paged reads" {
			c = &x
		}
	}
	if c == nil {
		t.Fatal("no paged-reads case")
	}
	var sent []map[string]any
	for _, st := range c.Steps {
		if st.Tool != "read_process_output" {
			t.Fatalf("step of %s", st.Tool)
		}
		var m map[string]any
		if err := json.Unmarshal(st.Params, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "pid")
		delete(m, "timeout_ms")
		sent = append(sent, m)
	}
	want := []map[string]any{{"offset": 1.0, "length": 2.0}, {"offset": -2.0}, {"length": 2.0}, {}}
	if got, _ := json.Marshal(sent); string(got) != mustJSON(t, want) {
		t.Errorf("steps %s, want %s", got, mustJSON(t, want))
	}
	for _, id := range variants.IDs() { // none pages
		for _, x := range Cases(mustVariant(t, id)) {
			if strings.HasSuffix(x.Name, "/session: paged reads") {
				t.Errorf("%s, without a paged read, has %s", id, x.Name)
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
