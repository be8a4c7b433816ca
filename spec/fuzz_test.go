package spec_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// FuzzParse: any bytes give a spec or an error that names the file, never a panic.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/good/*.yaml", "testdata/bad/*.yaml", "../variants/*/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := spec.Parse("fuzz.yaml", data)
		if err == nil && v == nil {
			t.Fatal("no spec and no error")
		}
		if err != nil && len(err.Error()) < len("fuzz.yaml") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
