package policy

import (
	"slices"
	"testing"

	"github.com/agentbash/agentbash/runtime/policy/inlinecode"
	"github.com/agentbash/agentbash/spec"
)

// The languages a spec may name for inline code (checked by the spec) are the languages inlinecode reads.
func TestCodeLanguagesAreRead(t *testing.T) {
	var read []spec.CodeLanguage
	for _, l := range inlinecode.Languages {
		read = append(read, spec.CodeLanguage(l))
	}
	if !slices.Equal(read, spec.CodeLanguages) {
		t.Errorf("spec.CodeLanguages %v, inlinecode.Languages %v", spec.CodeLanguages, read)
	}
}

// A completed variant's policies compile without being checked again; an example that disagrees is an
// error at its position in the spec file.
func TestCompileVariantPositions(t *testing.T) {
	v, err := spec.Load("../../cmd/agentbash/testdata/invalid/examples_disagree.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = CompileVariant(v)
	want := "../../cmd/agentbash/testdata/invalid/examples_disagree.yaml:15:17: policies[0].examples.blocked[0]: " +
		`policy "p": "abbc" is blocked with message "no bb", the example says "no b"`
	errs, ok := err.(spec.Errors)
	if !ok || len(errs) != 2 || errs[0].Error() != want {
		t.Fatalf("got %v\nwant %s (and the allowed example's)", err, want)
	}
	if _, err := CompileVariant(v, SkipExamples()); err != nil {
		t.Errorf("SkipExamples: %v", err)
	}
}
