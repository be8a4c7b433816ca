package runtime_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/variants"
)

// The runtime holds no variant names: a new variant is a YAML file only. No source file of runtime/ (tests
// aside) contains the id of a built-in variant, in any case, even inside another word.
func TestRuntimeNamesNoVariant(t *testing.T) {
	ids := variants.IDs()
	if len(ids) == 0 {
		t.Fatal("no built-in variants")
	}
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		text := strings.ToLower(string(b))
		for _, id := range ids {
			if i := strings.Index(text, strings.ToLower(id)); i >= 0 {
				line := strings.Count(text[:i], "\n") + 1
				t.Errorf("%s:%d names the variant %q", path, line, id)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("read %d source files of runtime/, want the whole tree", files)
	}
}
