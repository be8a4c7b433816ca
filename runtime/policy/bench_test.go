package policy

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/internal/shellcorpus"
	"github.com/agentbash/agentbash/spec"
	"mvdan.cc/sh/v3/syntax"
)

// Benchmarks: one check of a 1 KB command per engine (go test -run X -bench . ./runtime/policy/).

// regexCommand passes every regex policy, so a check tries every rule.
var regexCommand = shellcorpus.Command1KB("git log --oneline -5 | grep -v foo | head -n 20 ")

// BenchmarkShellShapes1KB checks, and only parses, each of the shellcorpus.Shapes.
func BenchmarkShellShapes1KB(b *testing.B) {
	c := fuzzCheckers(b, "shell", "shell_guard")
	p := syntax.NewParser()
	for _, s := range shellcorpus.Shapes {
		b.Run(s.Name, func(b *testing.B) { benchCheckers(b, c, s.Cmd) })
		b.Run(s.Name+"/parse", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Parse(strings.NewReader(s.Cmd), ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchCheckers(b *testing.B, c []Checker, cmd string) {
	if len(cmd) < 1000 || len(cmd) > 1024 {
		b.Fatalf("command is %d bytes", len(cmd))
	}
	for _, x := range c {
		if v := x.Check(cmd); !v.Allowed {
			b.Fatalf("benchmark command blocked: %s", v.Message)
		}
	}
	b.SetBytes(int64(len(cmd)))
	b.ReportAllocs()
	for b.Loop() {
		for _, x := range c {
			x.Check(cmd)
		}
	}
}

func BenchmarkToolregistry1KB(b *testing.B) {
	benchCheckers(b, fuzzCheckers(b, "toolregistry", "toolregistry_deny"), regexCommand)
}

func BenchmarkTunacode1KB(b *testing.B) {
	benchCheckers(b, fuzzCheckers(b, "tunacode", "tunacode_destructive", "tunacode_security"), regexCommand)
}

// BenchmarkTunacodeUnicode1KB is the Python dialect on a non-ASCII command (the subject is mapped).
func BenchmarkTunacodeUnicode1KB(b *testing.B) {
	cmd := shellcorpus.Command1KB("echo héllo wörld | grep ſ ")
	benchCheckers(b, fuzzCheckers(b, "tunacode", "tunacode_destructive", "tunacode_security"), cmd)
}

func BenchmarkCodegensandbox1KB(b *testing.B) {
	benchCheckers(b, fuzzCheckers(b, "codegensandbox", "codegensandbox_deny"), regexCommand)
}

func BenchmarkAgentrail1KB(b *testing.B) {
	cs := compileFragment(b, "agentrail", WithPermissions(HostPermissions{Deny: []string{"Bash(rm:*)"}, Allow: []string{"Bash(git:*)", "Bash(npm:*)"}}))
	benchCheckers(b, []Checker{cs["agentrail_dangerous"], cs["agentrail_permissions"]}, regexCommand)
}

func BenchmarkShell1KB(b *testing.B) {
	benchCheckers(b, fuzzCheckers(b, "shell", "shell_guard"), shellcorpus.Lists)
}

// BenchmarkShellNested1KB is a 1 KB command whose words are nested scripts and substitutions.
func BenchmarkShellNested1KB(b *testing.B) {
	benchCheckers(b, fuzzCheckers(b, "shell", "shell_guard"), shellcorpus.Nested)
}

// BenchmarkParseOnly1KB is mvdan.cc/sh parsing the same command, for comparison: the shell policy reads
// commands of this shape with shellsyntax.FastParse (its BenchmarkFastParse1KB) and leaves the others to
// mvdan.cc/sh.
func BenchmarkParseOnly1KB(b *testing.B) {
	p := syntax.NewParser()
	b.SetBytes(int64(len(shellcorpus.Lists)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Parse(strings.NewReader(shellcorpus.Lists), ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClaudeCode1KB is the claude-code variant's policies as the spec declares them (no permission
// rules: the host sets them), as internal/benchtable measures them.
func BenchmarkClaudeCode1KB(b *testing.B) {
	benchCheckers(b, fuzzCheckers(b, "claude-code", "control_characters", "leading_sleep", "permissions"), regexCommand)
}

// BenchmarkClaudeCodeRules1KB is the same with a host's rules: every subcommand is matched.
func BenchmarkClaudeCodeRules1KB(b *testing.B) {
	cs := compileFragment(b, "claude-code", WithPermissions(HostPermissions{Deny: []string{"Bash(rm:*)"}, Allow: []string{"Bash(git:*)", "Bash(npm:*)"}}))
	benchCheckers(b, []Checker{cs["control_characters"], cs["leading_sleep"], cs["permissions"]}, regexCommand)
}

// BenchmarkOpencode1KB is the opencode variant's permission.bash table, the default and a configured one.
func BenchmarkOpencode1KB(b *testing.B) {
	b.Run("default", func(b *testing.B) { benchCheckers(b, fuzzCheckers(b, "opencode", "opencode_bash"), regexCommand) })
	b.Run("table", func(b *testing.B) {
		p := loadPolicies(b, "opencode")[0]
		wp := *p.Wildcard
		wp.Rules = append(append([]spec.WildcardRule(nil), wp.Rules...), spec.WildcardRule{Pattern: "*", Decision: spec.DecisionAsk},
			spec.WildcardRule{Pattern: "git *", Decision: spec.DecisionAllow}, spec.WildcardRule{Pattern: "grep *", Decision: spec.DecisionAllow},
			spec.WildcardRule{Pattern: "head *", Decision: spec.DecisionAllow}, spec.WildcardRule{Pattern: "rm *", Decision: spec.DecisionDeny})
		p.Wildcard, p.Examples = &wp, nil
		c, err := Compile(p)
		if err != nil {
			b.Fatal(err)
		}
		benchCheckers(b, []Checker{c}, regexCommand)
	})
}
