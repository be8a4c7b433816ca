package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/conformance"
	"github.com/agentbash/agentbash/conformance/model/modeltest"
)

// The test binary doubles as a host CLI (modeltest.FakeHost), which the fake npm installs.
func init() {
	if len(os.Args) >= 2 && os.Args[1] == "model-fakehost" {
		os.Exit(modeltest.FakeHost(os.Args[2:]))
	}
}

// hosts.yaml is valid: every host's pin is exact, its API known, its spec, templates and baseline load.
func TestHostsFile(t *testing.T) {
	c, err := LoadConfig("hosts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withSpec := 0
	for _, h := range c.Hosts {
		if h.Spec != "" {
			withSpec++
		}
	}
	if withSpec == 0 {
		t.Fatal("no host of hosts.yaml has a spec: make hosts would check nothing")
	}
}

func TestLoadConfigErrors(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"hosts:\n  - {name: a, npm: x@latest, bin: a, api: anthropic, argv: ['{bin}']}\n", "pin an exact version"},
		{"hosts:\n  - {name: a, npm: x@1.0.0, bin: a, api: anthropic, argv: [a]}\n", "argv must run {bin}"},
		{"hosts:\n  - {name: a, npm: x@1.0.0, bin: a, api: claude, argv: ['{bin}']}\n", "unknown model API"},
		{"hosts:\n  - {name: a, npm: x@1.0.0, bin: a, api: anthropic, argv: ['{bin}'], spec: nosuch}\n", "spec:"},
		{"hosts:\n  - {name: a, npm: x@1.0.0, bin: a, api: anthropic, argv: ['{bin}'], skip: x}\n", "skip_reason"},
		{"hosts:\n  - {name: a, npm: x@1.0.0, bin: a, api: anthropic, argv: ['{bin}'], spec: rye, tools: {Bash: b}}\n", `no tool "Bash"`},
		{"hosts:\n  - {name: a, npm: x@1.0.0, bin: a, api: anthropic, argv: ['{bin}'], files: {x: missing.toml}}\n", "files:"},
		{"hosts:\n  - {name: a, npm: x@1.0.0, bin: a, api: anthropic, argv: ['{bin}'], color: red}\n", "field color not found"},
		{"hosts:\n  - {name: a, npm: x@1.0.0, bin: a, script: hosts.yaml, api: anthropic, argv: ['{bin}']}\n", "not both"},
		{"hosts:\n  - {name: a, npm: x@1.0.0, script: missing.mjs, api: anthropic, argv: ['{bin}']}\n", "script:"},
	}
	for i, tc := range cases {
		p := filepath.Join(t.TempDir(), "hosts.yaml")
		os.WriteFile(p, []byte(tc.yaml), 0o644)
		if _, err := LoadConfig(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d: got %v, want %q", i, err, tc.want)
		}
	}
}

// fakeNPM writes an npm that installs a package as its arguments name it: its package.json, and a command
// bin that runs the test binary as a host. With fail, it fails as npm does offline.
func fakeNPM(t *testing.T, bin string, fail bool) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "npm")
	script := fmt.Sprintf(`#!/bin/sh
[ %q = true ] && { echo "npm error code ENOTFOUND" >&2; echo "npm error network request failed" >&2; exit 1; }
while [ $# -gt 0 ]; do case "$1" in --prefix) dir=$2; shift 2;; -*) shift;; *) spec=$1; shift;; esac; done
pkg=${spec%%@*}; ver=${spec##*@}
mkdir -p "$dir/node_modules/$pkg" "$dir/node_modules/.bin"
printf '{"name": "%%s", "version": "%%s"}\n' "$pkg" "$ver" > "$dir/node_modules/$pkg/package.json"
printf '#!/bin/sh\nexec %%s model-fakehost "$@"\n' %q > "$dir/node_modules/.bin/%s"
chmod +x "$dir/node_modules/.bin/%s"
`, fmt.Sprint(fail), os.Args[0], bin, bin)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// make hosts against a host the fake npm installs: the table, the failures' first lines and the exit
// status, for a host that passes (with a baseline entry), one that fails a case, and npm failing.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "baseline.yaml"), []byte(`variant: rye
failures:
  - case: "bash/stderr only"
    reason: the host runs tunacode's tool, not rye's
    flaky: true
