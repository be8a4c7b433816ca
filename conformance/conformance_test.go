package conformance

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/conformance/cases"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// runT runs the suite as subtests of t, as conformancetest.Run does (which this package cannot import).
func runT(t *testing.T, v *spec.Variant, target Target, opts ...Option) *Report {
	t.Helper()
	s, err := Open(t.Context(), v, target, append(opts, TimeScale(timeScale))...)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			res := s.Run(t.Context(), c)
			switch res.Status {
			case Skip:
				t.Skip(res.Reason)
			case Fail:
				t.Error(res.Text())
			}
		})
	}
	r := s.Close()
	if r.CloseError != "" {
		t.Errorf("closing %s: %s", target.Name(), r.CloseError)
	}
	return r
}

// Harness test (our runtime against itself, not a check of any other implementation): every built-in
// variant run in process gives the reference's answers (the whole suite over the wire protocol and MCP runs
// in cmd/agentbash, against `agentbash serve`). It checks the suite and the masking, not the contract. Every
// spec feature is exercised, but the policy rules no command tells from the others, each reported as a
// skipped case that says so.
func TestHarnessBuiltinsAgainstThemselves(t *testing.T) {
	for _, id := range variants.IDs() {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			v := mustVariant(t, id)
			r, err := Check(context.Background(), v, InProcess(v), Parallel(4), TimeScale(timeScale))
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed == 0 || r.Failed != 0 || !r.OK() {
				t.Errorf("summary:\n%s", r.Summary())
			}
			for _, f := range r.Features.Missing {
				if !slices.ContainsFunc(r.Results, func(res Result) bool {
					return res.Status == Skip && strings.HasSuffix(res.Case, "/"+f) && strings.HasPrefix(res.Reason, "no command exercises this rule alone")
				}) {
					t.Errorf("feature %q is not exercised, and no skipped case says why", f)
				}
			}
			t.Logf("%s: %d passed, %d skipped, %d of %d features", id, r.Passed, r.Skipped, r.Features.Exercised, r.Features.Total)
		})
	}
}

// Harness test: the MCP stdio target drives our MCP server (serve.MCP) through the SDK's client, the
// error class travelling in _meta.
func TestHarnessMCPTarget(t *testing.T) {
	t.Parallel()
	v := mustVariant(t, "codegensandbox")
	// A server is started per case: a dozen cases are enough to show the mapping.
	some := map[string]bool{
		"Bash/stdout only": true, "Bash/stderr only": true, "Bash/non-zero exit": true, "Bash/invalid UTF-8": true,
		"Bash/killed by a signal": true, "Bash/output at limit+1 (102401 bytes)": true, "Bash/empty command": true,
		"Bash/missing command": true, "Bash/run in background": true, "BashOutput/unknown shell id": true,
		"KillShell/missing shell id": true,
	}
	r := runT(t, v, MCP(fakeTarget("mcp", "codegensandbox").Argv...), Filter(func(c Case) bool { return some[c.Name] }))
	if r.Passed != len(some) {
		t.Errorf("want %d cases passed:\n%s", len(some), r.Summary())
	}
}

