package matrix_test

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/internal/matrix"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

var update = flag.Bool("update", false, "rewrite the matrix in README.md")

const (
	readme = "../../README.md"
	begin  = "<!-- matrix: "
	end    = "<!-- end matrix -->"
)

func builtins(t *testing.T) []matrix.Column {
	t.Helper()
	var cols []matrix.Column
	for _, id := range variants.IDs() {
		v, err := variants.Spec(id)
		if err != nil {
			t.Fatal(err)
		}
		cols = append(cols, matrix.Of(v))
	}
	return cols
}

// The README embeds the markdown matrix of the built-ins, as `agentbash matrix` prints it.
func TestREADMEMatrix(t *testing.T) {
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q section", begin, end)
	}
	i += strings.Index(doc[i:], "\n") + 1
	want := matrix.Markdown(builtins(t))
	if doc[i:j] == want {
		return
	}
	if *update {
		if err := os.WriteFile(readme, []byte(doc[:i]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the matrix in README.md is stale (go test ./internal/matrix -update); want:\n%s", want)
}

// Every row has a fact for every variant, read from the spec, and the table has a column per variant.
func TestMatrix(t *testing.T) {
	cols := builtins(t)
	md := matrix.Markdown(cols)
	lines := strings.Split(strings.TrimSpace(md), "\n")
	if len(lines) != 19 {
		t.Errorf("%d lines, want a header, a rule and 17 rows:\n%s", len(lines), md)
	}
	for _, l := range lines {
		if n := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|"); n != len(cols)+2 {
			t.Errorf("%d cells in %q", n-1, l)
		}
	}
	b, err := matrix.JSON(cols)
	if err != nil {
		t.Fatal(err)
	}
	var back []map[string]string
	if err := json.Unmarshal(b, &back); err != nil || len(back) != len(cols) {
		t.Fatalf("JSON: %v", err)
	}
	for _, c := range back {
		for k, v := range c {
			if v == "" {
				t.Errorf("%s: %s is empty", c["id"], k)
			}
		}
	}
	by := map[string]matrix.Column{}
	for _, c := range cols {
		by[c.ID] = c
	}
	for _, tc := range []struct{ got, want string }{
		{by["agentrail"].OnExpiry, "moves to the background"},
		{by["agentrail"].Timeout, "ms, 30000, ≥ 0 (fail)"},
		{by["codegensandbox"].Capture, "combined"},
		{by["codegensandbox"].Timeout, "s, 120, ≤ 600 (clamp)"},
		{by["tunacode"].Limit, "5000 chars of the whole result"},
		{by["tunacode"].Truncation, "head 2500 and tail 1000 (tail past 3500)"},
		{by["toolregistry"].Policies, "regex (19 rules, python dialect)"},
		{by["rye"].Result, "JSON object {error, exit_code, output, stderr, stdout, success, timeout, truncated}"},
		{by["codegensandbox"].Hosts, "codegen-sandbox, MCP"},
		{by["codex"].Timeout, "none; a yield window: ms, 10000, 250–30000 (clamp)"},
		{by["codex"].Limit, "10000 tokens (4 bytes each) combined, the model's max_output_tokens up to 10000"},
		{by["codex"].Sessions, "exec_command starts them (a PTY with tty); write_stdin writes (empty: a poll, 5000–300000 ms); random ids 1000–99999; at most 64, the least recently used pruned (8 most recent protected)"},
		{by["rye"].Sessions, "no"},
		{by["rye"].Sandbox, "off (-sandbox MODE turns it on)"},
		{sandboxedRye(t).Sandbox, "workspace-write, no network"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// sandboxedRye is rye with a sandbox block, as `agentbash matrix` reads a spec that has one (or `-sandbox`
// sets it).
func sandboxedRye(t *testing.T) matrix.Column {
	t.Helper()
	v, err := variants.Spec("rye")
	if err != nil {
		t.Fatal(err)
	}
	v.Sandbox = &spec.Sandbox{Mode: spec.SandboxWorkspaceWrite}
	return matrix.Of(v)
}
