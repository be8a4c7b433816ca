package spec_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

func TestGoodSpecsLoad(t *testing.T) {
	files, _ := filepath.Glob("testdata/good/*.yaml")
	if len(files) == 0 {
		t.Fatal("no good specs")
	}
	for _, f := range files {
		if _, err := spec.Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// Every broken spec names what it wants in a trailing "# want: " line: a substring of the error, which
// starts with the position (line:col) where it matters.
func TestBrokenSpecsAreRejected(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad/*.yaml")
	if len(files) < 15 {
		t.Fatalf("want at least 15 broken specs, have %d", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, want, ok := bytes.Cut(data, []byte("# want: "))
			if !ok {
				t.Fatal("no # want: line")
			}
			wantStr := strings.TrimRight(string(want), "\n")
			_, err = spec.Load(f)
			if err == nil {
				t.Fatal("loaded without error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, f+":") {
				t.Errorf("error does not start with the file name: %s", msg)
			}
			if !strings.Contains(msg, ":"+strings.TrimPrefix(wantStr, ":")) && !strings.Contains(msg, wantStr) {
				t.Errorf("error %q\ndoes not contain %q", msg, wantStr)
			}
			// Every message names a line.
			rest := strings.TrimPrefix(msg, f+":")
			if rest == "" || rest[0] < '1' || rest[0] > '9' {
				t.Errorf("error names no line: %s", msg)
			}
		})
	}
}
