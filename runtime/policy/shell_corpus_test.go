package policy

import (
	"testing"

	"github.com/agentbash/agentbash/runtime/policy/internal/shellcorpus"
)

// The shell-parsing policy's corpora. These are strings: no test ever runs them.

// TestShellCorpus prints the shell policy's catch rate on the bypass corpus and its false-positive rate on
// the benign corpus, and fails below 95% caught or above 0 false positives.
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
			t.Logf("missed (%s): %q", b.Category, b.Cmd)
		}
	}
	fp := 0
	for _, cmd := range shellcorpus.Benign {
		if v := c.Check(cmd); !v.Allowed {
			fp++
			t.Logf("false positive: %q: %s", cmd, v.Message)
		}
	}
	catch := float64(caught) / float64(len(shellcorpus.Bypasses)) * 100
	fpr := float64(fp) / float64(len(shellcorpus.Benign)) * 100
	t.Logf("shell_guard: caught %d/%d bypasses (%.1f%%), %d/%d false positives (%.1f%%)", caught, len(shellcorpus.Bypasses), catch, fp, len(shellcorpus.Benign), fpr)
	if catch < 95 {
		t.Errorf("catch rate %.1f%% < 95%%", catch)
	}
	if fp > 0 {
		t.Errorf("%d false positives", fp)
	}
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