// A spec with a deny list: blocked examples go guarded to every target and as written only to trusted
// ones; allowed examples only when harmless. A target that ignores the policy fails the guarded cases
// (and runs nothing harmful: the shell exits before the blocked command).
func TestPolicyCases(t *testing.T) {
	t.Parallel()
	v := mustVariant(t, "testdata/guarded.yaml")
	names := map[string]Case{}
	for _, c := range cases.Cases(v) {
		names[c.Name] = c
	}
	for _, want := range []string{
		"bash/policy deny blocks (guarded): rm -rf /nonexistent-agentbash-conformance",
		"bash/policy deny blocks (guarded): curl -s http://127.0.0.1:9/x | sh",
		"bash/policy deny blocks (guarded): sudo -n true",
		"bash/policy deny allows: ls -la",
		"bash/policy deny allows: echo sudo",
	} {
		if _, ok := names[want]; !ok {
			t.Errorf("no case %q", want)
		}
	}
	for _, unsafe := range []string{"bash/policy deny allows: rm -r -f /nonexistent-agentbash-conformance", "bash/policy deny allows: git status"} {
		if c, ok := names[unsafe]; !ok || !strings.Contains(c.Skip, "not provably harmless") {
			t.Errorf("case %q: an allowed example that is not provably harmless must be listed as skipped: %+v", unsafe, c)
		}
	}
	if c := names["bash/policy deny blocks: sudo -n true"]; c.Hazard == "" {
		t.Errorf("the blocked example as written has no hazard: %+v", c)
	}

	ctx := context.Background()
	only := Filter(func(c Case) bool { return strings.Contains(c.Name, "policy") || c.Name == "bash/stdout only" })
	for _, tc := range []struct {
		name             string
		target           Target
		opts             []Option
		passed, failed   int
		skipped          int
		failingSubstring string
	}{
		{name: "in process (trusted)", target: InProcess(v), passed: 9, skipped: 2},
		{name: "wire (untrusted)", target: fakeTarget("wire", "testdata/guarded.yaml"), passed: 6, skipped: 5},
		{name: "wire (trusted)", target: fakeTarget("wire", "testdata/guarded.yaml"), opts: []Option{Trusted()}, passed: 9, skipped: 2},
		{name: "no policy (untrusted)", target: fakeTarget("nopolicy", "testdata/guarded.yaml"), passed: 3, failed: 3, skipped: 5,
			failingSubstring: "want the error ValueError: Blocked:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Check(ctx, v, tc.target, append(tc.opts, only)...)
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed != tc.passed || r.Failed != tc.failed || r.Skipped != tc.skipped {
				t.Fatalf("got %d passed, %d failed, %d skipped; want %d, %d, %d\n%s", r.Passed, r.Failed, r.Skipped,
					tc.passed, tc.failed, tc.skipped, r.Summary())
			}
			for _, res := range r.Results {
				if res.Status == Fail && !strings.Contains(res.Diff, tc.failingSubstring) {
					t.Errorf("%s: diff does not say %q:\n%s", res.Case, tc.failingSubstring, res.Diff)
				}
				if res.Status == Fail && !strings.Contains(res.Case, "(guarded)") {
					t.Errorf("%s failed; only guarded cases should", res.Case)
				}
			}
		})
	}
}

// Broken targets (stand-ins for independent implementations) are caught, with a diff or a reason that says
// what is wrong, and a target that hangs or crashes fails its case and does not stop the run.
func TestBrokenTargets(t *testing.T) {
	quick := Filter(func(c Case) bool {
		for _, s := range []string{"stdout only", "stderr only", "non-zero exit", "empty output", "unicode"} {
			if strings.HasSuffix(c.Name, "/"+s) {
				return true
			}
		}
		return false
	})
	noTimeouts := Filter(func(c Case) bool { return !strings.Contains(c.Name, "timeout") })
	for _, tc := range []struct {
		mode    string
		opts    []Option
		failing map[string][]string // case -> substrings of its diff or reason
		maxTime time.Duration
	}{
		{mode: "marker", opts: []Option{noTimeouts}, failing: map[string][]string{
			"bash/stdout at limit+1 (65537 bytes)":       {"[truncated]", "[output truncated]", "texts differ at byte 65542"},
			"bash/stderr at limit+1 (65537 bytes)":       {"$.stderr"},
			"bash/multi-byte character across the limit": {"$.stdout"},
		}},
		{mode: "exitcode", opts: []Option{quick}, failing: map[string][]string{
			"bash/non-zero exit": {"$.exit_code: want 3, got 1"},
		}},
		{mode: "hang", opts: []Option{quick, Deadline(2 * time.Second)}, failing: map[string][]string{
			"bash/stdout only": {"did not answer request 1 by its deadline", "killed it (pid"},
		}},
		{mode: "crash", opts: []Option{quick}, failing: map[string][]string{
			"bash/stderr only": {"died before answering request 2", "exit status 2", "panic: simulated crash"},
		}},
		{mode: "garbage", opts: []Option{quick, Deadline(2 * time.Second)}, failing: map[string][]string{
			"bash/stdout only": {"did not answer request 1 by its deadline", "not a JSON object (skipped): hello from a target that forgot the protocol"},
		}},
		{mode: "late", opts: []Option{only("stdout at limit (65536 bytes)", "stdout at limit+1 (65537 bytes)")}, failing: map[string][]string{
			"bash/stdout at limit+1 (65537 bytes)": {"$.stdout", "texts differ at byte 65536", "want 65559 bytes, got 65537 bytes"},
		}},
		{mode: "nomarker", opts: []Option{only("stdout at limit+1 (65537 bytes)", "stdout only")}, failing: map[string][]string{
			"bash/stdout at limit+1 (65537 bytes)": {"$.stdout", "want 65559 bytes, got 65536 bytes", "[output truncated]"},
		}},
		{mode: "hangbg", opts: []Option{only("background child holding the output", "stdout only"), Deadline(3 * time.Second)}, failing: map[string][]string{
			"bash/background child holding the output": {"did not answer request", "by its deadline", "killed it"},
		}},
		{mode: "leave", opts: []Option{only("stdout only", "stderr only")}, failing: map[string][]string{
			"bash/stdout only": {"left a process running in the workspace", "sleep 3"},
		}},
		{mode: "errclass", opts: []Option{only("policy toolregistry_deny blocks (guarded): rm -rf /", "stdout only")}, failing: map[string][]string{
			"bash/policy toolregistry_deny blocks (guarded): rm -rf /": {`error.type: want "ValueError", got "RuntimeError"`},
		}},
		{mode: "dead", opts: []Option{quick}, maxTime: 5 * time.Second, failing: map[string][]string{
			"bash/stdout only":   {"exit status 3", "cannot start: no configuration"},
			"bash/stderr only":   {"exit status 3"},
			"bash/non-zero exit": {"exit status 3"},
			"bash/empty output":  {"exit status 3"},
			"bash/unicode":       {"restarted too often"},
		}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			v := mustVariant(t, "toolregistry")
			start := time.Now()
			r, err := Check(context.Background(), v, fakeTarget(tc.mode, "toolregistry"), tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.maxTime > 0 && time.Since(start) > tc.maxTime {
				t.Errorf("the run took %s", time.Since(start))
			}
			summary := r.Summary()
			if !strings.HasSuffix(summary, "\n"+fmtCounts(r)+"\n") || r.Failed != len(tc.failing) {
				t.Errorf("want %d failures:\n%s", len(tc.failing), summary)
			}
			byName := statusOf(r)
			for name, subs := range tc.failing {
				res, ok := byName[name]
				if !ok || res.Status != Fail {
					t.Errorf("%s: want a failure, got %+v", name, res.Status)
					continue
				}
				text := res.Text()
				for _, s := range subs {
					if !strings.Contains(text, s) {
						t.Errorf("%s: the report does not say %q:\n%s", name, s, text)
					}
				}
			}
			if t.Failed() {
				t.Logf("summary:\n%s", summary)
			}
		})
	}
}

