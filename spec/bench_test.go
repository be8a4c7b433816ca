package spec_test

import (
	"os"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// BenchmarkParseEmbedded is what a start with a built-in variant pays for its spec.
func BenchmarkParseEmbedded(b *testing.B) {
	data, err := os.ReadFile("../variants/rye/rye.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spec.ParseEmbedded("rye.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
