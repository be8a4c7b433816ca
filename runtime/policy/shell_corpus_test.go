package policy

import (
	"testing"

	"github.com/agentbash/agentbash/runtime/policy/internal/shellcorpus"
)

// The shell-parsing policy's corpora. These are strings: no test ever runs them.

// TestShellCorpus requires every bypass of the corpus blocked and no benign command blocked, and prints the
// rates.
func TestShellCorpus(t *testing.T) {
	c := compileFragment(t, "shell")["shell_guard"]
	if len(shellcorpus.Bypasses) < 60 || len(shellcorpus.Benign) < 60 {
		t.Fatalf("corpora too small: %d bypasses, %d benign", len(shellcorpus.Bypasses), len(shellcorpus.Benign))
	}
	caught := 0
	for _, b := range shellcorpus.Bypasses {
		if v := c.Check(b.Cmd); !v.Allowed {
			caught++
		} else {
			t.Errorf("bypass not blocked (%s): %q", b.Category, b.Cmd)
		}
	}
	fp := 0
	for _, cmd := range shellcorpus.Benign {
		if v := c.Check(cmd); !v.Allowed {
			fp++
			t.Errorf("benign command blocked: %q: %s", cmd, v.Message)
		}
	}
	t.Logf("shell_guard: caught %d/%d bypasses, %d/%d benign commands blocked", caught, len(shellcorpus.Bypasses), fp, len(shellcorpus.Benign))
}

// TestShellXargs pins how xargs options are read (GNU findutils 4.9): -e, -l and -i take only an attached
// value (the next argument is the command), -I and -i name a replacement string, and an argument that
// contains it is only known at run time. Nothing here is executed.
func TestShellXargs(t *testing.T) {
	c := compileFragment(t, "shell")["shell_guard"]
	for _, tc := range []struct {
		cmd, rule string // rule "" means allowed
	}{
		{`xargs rm -rf`, "rm_root"},
		{`xargs --max-lines rm -rf`, "rm_root"},
		{`xargs --max-lines=2 rm -rf`, "rm_root"},
		{`xargs -l rm -rf`, "rm_root"},
		{`xargs -l2 rm -rf`, "rm_root"},
		{`xargs --eof rm -rf`, "rm_root"},
		{`xargs -eE rm -rf`, "rm_root"},
		{`xargs -E E rm -rf`, "rm_root"},
		{`xargs -L 1 rm -rf`, "rm_root"},
		{`xargs -I{} rm -rf {}`, "rm_root"},
		{`xargs -I {} rm -rf {}`, "rm_root"},
		{`xargs -i rm -rf {}`, "rm_root"},
		{`xargs -iQ rm -rf Q`, "rm_root"},
		{`xargs --replace rm -rf {}`, "rm_root"},
		{`xargs --replace=Q rm -rf /Q`, "rm_root"},
		{`xargs -I{} sh -c '{}'`, "dynamic"},
		{`xargs -I{} sh -c 'echo {}'`, "dynamic"},
		{`xargs -I{} {}`, "dynamic"},
		{`xargs -I "$R" echo hi`, "dynamic"},
		{`xargs -I{} rm -rf ./build/{}`, ""},
		{`xargs -I{} rm -rf ./build/{}/cache`, ""},
		{`xargs -I{} echo rm -rf {}`, ""},
		{`xargs -i echo {}`, ""},
		{`xargs -I{} gofmt -l {}`, ""},
		{`xargs -n1 echo`, ""},
	} {
		v := c.Check(tc.cmd)
		got := ""
		if !v.Allowed {
			got = v.Rule
		}
		if got != tc.rule {
			t.Errorf("%q: rule %q, want %q (%s)", tc.cmd, got, tc.rule, v.Message)
		}
	}
}
