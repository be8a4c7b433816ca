package policy

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// No command here runs: the tests only compute verdicts.

const denied = "Tool execution denied by policy."

// geminiPolicy is the library's Gemini CLI policy with rules and legacy lists added, and the mode given.
func geminiPolicy(yolo, nonInteractive bool, core, exclude []string, rules ...spec.PriorityRule) spec.Policy {
	p := spec.Policy{Use: "gemini_cli_policy", Priority: &spec.PriorityPolicy{Rules: rules, Core: core, Exclude: exclude}}
	r, err := spec.ResolvePolicy(p)
	if err != nil {
		panic(err)
	}
	r.Priority.Yolo, r.Priority.NonInteractive = yolo, nonInteractive
	if !nonInteractive {
		// An interactive session: no rule asks, and an ask is put to the user (the verdict's message is
		// the policy's).
		r.Priority.Default, r.Priority.AskMessage = spec.DecisionAsk, ""
	}
	if !yolo {
		r.Priority.Rules = r.Priority.Rules[1:] // the yolo.toml rule holds in yolo mode only
	}
	return r
}

func prefix(decision spec.Decision, priority float64, prefixes ...string) spec.PriorityRule {
	return spec.PriorityRule{CommandPrefix: prefixes, Decision: decision, Priority: priority}
}

