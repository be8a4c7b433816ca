package policy

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// No command here runs: the tests only compute verdicts.

func TestMatchWildcard(t *testing.T) {
	for _, tc := range []struct {
		pattern, command string
		want             bool
	}{
		{"*", "", true},
		{"*", "anything at all\nwith a new line", true},
		{"git *", "git", true},
		{"git *", "git status", true},
		{"git *", "gitk", false},
		{"git *", "git\tstatus", false},
		{"git status", "git status", true},
		{"git status", "git status -s", false},
		{"git status*", "git status -s", true},
		{"ls ?", "ls a", true},
		{"ls ?", "ls ab", false},
		{"ls ?", "ls", false},
		{"rm -rf *", "rm -rf /no/such/dir", true},
		{"rm -rf *", "rm -r x", false},
		{"echo (a)", "echo (a)", true},
		{"echo a.b", "echo axb", false},
		{"echo [ab]", "echo [ab]", true},
		{"echo [ab]", "echo a", false},
		{"cat C:\\x", "cat C:/x", true},
		{"cat C:/x", "cat C:\\x", true},
		{"*.env", "cat .env", true},
		{"npm run *", "npm run", true},
		{"npm run *", "npm runner", false},
		{"a * b", "a x y b", true},
		{"a * b", "a b", false},
	} {
		if got := MatchWildcard(tc.pattern, tc.command); got != tc.want {
			t.Errorf("MatchWildcard(%q, %q) = %v, want %v", tc.pattern, tc.command, got, tc.want)
		}
	}
}

func wildcardPolicy(sel spec.WildcardSelect, def spec.Decision, rules ...string) spec.Policy {
	wp := &spec.WildcardPolicy{Select: sel, Default: def, Skip: []string{"cd"}, AskMessage: "ask {{.Segment}} ({{.Pattern}})"}
	for _, r := range rules {
		pattern, decision, _ := strings.Cut(r, "=")
		wp.Rules = append(wp.Rules, spec.WildcardRule{Pattern: pattern, Decision: spec.Decision(decision)})
	}
	return spec.Policy{Name: "w", Kind: spec.PolicyWildcard, Message: "deny {{.Segment}} ({{.Pattern}})", Wildcard: wp}
}

func TestWildcardVerdicts(t *testing.T) {
	table := []string{"*=ask", "git *=allow", "git push *=deny", "rm *=deny", "ls *=allow", "echo *=allow", "rm -i *=ask"}
	for _, tc := range []struct {
		name, sel, def string
		rules          []string
		command        string
		decision       spec.Decision
		message        string
	}{
		{"allowed command", "", "", table, "git status", spec.DecisionAllow, ""},
		{"last match wins", "", "", table, "git push origin main", spec.DecisionDeny, "deny git push origin main (git push *)"},
		{"catch-all asks", "", "", table, "make build", spec.DecisionAsk, "ask make build (*)"},
		{"bare command matches a trailing space-star", "", "", table, "git", spec.DecisionAllow, ""},
		{"deny in a list", "", "", table, "ls && rm -rf ./no-such-dir", spec.DecisionDeny, "deny rm -rf ./no-such-dir (rm *)"},
		{"deny beats an earlier ask", "", "", table, "make; rm x", spec.DecisionDeny, "deny rm x (rm *)"},
		{"first ask reported", "", "", table, "make a | tar x", spec.DecisionAsk, "ask make a (*)"},
		{"pipeline", "", "", table, "echo hi | rm x", spec.DecisionDeny, "deny rm x (rm *)"},
		{"command substitution", "", "", table, "echo $(rm x)", spec.DecisionDeny, "deny rm x (rm *)"},
		{"subshell", "", "", table, "(ls; rm y)", spec.DecisionDeny, "deny rm y (rm *)"},
		{"redirection is part of the command", "", "", table, "echo hi > out.txt", spec.DecisionAllow, ""},
		{"redirection text reaches the pattern", "", "", []string{"*=allow", "* > *=deny"}, "echo hi > out.txt; ls", spec.DecisionDeny, "deny echo hi > out.txt (* > *)"},
		{"skipped command", "", "", table, "cd /tmp", spec.DecisionAllow, ""},
		{"skipped command in a list", "", "", table, "cd /tmp && make", spec.DecisionAsk, "ask make (*)"},
		{"assignment only", "", "", table, "X=1", spec.DecisionAllow, ""},
		{"assignment prefix is part of the text", "", "", table, "X=1 git status", spec.DecisionAsk, "ask X=1 git status (*)"},
		{"empty command line", "", "", table, "", spec.DecisionAllow, ""},
		{"does not parse: checked whole", "", "", table, "git log 'unterminated", spec.DecisionAllow, ""},
		{"does not parse: whole line denied", "", "", table, "rm 'unterminated", spec.DecisionDeny, "deny rm 'unterminated (rm *)"},
		{"default ask without rules", "", "", nil, "ls", spec.DecisionAsk, "ask ls ()"},
		{"default allow", "", "allow", []string{"rm *=deny"}, "ls", spec.DecisionAllow, ""},
		{"default deny", "", "deny", []string{"ls *=allow"}, "ls; make", spec.DecisionDeny, "deny make ()"},
		{"last: a later short pattern overrides", "last", "", []string{"rm -i *=allow", "rm *=deny"}, "rm -i x", spec.DecisionDeny, "deny rm -i x (rm *)"},
		{"longest: the longer pattern wins", "longest", "", []string{"rm -i *=allow", "rm *=deny"}, "rm -i x", spec.DecisionAllow, ""},
		{"longest: equal lengths by text", "longest", "", []string{"rm a*=deny", "rm *b=ask", "rm *=allow"}, "rm ab", spec.DecisionDeny, "deny rm ab (rm a*)"},
		{"last: same table, table order", "last", "", []string{"rm a*=deny", "rm *b=ask", "rm *=allow"}, "rm ab", spec.DecisionAllow, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compile(wildcardPolicy(spec.WildcardSelect(tc.sel), spec.Decision(tc.def), tc.rules...))
			if err != nil {
				t.Fatal(err)
			}
			v := c.Check(tc.command)
			if v.Decision != tc.decision || v.Allowed != (tc.decision == spec.DecisionAllow) || v.Message != tc.message {
				t.Errorf("%q: %s %q, want %s %q", tc.command, v.Decision, v.Message, tc.decision, tc.message)
			}
		})
	}
}

func TestWildcardProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    spec.Policy
		want string
	}{
		{"no block", spec.Policy{Name: "w", Kind: spec.PolicyWildcard, Message: "m"}, "a wildcard policy needs a wildcard block"},
		{"bad decision", wildcardPolicy("", "", "ls *=maybe"), `wildcard.rules[0].decision: unknown decision "maybe"`},
		{"empty pattern", wildcardPolicy("", "", "=allow"), "wildcard.rules[0].pattern: is empty"},
		{"bad select", wildcardPolicy("first", ""), `unknown select "first"`},
		{"bad default", wildcardPolicy("", "maybe"), `wildcard.default: unknown decision "maybe"`},
		{"no message", func() spec.Policy { p := wildcardPolicy("", ""); p.Message = ""; return p }(), "a wildcard policy needs a message"},
		{"misplaced rules", func() spec.Policy { p := wildcardPolicy("", ""); p.Rules = []spec.PolicyRule{{Pattern: "x"}}; return p }(), "rules: does not apply to kind wildcard"},
		{"wildcard block on a regex policy", spec.Policy{Name: "r", Kind: spec.PolicyRegex, Message: "m", Rules: []spec.PolicyRule{{Pattern: "x"}}, Wildcard: &spec.WildcardPolicy{}}, "wildcard: does not apply to kind regex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestOpencodeBash checks the library's OpenCode table with the default and with a configured table
// appended, as a downstream spec's `use: opencode_bash` with its own rules gets it.
func TestOpencodeBash(t *testing.T) {
	def, err := Compile(spec.Policy{Use: "opencode_bash"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"git status", "rm -rf ./no-such-dir", "make && make install", ""} {
		if v := def.Check(cmd); !v.Allowed {
			t.Errorf("default table: %q is %s, OpenCode's build agent allows every command", cmd, v)
		}
	}
	own, err := Compile(spec.Policy{Use: "opencode_bash", Wildcard: &spec.WildcardPolicy{Rules: []spec.WildcardRule{
		{Pattern: "*", Decision: spec.DecisionAsk}, {Pattern: "git *", Decision: spec.DecisionAllow}, {Pattern: "rm *", Decision: spec.DecisionDeny}}}})
	if err != nil {
		t.Fatal(err)
	}
	const denied = `The user has specified a rule which prevents you from using this specific tool call. Here are some of the relevant rules [{"permission":"*","action":"allow","pattern":"*"},{"permission":"bash","pattern":"*","action":"ask"},{"permission":"bash","pattern":"git *","action":"allow"},{"permission":"bash","pattern":"rm *","action":"deny"}]`
	const rejected = "The user rejected permission to use this specific tool call."
	for _, tc := range []struct {
		command  string
		decision spec.Decision
		message  string
	}{
		{"git status", spec.DecisionAllow, ""},
		{"cd sub && git log", spec.DecisionAllow, ""},
		{"git diff | rm -rf ./no-such-dir", spec.DecisionDeny, denied},
		{"npm test", spec.DecisionAsk, rejected},
		{"git add . && npm test", spec.DecisionAsk, rejected},
	} {
		v := own.Check(tc.command)
		if v.Decision != tc.decision || v.Message != tc.message {
			t.Errorf("%q: %s %q, want %s %q", tc.command, v.Decision, v.Message, tc.decision, tc.message)
		}
	}
}
