package variants_test

import (
	"slices"

	"go.yaml.in/yaml/v3"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// builtinIDs are the variants every build must carry.
var builtinIDs = []string{"agentrail", "anthropic-bash", "claude-code", "codegensandbox", "codex", "gemini-cli", "openai-local-shell", "openai-shell", "opencode", "qwen-code", "rye", "toolregistry", "tunacode", "vercel-bash-tool"}

func TestBuiltinsLoad(t *testing.T) {
	ids := variants.IDs()
	for _, want := range builtinIDs {
		found := false
		for _, id := range ids {
			found = found || id == want
		}
		if !found {
			t.Errorf("built-in %q is not embedded (IDs: %v)", want, ids)
		}
	}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			v, err := variants.Spec(id)
			if err != nil {
				t.Fatalf("variants.Spec(%q): %v", id, err)
			}
			if v.ID != id {
				t.Errorf("id is %q, want the folder name %q", v.ID, id)
			}
			if v.Source.Repo == "" || v.Source.Path == "" || v.Source.Commit == "" {
				t.Errorf("source must cite repo, path and commit: %+v", v.Source)
			}
			if v.Source.Seed == "" && len(v.Source.Notes) == 0 {
				t.Errorf("a source without a seed says in its notes where the contract was read: %+v", v.Source)
			}
			if len(v.Hosts) == 0 {
				t.Errorf("hosts is empty")
			}
			for _, d := range v.Deviations {
				if d.Topic == "" || d.Upstream == "" || d.Ours == "" || d.Why == "" {
					t.Errorf("deviation %+v: topic, upstream, ours and why are all required", d)
				}
			}
		})
	}
}

// TestSpecFilesLoad loads each file from disk as `agentbash spec validate` would, and checks the editor
// schema line every spec starts with.
func TestSpecFilesLoad(t *testing.T) {
	for _, id := range builtinIDs {
		t.Run(id, func(t *testing.T) {
			path := filepath.Join(id, id+".yaml")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			if first != "# yaml-language-server: $schema=../../spec/schema.json" {
				t.Errorf("first line is %q, want the yaml-language-server schema comment", first)
			}
			if _, err := spec.Load(path); err != nil {
				t.Fatalf("spec.Load: %v", err)
			}
			// Contract first: the keys come in this order, provenance after the tools.
			var root yaml.Node
			if err := yaml.Unmarshal(data, &root); err != nil {
				t.Fatal(err)
			}
			order := []string{"id", "title", "summary", "hosts", "shell", "policies", "redact", "unknown_tool", "background", "sessions", "tools", "masks", "source", "disagreements", "deviations"}
			last := -1
			for i := 0; i < len(root.Content[0].Content); i += 2 {
				key := root.Content[0].Content[i].Value
				at := slices.Index(order, key)
				if at <= last {
					t.Errorf("key %s (line %d) is out of the order %v", key, root.Content[0].Content[i].Line, order)
				}
				last = at
			}
		})
	}
}

func TestUnknownVariant(t *testing.T) {
	if _, err := variants.Spec("no_such_variant"); err == nil {
		t.Fatal("variants.Spec of an unknown id: want an error")
	}
}