`), 0o644)
	os.WriteFile(filepath.Join(dir, "hosts.yaml"), []byte(`pinned: 2026-11-26
hosts:
  - name: good
    npm: "fake-good@1.2.3"
    bin: fakehost
    spec: rye
    api: openai-chat
    argv: ["{bin}", -api, openai-chat, -base, "{base_url}", -variant, rye]
    baseline: baseline.yaml
  - name: bad
    npm: "@scope/fake-bad@0.1.0"
    bin: fakehost
    spec: rye
    api: anthropic
    argv: ["{bin}", -api, anthropic, -base, "{base_url}", -variant, tunacode, -prefix, x]
    tools: {bash: xbash}
    skip: "timeout"
    skip_reason: not this one
  - name: later
    npm: "later@2.0.0"
    bin: later
    api: gemini
    argv: ["{bin}"]
`), 0o644)
	npm := fakeNPM(t, "fakehost", false)
	var out, errb bytes.Buffer
	code := run([]string{"-config", filepath.Join(dir, "hosts.yaml"), "-cache", filepath.Join(dir, "cache"), "-npm", npm,
		"-run", "^bash/(stdout only|stderr only|non-zero exit|timeout with partial output.*)$"}, &out, &errb)
	got := out.String()
	if code != 1 {
		t.Errorf("exit %d, want 1 (the bad host fails)\n%s\n%s", code, got, errb.String())
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^good +fake-good@1\.2\.3 +rye +openai-chat +4 +\d +0 +\d +0 .* ok$`),
		regexp.MustCompile(`(?m)^bad +@scope/fake-bad@0\.1\.0 +rye +anthropic +3 +0 +3 +0 +0 .* FAILED$`),
		regexp.MustCompile(`(?m)^later +later@2\.0\.0 +- +gemini +- .* no spec yet`),
		regexp.MustCompile(`(?m)^bad: FAIL bash/stdout only\n    params: \{"command":"echo hello"\}\n    \$: want an object`),
		regexp.MustCompile(`(?m)^bad: \d+ cases left out \(timeout\): not this one$`),
		regexp.MustCompile(`(?m)^hosts: FAILED bad: 3 cases failed \(bash/stdout only, bash/stderr only, bash/non-zero exit\)\n\z`),
		regexp.MustCompile(`(?m)^bad: reproduce with:\n    agentbash conformance rye -model anthropic -tool bash=xbash -skip timeout -- \S+/cache/bad/node_modules/\.bin/fakehost -api anthropic`),
	} {
		if !want.MatchString(got) {
			t.Errorf("output lacks %s:\n%s", want, got)
		}
	}
	if !strings.Contains(errb.String(), "hosts: bad: running 3 failed cases again") {
		t.Errorf("the bad host's failed cases were not run again:\n%s", errb.String())
	}
	if strings.Contains(got, "good: FAIL") {
		t.Errorf("the good host failed:\n%s", got)
	}
	// Installed once: a second run does not call npm (which now fails).
	out.Reset()
	if code := run([]string{"-config", filepath.Join(dir, "hosts.yaml"), "-cache", filepath.Join(dir, "cache"), "-npm", fakeNPM(t, "fakehost", true),
		"-host", "good", "-run", "^bash/stdout only$"}, &out, &errb); code != 0 {
		t.Errorf("second run: exit %d\n%s", code, out.String())
	}
	// npm cannot install: skipped with npm's words, not failed.
	out.Reset()
	errb.Reset()
	code = run([]string{"-config", filepath.Join(dir, "hosts.yaml"), "-cache", filepath.Join(dir, "cache2"), "-npm", fakeNPM(t, "fakehost", true),
		"-host", "good"}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "npm could not install fake-good@1.2.3: exit status 1: npm error code ENOTFOUND | npm error network request failed") {
		t.Errorf("npm failing: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
}

// A host that is a script over its package: installed once, the script copied beside node_modules at each
// install (so an edit of it is what runs) and {bin} its copy; without node it is skipped saying so.
func TestInstallScript(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "host.mjs")
	os.WriteFile(script, []byte("// one\n"), 0o644)
	h := Host{Name: "lib", NPM: "@scope/lib@1.0.0", Script: "host.mjs"}
	var log bytes.Buffer
	if _, err := exec.LookPath("node"); err != nil {
		_, err := install(t.Context(), fakeNPM(t, "x", false), filepath.Join(dir, "cache"), h, script, &log)
		if err == nil || !strings.Contains(err.Error(), "node is not installed") {
			t.Fatalf("without node: %v", err)
		}
		return
	}
	bin, err := install(t.Context(), fakeNPM(t, "x", false), filepath.Join(dir, "cache"), h, script, &log)
	if want := filepath.Join(dir, "cache", "lib", "host.mjs"); err != nil || bin != want {
		t.Fatalf("install: %q %v, want %q", bin, err, want)
	}
	os.WriteFile(script, []byte("// two\n"), 0o644)
	// Installed: npm (failing now) is not run again, and the copy is the new script.
	if bin, err = install(t.Context(), fakeNPM(t, "x", true), filepath.Join(dir, "cache"), h, script, &log); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(bin); string(b) != "// two\n" {
		t.Errorf("the copy holds %q", b)
	}
}