// only keeps the cases of these names (after the tool's name and a slash).
func only(names ...string) Option {
	return Filter(func(c Case) bool {
		_, name, _ := strings.Cut(c.Name, "/")
		return slices.Contains(names, name)
	})
}

func fmtCounts(r *Report) string {
	s := strconv.Itoa(r.Passed) + " passed, " + strconv.Itoa(r.Failed) + " failed"
	if r.Skipped > 0 {
		s += ", " + strconv.Itoa(r.Skipped) + " skipped"
	}
	return s
}

// Broken session targets are caught: a target whose yield window ignores the one sent, one that loses
// what is written to a session, one that counts tokens otherwise.
func TestBrokenSessionTargets(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		cases   []string
		failing map[string][]string // case -> substrings of its report
	}{
		{mode: "wrongyield", cases: []string{"session: window as sent", "stdout only"}, failing: map[string][]string{
			"exec_command/session: window as sent": {"call 1 of 2", "in-window"},
		}},
		{mode: "loststdin", cases: []string{"session: a read answered through stdin", "stdout only"}, failing: map[string][]string{
			"exec_command/session: a read answered through stdin": {"call 2 of 2 (write_stdin", "got:hello"},
		}},
		{mode: "tokens", cases: []string{"output at budget (32 bytes)", "output at budget+1 (33 bytes)", "stdout only"}, failing: map[string][]string{
			"exec_command/output at budget (32 bytes)":   {"Original token count: 8", "Original token count: 11"},
			"exec_command/output at budget+1 (33 bytes)": {"original token count: 9", "tokens truncated"},
		}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			v := mustVariant(t, "codex")
			r, err := Check(context.Background(), v, fakeTarget(tc.mode, "codex"), only(tc.cases...), TimeScale(timeScale))
			if err != nil {
				t.Fatal(err)
			}
			if r.Failed != len(tc.failing) || r.Passed == 0 {
				t.Errorf("want %d failures:\n%s", len(tc.failing), r.Summary())
			}
			byName := statusOf(r)
			for name, subs := range tc.failing {
				res, ok := byName[name]
				if !ok || res.Status != Fail {
					t.Errorf("%s: want a failure, got %+v", name, res.Status)
					continue
				}
				text := res.Text() + "\n" + fmt.Sprint(res.Want) + fmt.Sprint(res.Got)
				for _, s := range subs {
					if !strings.Contains(text, s) {
						t.Errorf("%s: the report does not say %q:\n%s", name, s, text)
					}
				}
			}
		})
	}
}
