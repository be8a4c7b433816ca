package runtime

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

func TestUserShell(t *testing.T) {
	dir := t.TempDir()
	bin, other := filepath.Join(dir, "bin"), filepath.Join(dir, "other")
	for _, d := range []string{bin, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := func(p string, mode os.FileMode) string {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bash := exe(filepath.Join(bin, "bash"), 0o755)
	exe(filepath.Join(other, "bash"), 0o755)
	zsh := exe(filepath.Join(other, "zsh"), 0o755)
	fish := exe(filepath.Join(other, "fish"), 0o755)
	exe(filepath.Join(bin, "dash"), 0o644) // not executable: not found on PATH
	user := &spec.UserShell{Env: "SHELL", Refuse: []string{"fish", "nu"}, Fallback: "/bin/sh"}
	path := "PATH=" + bin + ":" + other
	tests := []struct {
		name string
		sh   spec.Shell
		env  []string
		want []string
	}{
		{"no user block: argv as written", spec.Shell{Argv: []string{"bash", "-c"}}, []string{path, "SHELL=" + zsh}, []string{"bash", "-c"}},
		{"the variable's absolute path", spec.Shell{Argv: []string{"bash", "-c"}, User: user}, []string{path, "SHELL=" + zsh}, []string{zsh, "-c"}},
		{"the variable's name on PATH", spec.Shell{Argv: []string{"bash", "-c"}, User: user}, []string{path, "SHELL=zsh"}, []string{zsh, "-c"}},
		{"a refused shell", spec.Shell{Argv: []string{"bash", "-c"}, User: user}, []string{path, "SHELL=" + fish}, []string{bash, "-c"}},
		{"refused in any case", spec.Shell{Argv: []string{"bash", "-c"}, User: &spec.UserShell{Env: "SHELL", Refuse: []string{"FISH"}}}, []string{path, "SHELL=" + fish}, []string{bash, "-c"}},
		{"a shell that is not there", spec.Shell{Argv: []string{"bash", "-c"}, User: user}, []string{path, "SHELL=" + filepath.Join(dir, "gone")}, []string{bash, "-c"}},
		{"a directory is no shell", spec.Shell{Argv: []string{"bash", "-c"}, User: user}, []string{path, "SHELL=" + dir}, []string{bash, "-c"}},
		{"unset: the first on PATH", spec.Shell{Argv: []string{"bash", "-c"}, User: user}, []string{path}, []string{bash, "-c"}},
		{"PATH order decides", spec.Shell{Argv: []string{"bash", "-c"}, User: user}, []string{"PATH=" + other + ":" + bin}, []string{filepath.Join(other, "bash"), "-c"}},
		{"the last value counts", spec.Shell{Argv: []string{"bash", "-c"}, User: user}, []string{path, "SHELL=" + fish, "SHELL=" + zsh}, []string{zsh, "-c"}},
		{"not executable: the fallback", spec.Shell{Argv: []string{"dash", "-c"}, User: user}, []string{path}, []string{"/bin/sh", "-c"}},
		{"no fallback: the bare name", spec.Shell{Argv: []string{"dash", "-c"}, User: &spec.UserShell{Env: "SHELL"}}, []string{path}, []string{"dash", "-c"}},
		{"an absolute argv[0] stays", spec.Shell{Argv: []string{"/no/such/bash", "-c"}, User: user}, []string{path}, []string{"/no/such/bash", "-c"}},
		{"no PATH: the fallback", spec.Shell{Argv: []string{"no-such-shell", "-c"}, User: user}, nil, []string{"/bin/sh", "-c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := userShell(tc.sh, tc.env); !slices.Equal(got, tc.want) {
				t.Errorf("userShell = %q, want %q", got, tc.want)
			}
		})
	}
}
