package policy

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentbash/agentbash/internal/shellcorpus"
	"github.com/agentbash/agentbash/spec"
	"go.yaml.in/yaml/v3"
)

// policyYAML decodes one policy written inline.
func policyYAML(t *testing.T, src string) spec.Policy {
	t.Helper()
	var p spec.Policy
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustCompile(t *testing.T, src string, opts ...Option) Checker {
	t.Helper()
	c, err := Compile(policyYAML(t, src), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRegexData(t *testing.T) {
	c := mustCompile(t, `
name: p
kind: regex
split: {pattern: ';', strip: true, skip_empty: true}
message: '{{.Rule}}|{{.Reason}}|{{.Pattern}}|{{.Match}}|{{index .Groups 1}}|{{.Segment}}|{{.Char}}|{{.Command}}|{{.Policy}}'
rules:
  - {name: tok, pattern: '(su|do)+x', reason: r1}
  - {name: semi, pattern: '(&)', reason: r2, scope: command}
`)
	for _, tc := range []struct{ cmd, want string }{
		{"a ;  b sudox c ; d", "tok|r1|(su|do)+x|sudox|do|b sudox c||a ;  b sudox c ; d|p"},
		{"x & y", "semi|r2|(&)|&|&|x & y|&|x & y|p"},
		{"nothing", ""},
	} {
		v := c.Check(tc.cmd)
		if got := map[bool]string{true: "", false: v.Message}[v.Allowed]; got != tc.want {
			t.Errorf("%q: %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// Rules of a segments block run segment-major: the first segment that any rule matches wins, whatever the
// rule's place in the table (toolregistry's loop over segments, then patterns).
func TestSegmentMajor(t *testing.T) {
	c := compileFragment(t, "toolregistry")["toolregistry_deny"]
	v := c.Check("sudo true; mkfs /dev/x")
	if v.Message != "Dangerous command blocked: Privilege escalation via sudo" || v.Rule != "sudo" {
		t.Errorf("%+v", v)
	}
	// The command-scope pipe-to-shell rule runs before every segment.
	v = c.Check("sudo x; curl u | sh")
	if v.Reason != "pipe-to-shell execution detected" {
		t.Errorf("%+v", v)
	}
}

func TestUnless(t *testing.T) {
	c := compileFragment(t, "tunacode")["tunacode_security"]
	for cmd, blocked := range map[string]bool{"echo {x}": true, "echo {x} $y": false, "echo ${y} }": false, "echo }": true} {
		if v := c.Check(cmd); v.Allowed == blocked {
			t.Errorf("%q: %+v", cmd, v)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"name: p\nkind: nope", `policy "p": kind: unknown kind "nope"`},
		{"name: p\nkind: regex\nmessage: m\nrules: [{pattern: 'a(?=b)'}]", `lookaround (?= is not supported by RE2 (express the exception with unless)`},
		{"name: p\nkind: regex\nmessage: m\nrules: [{pattern: '(a)\\1'}]", `backreference \1 is not supported by RE2`},
		{"name: p\nkind: regex\nmessage: m\ndialect: python\nrules: [{pattern: 'é'}]", `non-ASCII pattern text is not supported with dialect python`},
		{"name: p\nkind: regex\nmessage: '{{.Nope}}'\nrules: [{pattern: a}]", `message template "{{.Nope}}" fails on sample data`},
		{"name: p\nkind: regex\nmessage: '{{index .Groups 2}}'\nrules: [{pattern: '(a)'}]", `the policy's message fails on this rule`},
		{"name: p\nkind: regex\nsplit: {pattern: 'x*'}\nmessage: m\nrules: [{pattern: a}]", `split.pattern: pattern "x*" matches the empty string`},
		{"name: p\nkind: regex\nmessage: m\nrules: [{pattern: a, substring: b}]", `rules[0]: a rule has exactly one of pattern, patterns, substring, substrings`},
		{"name: p\nkind: substring\nmessage: m\nrules: [{pattern: a}]", `a substring policy has substring rules only`},
		{"name: p\nkind: regex\nrules: [{pattern: a}]", `a rule needs a message or a reason`},
		{"name: p\nkind: regex\nmessage: m\nrules: [{pattern: a, scope: segments}]", `scope segments needs the policy's split`},
		{"name: p\nkind: permission\nmessage: m\npermission: {tool: Bash, deny: ['Bash(']}", `policy "p": permission.deny: Permission rule at index 0 is invalid: Invalid permission rule "Bash(": missing closing parenthesis`},
		{"name: p\nkind: permission\nmessage: m\npermission: {tool: Bash, mode: yolo}", `permission.mode: unknown mode "yolo"`},
		{"name: p\nkind: shell\nmessage: m\nshell: {rules: [{commands: [x]}]}", `shell.rules[0]: a rule needs a reason`},
		{"name: p\nkind: shell\nmessage: m\nshell: {rules: [{reason: r, flags: [[r]]}]}", `flag "r" is not -x, --long or -word`},
		{"name: p\nkind: shell\nmessage: m\nshell: {dynamic: maybe}", `unknown dynamic "maybe"`},
		{"name: p\nkind: shell\nmessage: m\nshell: {wrappers: [{names: [xargs], replace_options: [-I]}]}", `shell.wrappers[0].replace_options: -I is not in options_with_value or options_with_optional_value`},
		{"name: p\nkind: shell\nmessage: m\nrules: [{pattern: a}]\nshell: {}", `rules: does not apply to kind shell`},
		{"name: p\nkind: shell\nmessage: '{{index .Groups 1}}'\nshell: {}", `fails without capture groups`},
		// A failing example names the policy, the example and what disagrees.
		{"name: p\nkind: regex\nmessage: 'no {{.Match}}'\nrules: [{pattern: 'b+'}]\nexamples: {blocked: [{command: abbc, message: no b}], allowed: [c, b]}",
			`policy "p": examples.blocked[0]: "abbc" is blocked with message "no bb", the example says "no b"` + "\n" +
				`policy "p": examples.allowed[1]: "b" is blocked (no b), the example says allowed`},
	} {
		p := policyYAML(t, tc.src)
		_, err := Compile(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got  %v\n want %s", tc.src, err, tc.want)
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || pe.Policy != "p" {
			t.Errorf("%s: %v is not a *policy.Error for p", tc.src, err)
		}
	}
	// SkipExamples compiles a policy whose examples disagree.
	p := policyYAML(t, "name: p\nkind: regex\nmessage: m\nrules: [{pattern: 'b'}]\nexamples: {allowed: [b]}")
	if _, err := Compile(p, SkipExamples()); err != nil {
		t.Error(err)
	}
	if _, err := CompileAll([]spec.Policy{p, p}, SkipExamples()); err == nil || !strings.Contains(err.Error(), "declared twice") {
		t.Errorf("duplicate: %v", err)
	}
}

func TestPermissionModes(t *testing.T) {
	base := `
name: perm
kind: permission
message: 'denied {{.Tool}} {{.PermissionRule}} {{.Content}} {{.Mode}}'
permission:
  tool: Bash
  match: command
  normalize: verb_colon
  ask_message: 'ask {{.PermissionRule}}'
  edit_tools: [Bash]
  deny: ['Bash(rm:*)']
  ask: ['Bash(git:push*)']
  allow: ['Bash(git:*)']
`
	c := mustCompile(t, base)
	for _, tc := range []struct{ cmd, decision, msg string }{
		{"rm -rf x", "deny", "denied Bash Bash(rm:*) rm:-rf x default"},
		{"git push origin", "ask", "ask Bash(git:push*)"},
		{"git status", "allow", ""},
		{"ls", "allow", ""},
	} {
		v := c.Check(tc.cmd)
		if string(v.Decision) != tc.decision || (tc.msg != "" && v.Message != tc.msg) {
			t.Errorf("%q: %+v", tc.cmd, v)
		}
	}
	// The host's configuration replaces the spec's; acceptEdits promotes ask for the configured edit tools.
	c = mustCompile(t, base, WithPermissions(HostPermissions{Mode: "acceptEdits", Ask: []string{"Bash"}}))
	if v := c.Check("rm -rf x"); !v.Allowed {
		t.Errorf("acceptEdits with Bash as an edit tool: %+v", v)
	}
	// WithPolicyPermissions wins over WithPermissions for its policy.
	c = mustCompile(t, base, WithPermissions(HostPermissions{Mode: "strict"}), WithPolicyPermissions("perm", HostPermissions{Mode: "default"}))
	if v := c.Check("ls"); !v.Allowed {
		t.Errorf("policy-specific host permissions: %+v", v)
	}
	c = mustCompile(t, base, WithPolicyPermissions("other", HostPermissions{Mode: "strict"}))
	if v := c.Check("ls"); !v.Allowed {
		t.Errorf("another policy's host permissions applied: %+v", v)
	}
}

func TestMatchPermissionPattern(t *testing.T) {
	for _, tc := range []struct {
		pattern, content string
		command, want    bool
	}{
		// Expected values computed with agentrail's matchPattern in Node.
		{"git:*", "git:add src/main.ts", true, true},
		{"git:*", "git:add src/main.ts", false, true}, // prefix-anchored: a match of the start is enough
		{"/workspace/*", "/workspace/a", false, true},
		{"/workspace/*", "/workspace/a/b", false, true},
		{"*/b", "a/b", false, true},
		{"*/b", "a/c/b", false, false},
		{"**y", "x\ny", false, false},
		{"/workspace/**", "/workspace/a/b", false, true},
		{"a.b", "axb", true, false},
		{"a?(b)", "a?(b)c", true, true},
		{"x*", "x\ny", true, true},
		{"*y", "x\ny", true, false},
		{"*y", "x\ny", false, true},
		{"***", "a/b", false, true},
	} {
		if got := MatchPermissionPattern(tc.pattern, tc.content, tc.command); got != tc.want {
			t.Errorf("%q on %q (command %v): %v", tc.pattern, tc.content, tc.command, got)
		}
	}
}

func TestShellSettings(t *testing.T) {
	guard := loadPolicies(t, "shell")[0]
	allowDyn := guard
	sp := *guard.Shell
	sp.Dynamic = "allow"
	sp.MaxDepth = 2
	allowDyn.Shell = &sp
	allowDyn.Examples = nil
	c, err := Compile(allowDyn)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  string
		rule string // "" allowed
	}{
		{"$x ls", ""},
		{"$(which rm) -rf /", ""},
		{"base64 -d <<< x | sh", ""},
		{"eval \"$x\"", ""},
		{"x=$(id); sudo$x", ""},
		{"${x:-sudo} id", "privilege"},
		{"curl u | sh", "remote"},
		{"bash -c \"$(curl u)\"", "remote"},
		{"sh -c 'sh -c \"sudo id\"'", "privilege"},
		{"sh -c 'sh -c \"sh -c id\"'", "too_deep"},
		{"bash -c 'if'", "unparsable"},
		{"rm -rf \"$X\"", "rm_root"},
		{"rm -rf \"$X/build\"", ""},
		{"rm -rf /$X", "rm_root"},
		{"rm -rf ./$X", ""},
		{"command -v sudo", ""},
		{"env -u HOME sudo", "privilege"},
		{"timeout --signal=KILL 5 sudo", "privilege"},
		{"find . -exec rm -rf {} +", ""},
		{"find ~ -exec rm -rf {} \\;", "rm_root"},
	} {
		v := c.Check(tc.cmd)
		if (tc.rule == "") != v.Allowed || v.Rule != tc.rule {
			t.Errorf("%q: rule %q (%s), want %q", tc.cmd, v.Rule, v.Message, tc.rule)
		}
	}
	// The default (dynamic: deny) refuses what is only known at run time, naming the word.
	v := compileFragment(t, "shell")["shell_guard"].Check("x=1; $y --help")
	if v.Rule != "dynamic" || v.Message != `Command blocked: the command name or script is only known at run time ($y) in "$y --help"` {
		t.Errorf("%+v", v)
	}
}

func TestShellPOSIXDialect(t *testing.T) {
	c := mustCompile(t, `
name: posix
kind: shell
message: '{{.Reason}}'
shell:
  dialect: posix
  rules: [{commands: [sudo], reason: sudo}]
`)
	if v := c.Check("a=(x)"); v.Allowed || !strings.Contains(v.Message, "could not be parsed") {
		t.Errorf("bash array in posix: %+v", v)
	}
	if v := c.Check("export X=sudo; $X id"); v.Allowed || v.Reason != "sudo" {
		t.Errorf("posix export: %+v", v)
	}
}

func TestCheckVariant(t *testing.T) {
	v := &spec.Variant{ID: "tr", Policies: loadPolicies(t, "toolregistry"), Tools: []spec.Tool{
		{Name: "poll", Kind: "poll"},
		{Name: "bash", Kind: spec.KindExec, Checks: []spec.Check{{NotBlank: "command"}, {Policy: "toolregistry_deny"}}},
	}}
	got, err := CheckVariant(v, "", "sudo ls")
	if err != nil || got.Allowed || got.Message != "Dangerous command blocked: Privilege escalation via sudo" {
		t.Errorf("%+v %v", got, err)
	}
	if got.String() != "deny (toolregistry_deny): Dangerous command blocked: Privilege escalation via sudo" {
		t.Errorf("String: %q", got.String())
	}
	got, err = CheckVariant(v, "bash", "ls")
	if err != nil || !got.Allowed || got.String() != "allow" {
		t.Errorf("%+v %v", got, err)
	}
	all, err := CheckVariantAll(v, "bash", "sudo ls")
	if err != nil || len(all) != 1 || all[0].Allowed {
		t.Errorf("CheckVariantAll: %+v %v", all, err)
	}
	if _, err := CheckVariant(v, "nope", "ls"); err == nil {
		t.Error("unknown tool accepted")
	}
	v.Tools[1].Checks = append(v.Tools[1].Checks, spec.Check{Policy: "missing"})
	if _, err := CheckVariant(v, "", "ls"); err == nil || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("missing policy: %v", err)
	}
}

// Checkers are shared by concurrent calls (run with -race): every call gets the verdict a lone call gets,
// although the shell policy reuses its analysis buffers across calls.
func TestConcurrentChecks(t *testing.T) {
	var cs []Checker
	for _, f := range fragments {
		for _, c := range compileFragment(t, f) {
			cs = append(cs, c)
		}
	}
	cmds := []string{"sudo ls", "ls -la", "bash -c 'rm -rf /'", "echo é ſudo", "git push --force", shellcorpus.Nested,
		"a | b | sh -c 'curl x | sh'", "x=$(echo su)do; $x ls"}
	for _, b := range shellcorpus.Bypasses[:20] {
		cmds = append(cmds, b.Cmd)
	}
	cmds = append(cmds, shellcorpus.Benign[:20]...)
	want := make([][]Verdict, len(cs))
	for i, c := range cs {
		for _, cmd := range cmds {
			want[i] = append(want[i], c.Check(cmd))
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range cmds {
				k := (k + g) % len(cmds) // each goroutine in its own order
				for i, c := range cs {
					if got := c.Check(cmds[k]); !reflect.DeepEqual(got, want[i][k]) {
						t.Errorf("%q: concurrent %+v, alone %+v", cmds[k], got, want[i][k])
					}
				}
			}
		}()
	}
	wg.Wait()
}

// A shell check reuses its analysis's buffers, scopes and arenas in the next check: no verdict may depend on
// the commands checked before. Two checkers go through the corpora in opposite orders.
func TestShellNoStateAcrossChecks(t *testing.T) {
	var cmds []string
	for _, b := range shellcorpus.Bypasses {
		cmds = append(cmds, b.Cmd)
	}
	cmds = append(cmds, shellcorpus.Benign...)
	for _, s := range shellcorpus.Shapes {
		cmds = append(cmds, s.Cmd)
	}
	fwd, back := compileFragment(t, "shell")["shell_guard"], compileFragment(t, "shell")["shell_guard"]
	want := make([]Verdict, len(cmds))
	for i, cmd := range cmds {
		want[i] = fwd.Check(cmd)
	}
	for i := len(cmds) - 1; i >= 0; i-- {
		if got := back.Check(cmds[i]); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%q: %+v after the later commands, %+v after the earlier ones", cmds[i], got, want[i])
		}
	}
}

// TestSubcommands: the commands a compound command joins, each as written; a command that does not parse
// has none (the permission policy then checks it whole).
func TestSubcommands(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    []string
	}{
		{"git status", []string{"git status"}},
		{"git status && rm -rf build", []string{"git status", "rm -rf build"}},
		{"a; b & c || d | e", []string{"a", "b", "c", "d", "e"}},
		{"a\nb  ;", []string{"a", "b"}},
		{"echo 'x && y' > f; (cd sub && ls)", []string{"echo 'x && y' > f", "(cd sub && ls)"}},
		{"echo $(rm -rf x)", []string{"echo $(rm -rf x)"}},
		{`find . -exec rm {} \; && ls`, []string{`find . -exec rm {} \;`, "ls"}},
		{"echo 'unclosed", nil},
	} {
		if got := subcommands(tc.command); !slices.Equal(got, tc.want) {
			t.Errorf("subcommands(%q) = %q, want %q", tc.command, got, tc.want)
		}
	}
}

// TestPermissionPrefixSubcommands: match prefix reads `X:*` as the word prefix X, and subcommands checks
// each command of a compound one: the verdicts Claude Code 2.1.332 gave with permissions.deny
// ["Bash(rm:*)"] and ask ["Bash(git push:*)"] (the deny message names the whole command).
func TestPermissionPrefixSubcommands(t *testing.T) {
	p := spec.Policy{Name: "perm", Kind: spec.PolicyPermission,
		Message: "Permission to use Bash with command {{.Command}} has been denied.",
		Permission: &spec.PermissionPolicy{Tool: "Bash", Match: spec.MatchPrefix, Mode: spec.ModeDefault, Subcommands: true,
			Deny: []string{"Bash(rm:*)"}, Ask: []string{"Bash(git push:*)"}, AskMessage: "ask: {{.Content}}"}}
	cs, err := CompileAll([]spec.Policy{p})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command  string
		decision spec.Decision
		message  string
	}{
		{"echo a && rm -f does-not-exist", spec.DecisionDeny, "Permission to use Bash with command echo a && rm -f does-not-exist has been denied."},
		{"rm", spec.DecisionDeny, "Permission to use Bash with command rm has been denied."},
		{"git push origin; rm x", spec.DecisionDeny, "Permission to use Bash with command git push origin; rm x has been denied."},
		{"git fetch && git push origin", spec.DecisionAsk, "ask: git push origin"},
		{"echo fine", spec.DecisionAllow, ""},
		{"rmdir x", spec.DecisionAllow, ""},
		{"git pushy", spec.DecisionAllow, ""},
	} {
		v := cs["perm"].Check(tc.command)
		if v.Decision != tc.decision || v.Message != tc.message {
			t.Errorf("%q: %s %q, want %s %q", tc.command, v.Decision, v.Message, tc.decision, tc.message)
		}
	}
}
