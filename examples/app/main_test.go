package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The example runs, and prints what myshell.yaml's contract says.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), t.TempDir(), &out); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"tool shell: Run a shell command in the project and return its exit code and output (the last 4,000 bytes).",
		`ok=false code=3 output="hello\n"`,
		`ok=false code=-1 output="started\n"`, // the timeout case: code -1, the output so far
		"raised ValidationError: invalid parameter cmd: must be a string",
	}
	if got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", out.String(), strings.Join(want, "\n"))
	}
}
