package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/variants"
)

// The baseline of a variant with shell.wrap runs the text the runtime runs: the command inside the host's
// wrap, naming a pids file that exists; run by the variant's shell, it exits as the command does.
func TestWrapText(t *testing.T) {
	found := false
	for _, id := range builtins {
		v, err := variants.Spec(id)
		if err != nil {
			t.Fatal(err)
		}
		w := v.Shell.Wrap
		if w == nil || v.Shell.Embedded {
			continue
		}
		found = true
		for _, tt := range []struct {
			command string
			code    int
		}{{"true", 0}, {"exit 3", 3}} {
			t.Run(id+"/"+tt.command, func(t *testing.T) {
				dir := t.TempDir()
				text, err := wrapText(w, tt.command, dir)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(text, tt.command) || text == tt.command {
					t.Fatalf("wrap of %q: %q", tt.command, text)
				}
				if w.PidsFile {
					pids := filepath.Join(dir, "bench-bgpids.tmp")
					if !strings.Contains(text, pids) {
						t.Fatalf("wrap %q does not name the pids file %s", text, pids)
					}
					if _, err := os.Stat(pids); err != nil {
						t.Fatal(err)
					}
				}
				argv := append(append([]string{}, v.Shell.Argv...), text)
				err = exec.Command(argv[0], argv[1:]...).Run()
				code := 0
				if x, ok := err.(*exec.ExitError); ok {
					code = x.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if code != tt.code {
					t.Fatalf("exit %d, want %d", code, tt.code)
				}
			})
		}
	}
	if !found {
		t.Skip("no built-in variant wraps its commands")
	}
}