// A case that failed unexpectedly is run again (-retries, 1 by default): failedCases names exactly those
// (not a stale baseline entry, which passed), and mergeRetry takes in the ones that then pass or fail as
// the baseline expects, as flaky, with their first failure; one that fails again stays failed.
func TestRetry(t *testing.T) {
	rep := &conformance.Report{
		Results: []conformance.Result{
			{Case: "bash/a", Tool: "bash", Group: "g", Status: conformance.Pass},
			{Case: "bash/b (1s)", Tool: "bash", Group: "g", Status: conformance.Fail, Summary: `$.stdout: want "x" got ""`},
			{Case: "bash/c", Tool: "bash", Group: "g", Status: conformance.Fail, Summary: "no answer"},
			{Case: "bash/d", Tool: "bash", Group: "g", Status: conformance.Fail, Baseline: conformance.Stale, Reason: "stale baseline: the case is listed as an expected failure (x) but passes"},
			{Case: "bash/e", Tool: "bash", Group: "g", Status: conformance.Fail, Reason: "lost\nmore"},
		},
		Passed: 1, Failed: 4,
		Groups: []conformance.Group{{Tool: "bash", Name: "g", Passed: 1, Failed: 4}},
	}
	re, n := failedCases(rep)
	if n != 3 || !re.MatchString("bash/b (1s)") || !re.MatchString("bash/c") || !re.MatchString("bash/e") || re.MatchString("bash/d") || re.MatchString("bash/b") {
		t.Fatalf("failedCases: %v, %d", re, n)
	}
	rerun := &conformance.Report{Results: []conformance.Result{
		{Case: "bash/b (1s)", Tool: "bash", Group: "g", Status: conformance.Pass},
		{Case: "bash/c", Tool: "bash", Group: "g", Status: conformance.Fail, Summary: "no answer again"},
		{Case: "bash/e", Tool: "bash", Group: "g", Status: conformance.XFail, Baseline: conformance.Raced, Reason: "expected failure (baseline race: r)"},
	}}
	mergeRetry(rep, rerun)
	if rep.Passed != 2 || rep.Failed != 2 || rep.Expected != 1 || rep.Results[1].Status != conformance.Pass || rep.Results[2].Summary != "no answer" || rep.Results[4].Status != conformance.XFail {
		t.Errorf("merged: %+v", rep)
	}
	if g := rep.Groups[0]; g.Passed != 2 || g.Failed != 2 || g.Expected != 1 {
		t.Errorf("group: %+v", g)
	}
	want := []string{
		`FLAKY bash/b (1s): failed, then pass on a second run; the first run: $.stdout: want "x" got ""`,
		"FLAKY bash/e: failed, then xfail on a second run; the first run: lost",
	}
	if !slices.Equal(rep.Warnings, want) {
		t.Errorf("warnings:\n%q\nwant\n%q", rep.Warnings, want)
	}
	if rep.OK() {
		t.Errorf("OK with %d cases failed", rep.Failed)
	}
	if re, n := failedCases(&conformance.Report{Results: []conformance.Result{{Case: "x", Status: conformance.Pass}}}); re != nil || n != 0 {
		t.Errorf("nothing failed: %v %d", re, n)
	}
}
