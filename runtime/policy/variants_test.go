package policy

import (
	"errors"
	"strings"
	"testing"
)

// assertVerdict checks a verdict against an upstream message (empty: allowed) and decision.
func assertVerdict(t *testing.T, cmd string, v Verdict, decision, want string) {
	t.Helper()
	if want == "" {
		if !v.Allowed {
			t.Errorf("%q: blocked (%s), upstream allows it", cmd, v.Message)
		}
		return
	}
	if v.Allowed {
		t.Errorf("%q: allowed, upstream blocks it with %q", cmd, want)
		return
	}
	if string(v.Decision) != decision {
		t.Errorf("%q: decision %s, upstream %s", cmd, v.Decision, decision)
	}
	if v.Message != want {
		t.Errorf("%q: message\n got  %q\n want %q", cmd, v.Message, want)
	}
	if v.Fail == nil || v.Fail.Message != "{{.Message}}" {
		t.Errorf("%q: fail %+v, want the policy's declared failure", cmd, v.Fail)
	}
}

func TestToolregistry(t *testing.T) {
	cs := compileFragment(t, "toolregistry")
	if len(toolregistryTable) < 40 {
		t.Fatalf("only %d commands", len(toolregistryTable))
	}
	for _, tc := range toolregistryTable {
		v := cs["toolregistry_deny"].Check(tc.cmd)
		assertVerdict(t, tc.cmd, v, "deny", tc.want)
		if !v.Allowed && v.Fail.Type != "ValueError" {
			t.Errorf("%q: fail type %s", tc.cmd, v.Fail.Type)
		}
	}
}

func TestTunacode(t *testing.T) {
	cs := compileFragment(t, "tunacode")
	if len(tunacodeTable) < 40 {
		t.Fatalf("only %d commands", len(tunacodeTable))
	}
	order := []string{"tunacode_destructive", "tunacode_security"}
	for _, tc := range tunacodeTable {
		v := checkSeq(cs, order, tc.cmd)
		assertVerdict(t, tc.cmd, v, "deny", tc.want)
		if tc.want != "" && v.Policy != tc.policy {
			t.Errorf("%q: blocked by %s, upstream by %s", tc.cmd, v.Policy, tc.policy)
		}
		if !v.Allowed && v.Fail.Type != "ModelRetry" {
			t.Errorf("%q: fail type %s", tc.cmd, v.Fail.Type)
		}
	}
}

func TestCodegensandbox(t *testing.T) {
	cs := compileFragment(t, "codegensandbox")
	if len(codegensandboxTable) < 40 {
		t.Fatalf("only %d commands", len(codegensandboxTable))
	}
	for _, tc := range codegensandboxTable {
		assertVerdict(t, tc.cmd, cs["codegensandbox_deny"].Check(tc.cmd), "deny", tc.want)
	}
}

// agentrailConfigs are the host permission configurations of agentrailTable ("none": the spec's default,
// which is upstream's "no policy").
var agentrailConfigs = map[string]*HostPermissions{
	"none":    nil,
	"seed":    {Mode: "default", Deny: []string{"Bash(rm:*)"}, Allow: []string{"Bash(git:*)", "Bash(npm:*)"}},
	"askall":  {Mode: "default", Ask: []string{"Bash"}},
	"dontask": {Mode: "dontAsk", Ask: []string{"Bash(curl:*)"}},
	"strict":  {Mode: "strict", Deny: []string{"Bash(git:push*)"}, Allow: []string{"Bash(git:*)", "Bash(ls)", "Bash(go:test **)"}, Ask: []string{"Bash(npm:*)"}},
	"bypass":  {Mode: "bypassPermissions", Deny: []string{"Bash"}},
	"accept":  {Mode: "acceptEdits", Ask: []string{"Bash(git:*)", "Write(/x/**)"}},
	"path":    {Mode: "strict", Allow: []string{"Bash(cat:/w/*)", "Bash(cat:/x/**)"}},
}

func TestAgentrail(t *testing.T) {
	if n := strings.Count(strings.Join(func() []string {
		var s []string
		for _, tc := range agentrailTable {
			if tc.config == "none" {
				s = append(s, tc.cmd)
			}
		}
		return s
	}(), "\x00"), "\x00") + 1; n < 40 {
		t.Fatalf("only %d commands", n)
	}
	checkers := map[string]map[string]Checker{}
	for name, h := range agentrailConfigs {
		var opts []Option
		if h != nil {
			opts = append(opts, WithPermissions(*h))
		}
		checkers[name] = compileFragment(t, "agentrail", opts...)
	}
	order := []string{"agentrail_dangerous", "agentrail_permissions"}
	for _, tc := range agentrailTable {
		v := checkSeq(checkers[tc.config], order, tc.cmd)
		if tc.decision == "allow" {
			tc.want = ""
		}
		assertVerdict(t, tc.config+": "+tc.cmd, v, tc.decision, tc.want)
		if !v.Allowed && v.Fail.Type != "ToolError" {
			t.Errorf("%q: fail type %s", tc.cmd, v.Fail.Type)
		}
	}
}

func TestAgentrailRuleParse(t *testing.T) {
	for _, tc := range agentrailRuleParse {
		r, err := ParsePermissionRule(tc.rule)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.rule, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.rule, err)
		case r.Tool != tc.tool || r.Pattern != tc.pattern:
			t.Errorf("%q: %+v, want %q %q", tc.rule, r, tc.tool, tc.pattern)
		}
	}
	_, err := ParsePermissionRules([]string{"Bash", "Bash("})
	if err == nil || err.Error() != agentrailListError {
		t.Errorf("list error %v, want %q", err, agentrailListError)
	}
	var re *RuleError
	if !errors.As(err, &re) || re.Index != 1 || re.Rule != "Bash(" || re.Problem != "missing closing parenthesis" {
		t.Errorf("list error fields %+v", re)
	}
	// A host's invalid rule is a compile error that keeps upstream's text.
	_, err = CompileAll(loadPolicies(t, "agentrail"), WithPermissions(HostPermissions{Deny: []string{"Bash", "Bash("}}))
	if err == nil || !strings.HasSuffix(err.Error(), ": host.deny: "+agentrailListError) {
		t.Errorf("host rule error %v", err)
	}
	_, err = CompileAll(loadPolicies(t, "agentrail"), WithPermissions(HostPermissions{Mode: "yolo"}))
	if err == nil || !strings.Contains(err.Error(), `unknown mode "yolo"`) {
		t.Errorf("host mode error %v", err)
	}
}

func TestAgentrailFirstSpace(t *testing.T) {
	for _, tc := range agentrailFirstSpace {
		if got := NormalizeFirstSpace(tc.cmd); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

func TestAgentrailNormalize(t *testing.T) {
	for _, tc := range agentrailNormalize {
		if got := NormalizeBashCommand(tc.cmd); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.cmd, got, tc.want)
		}
	}
}