func TestPriorityVerdicts(t *testing.T) {
	deny := func(msg string) string {
		if msg == "" {
			return denied
		}
		return denied + " " + msg
	}
	rmDeny := spec.PriorityRule{CommandPrefix: []string{"rm"}, Decision: spec.DecisionDeny, Priority: 4.1, DenyMessage: "Deletion is permanent"}
	for _, tc := range []struct {
		name     string
		p        spec.Policy
		command  string
		decision spec.Decision
		message  string
	}{
		{"yolo allows", geminiPolicy(true, true, nil, nil), "rm -rf ./no-such-dir", spec.DecisionAllow, ""},
		{"yolo allows what does not parse", geminiPolicy(true, true, nil, nil), "echo 'unterminated", spec.DecisionAllow, ""},
		{"user deny beats yolo", geminiPolicy(true, true, nil, nil, rmDeny), "rm -rf ./no-such-dir", spec.DecisionDeny, deny("Deletion is permanent")},
		{"prefix needs a word end", geminiPolicy(true, true, nil, nil, rmDeny), "rmdir x", spec.DecisionAllow, ""},
		{"prefix alone", geminiPolicy(true, true, nil, nil, rmDeny), "rm", spec.DecisionDeny, deny("Deletion is permanent")}, // `"command":"rm"`: the closing quote follows the prefix
		{"deny in a subcommand", geminiPolicy(true, true, nil, nil, rmDeny), "ls && rm -rf ./no-such-dir", spec.DecisionDeny, deny("Deletion is permanent")},
		{"deny in a pipeline", geminiPolicy(true, true, nil, nil, rmDeny), "echo x | rm y", spec.DecisionDeny, deny("Deletion is permanent")},
		{"multi-word prefix", geminiPolicy(true, true, nil, nil, prefix(spec.DecisionDeny, 4.1, "git push")), "git status; git push origin", spec.DecisionDeny, denied},
		{"regex is anchored at the start", geminiPolicy(true, true, nil, nil, spec.PriorityRule{CommandRegex: "git (commit|push)", Decision: spec.DecisionDeny, Priority: 4.1}), "echo git push", spec.DecisionAllow, ""},
		{"regex matches", geminiPolicy(true, true, nil, nil, spec.PriorityRule{CommandRegex: "git (commit|push)", Decision: spec.DecisionDeny, Priority: 4.1}), "git commit -m x", spec.DecisionDeny, denied},
		{"higher priority wins", geminiPolicy(true, true, nil, nil, prefix(spec.DecisionDeny, 4.1, "git"), prefix(spec.DecisionAllow, 4.2, "git status")), "git status", spec.DecisionAllow, ""},
		{"tie: the first in order wins", geminiPolicy(false, false, nil, nil, prefix(spec.DecisionAllow, 4.1, "git"), prefix(spec.DecisionDeny, 4.1, "git")), "git log", spec.DecisionAllow, ""},
		{"tie: the first in order wins (deny first)", geminiPolicy(false, false, nil, nil, prefix(spec.DecisionDeny, 4.1, "git"), prefix(spec.DecisionAllow, 4.1, "git")), "git log", spec.DecisionDeny, denied},
		{"interactive default asks", geminiPolicy(false, false, nil, nil), "make", spec.DecisionAsk, denied},
		{"headless ask is a deny", geminiPolicy(false, true, nil, nil), "make", spec.DecisionDeny, denied},
		{"allowed list, the rest asks", geminiPolicy(false, false, nil, nil, prefix(spec.DecisionAllow, 4.1, "git", "ls")), "ls && make", spec.DecisionAsk, denied},
		{"ask_user rule", geminiPolicy(true, false, nil, nil, prefix(spec.DecisionAskUser, 4.1, "npm")), "npm test", spec.DecisionAsk, denied},
		{"headless ask_user is refused", geminiPolicy(true, true, nil, nil, prefix(spec.DecisionAskUser, 4.1, "npm")), "ls; npm test", spec.DecisionDeny,
			`Tool execution for "Shell" requires user confirmation, which is not supported in non-interactive mode.`},
		{"headless: no rule denies", geminiPolicy(false, true, nil, nil, prefix(spec.DecisionAllow, 4.1, "ls")), "ls; make", spec.DecisionDeny, denied},
		{"does not parse: default", geminiPolicy(false, false, nil, nil, prefix(spec.DecisionAllow, 4.1, "echo")), "echo 'unterminated", spec.DecisionAsk, denied},
		{"does not parse in yolo with a condition: deny", geminiPolicy(true, true, nil, nil, prefix(spec.DecisionAllow, 4.1, "echo")), "echo 'unterminated", spec.DecisionDeny, denied},
		{"core allows its prefixes", geminiPolicy(true, true, []string{"run_shell_command(git)", "read_file"}, nil), "git status && git log", spec.DecisionAllow, ""},
		{"core denies the rest", geminiPolicy(true, true, []string{"run_shell_command(git)"}, nil), "git status && make", spec.DecisionDeny, denied},
		{"core with the bare tool allows all", geminiPolicy(false, true, []string{"run_shell_command"}, nil), "make", spec.DecisionAllow, ""},
		{"core without the tool denies it", geminiPolicy(true, true, []string{"read_file"}, nil), "ls", spec.DecisionDeny, denied},
		{"exclude denies the tool", geminiPolicy(true, true, nil, []string{"run_shell_command"}), "ls", spec.DecisionDeny, denied},
		{"exclude of a narrowed entry is no rule", geminiPolicy(true, true, nil, []string{"run_shell_command(rm)"}), "rm x", spec.DecisionAllow, ""},
		{"exclude beats core", geminiPolicy(true, true, []string{"run_shell_command"}, []string{"run_shell_command"}), "ls", spec.DecisionDeny, denied},
		{"json escapes: a quote after the prefix", geminiPolicy(true, true, nil, nil, rmDeny), `rm"x"`, spec.DecisionDeny, deny("Deletion is permanent")},
		{"json escapes: a tab is not white space", geminiPolicy(true, true, nil, nil, rmDeny), "rm\tx", spec.DecisionAllow, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compile(tc.p)
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

func TestPriorityProblems(t *testing.T) {
	base := func(rules ...spec.PriorityRule) spec.Policy {
		return spec.Policy{Name: "g", Kind: spec.PolicyPriority, Message: "m", Priority: &spec.PriorityPolicy{Rules: rules}}
	}
	for _, tc := range []struct {
		name string
		p    spec.Policy
		want string
	}{
		{"no block", spec.Policy{Name: "g", Kind: spec.PolicyPriority, Message: "m"}, "a priority policy needs a priority block"},
		{"both conditions", base(spec.PriorityRule{CommandPrefix: []string{"a"}, CommandRegex: "b", Decision: "allow"}), "cannot be used in the same rule"},
		{"bad regex", base(spec.PriorityRule{CommandRegex: "(", Decision: "allow"}), "priority.rules[0].command_regex"},
		{"bad decision", base(spec.PriorityRule{Decision: "maybe"}), `unknown decision "maybe"`},
		{"legacy lists need the tool", spec.Policy{Name: "g", Kind: spec.PolicyPriority, Message: "m", Priority: &spec.PriorityPolicy{Core: []string{"x"}}}, "core and exclude need the tool name"},
		{"no message", spec.Policy{Name: "g", Kind: spec.PolicyPriority, Priority: &spec.PriorityPolicy{}}, "a priority policy needs a message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestHostRules checks the host options that add a user's rules to a wildcard or priority policy: the
// spec's examples hold for the spec's rules, the verdicts follow the added ones, and bad rules are errors.
func TestHostRules(t *testing.T) {
	table := spec.Policy{Use: "opencode_bash", Examples: &spec.PolicyExamples{Allowed: []string{"rm x"}}}
	c, err := Compile(table, WithWildcardRules("opencode_bash", spec.WildcardRule{Pattern: "rm *", Decision: spec.DecisionDeny}))
	if err != nil {
		t.Fatal(err)
	}
	if v := c.Check("ls && rm -rf ./no-such-dir"); v.Decision != spec.DecisionDeny {
		t.Errorf("the host's table: %s, want deny", v)
	}
	if _, err := Compile(table, WithWildcardRules("opencode_bash", spec.WildcardRule{Pattern: "rm *", Decision: "maybe"})); err == nil || !strings.Contains(err.Error(), `unknown decision "maybe"`) {
		t.Errorf("a bad host rule: %v", err)
	}
	engine := spec.Policy{Use: "gemini_cli_policy"}
	c, err = Compile(engine, WithPriorityRules("gemini_cli_policy", spec.PriorityRule{CommandPrefix: []string{"rm"}, Decision: spec.DecisionDeny, Priority: 4.1}))
	if err != nil {
		t.Fatal(err)
	}
	if v := c.Check("ls | rm x"); v.Decision != spec.DecisionDeny || v.Message != denied {
		t.Errorf("the host's rules: %s, want the denial", v)
	}
	if v := c.Check("ls"); !v.Allowed {
		t.Errorf("the host's rules: ls is %s", v)
	}
	if _, err := Compile(engine, WithPriorityRules("gemini_cli_policy", spec.PriorityRule{CommandRegex: "(", Decision: spec.DecisionDeny})); err == nil {
		t.Error("a bad host regex compiles")
	}
}
