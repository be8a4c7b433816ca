package main

// A mutant is one small wrong change: in file, old (which must occur exactly once) becomes new. The
// packages are the tests that own the behaviour and should fail.
type mutant struct {
	name     string
	file     string
	old, new string
	packages []string
}

// mutants are the fixed list `make mutate` applies, one at a time. Each is a plausible slip: an operator,
// a boundary, a unit, a constant of an upstream contract, a step of process cleanup left out.
var mutants = []mutant{
	// textcap: truncation thresholds and decoding.
	{"textcap: limit boundary", "runtime/textcap/truncate.go",
		"if total <= int64(l.Limit) {", "if total < int64(l.Limit) {", []string{"./runtime/textcap"}},
	{"textcap: tail threshold boundary", "runtime/textcap/truncate.go",
		"if total <= int64(l.TailThreshold) {", "if total < int64(l.TailThreshold) {", []string{"./runtime/textcap"}},
	{"textcap: keep head default", "runtime/textcap/truncate.go",
		"hk = int64(l.Limit)\n\t\t}", "hk = int64(l.Limit) - 1\n\t\t}", []string{"./runtime/textcap"}},
	{"textcap: kept count in the marker", "runtime/textcap/truncate.go",
		"kept := hk + tk", "kept := hk", []string{"./runtime/textcap"}},
	{"textcap: replacement of an invalid byte", "runtime/textcap/decode.go",
		"if r == utf8.RuneError && w == 1 {", "if r == utf8.RuneError && w == 2 {", []string{"./runtime/textcap"}},

	// proc: cleaning up after the shell.
	{"proc: no group kill after the shell exits", "runtime/proc/external.go",
		"_ = syscall.Kill(-p.pid, syscall.SIGKILL)", "_ = syscall.Getpid()", []string{"./runtime/proc"}},
	{"proc: no survivor sweep", "runtime/proc/external.go",
		"case werr == nil && p.sweepOwn && (", "case false && werr == nil && p.sweepOwn && (", []string{"./runtime/proc"}},
	{"proc: no cgroup kill at the run's end", "runtime/proc/cgroup.go",
		"\t\tc.kill()\n", "\t\t_ = c.path\n", []string{"./runtime/proc"}},
	{"proc: a killed cgroup reused", "runtime/proc/cgroup.go",
		"case c.killed.Load():", "case false && c.killed.Load():", []string{"./runtime/proc"}},

	// runtime: units, exit codes, rendering, confinement, limits.
	{"runtime: milliseconds read as seconds", "spec/enums.go",
		"\t\treturn time.Millisecond\n", "\t\treturn time.Second\n", []string{"./runtime"}},
	{"runtime: signal_exit shell is 128+N", "runtime/exec.go",
		"c.data.ExitCode = 128 + sig", "c.data.ExitCode = 129 + sig", []string{"./runtime"}},
	{"runtime: signal_exit negative", "runtime/exec.go",
		"c.data.ExitCode = -sig", "c.data.ExitCode = sig", []string{"./runtime"}},
	{"runtime: one-field template prints integers in base 10", "runtime/tool.go",
		"strconv.FormatInt(v.Int(), 10)", "strconv.FormatInt(v.Int(), 16)", []string{"./runtime"}},
	{"runtime: workdir confinement lets .. through", "runtime/call.go",
		`return err == nil && rel != ".." && !strings.HasPrefix`, `return err == nil && !strings.HasPrefix`, []string{"./runtime"}},
	{"runtime: omit_zero keeps a zero", "runtime/render.go",
		"if f.OmitZero && isZeroJSON(b.Bytes()[value:]) {", "if f.OmitZero && !isZeroJSON(b.Bytes()[value:]) {", []string{"./runtime"}},
	{"runtime: background limit off by one", "runtime/internal/live/live.go",
		"return r.reserved+n >= r.pol.Max", "return r.reserved+n > r.pol.Max", []string{"./runtime", "./runtime/internal/live"}},
	{"runtime: retention off by one", "runtime/internal/live/live.go",
		"for len(r.finished) > r.pol.Retain {", "for len(r.finished) > r.pol.Retain+1 {", []string{"./runtime", "./runtime/internal/live"}},
	{"runtime: redaction skips the last rule", "runtime/redact.go",
		"if !rule.lits.MayMatch(s) {", "if i == len(r.rules)-1 || !rule.lits.MayMatch(s) {", []string{"./runtime", "./variants/codegensandbox"}},

	// jsonenc: the one encoder of results.
	{"jsonenc: newline escape", "internal/jsonenc/jsonenc.go",
		"dst = append(dst, '\\\\', 'n')", "dst = append(dst, '\\\\', 'r')", []string{"./internal/jsonenc"}},

	// policy: deny rules and normalisation.
	{"policy: toolregistry's /dev/sd rule needs a space", "spec/library/toolregistry_deny.yaml",
		`pattern: '>\s*/dev/sd[a-z]'`, `pattern: '>\s+/dev/sd[a-z]'`, []string{"./runtime/policy", "./variants/toolregistry"}},
	{"policy: sudo leaves the shell guard", "spec/library/shell_guard.yaml",
		"commands: [sudo, su, doas, pkexec, run0, sudoedit, runuser]", "commands: [su, doas, pkexec, run0, sudoedit, runuser]", []string{"./runtime/policy"}},
	{"policy: agentrail's first-space normalisation", "runtime/policy/permission.go",
		`return t[:i] + ":" + t[i+1:]`, `return t[:i] + ":" + t[i:]`, []string{"./runtime/policy", "./variants/agentrail"}},

	// specs: constants of the upstream contracts.
	{"spec: codegensandbox's 600 s clamp", "variants/codegensandbox/codegensandbox.yaml",
		"      max: 600\n", "      max: 601\n", []string{"./variants/codegensandbox"}},
	{"spec: codegensandbox's exit 124", "variants/codegensandbox/codegensandbox.yaml",
		`exit: 124{{"\n"}}'`, `exit: 125{{"\n"}}'`, []string{"./variants/codegensandbox"}},
	{"spec: rye's 50 KB per stream", "variants/rye/rye.yaml",
		"        limit: 51200\n", "        limit: 51201\n", []string{"./variants/rye"}},
	{"spec: agentrail's 1 MB", "variants/agentrail/agentrail.yaml",
		"        limit: 1048576\n", "        limit: 1048575\n", []string{"./variants/agentrail"}},
	{"spec: rye's truncation marker", "variants/rye/rye.yaml",
		`marker: "\n... [output truncated, {{.Total}} bytes total]"`, `marker: "\n... [output truncated, {{.Kept}} bytes total]"`, []string{"./variants/rye"}},

	// spec: the loader's checks.
	{"spec: argv and embedded both allowed", "spec/check.go",
		"if len(v.Shell.Argv) > 0 && v.Shell.Embedded {", "if false && len(v.Shell.Argv) > 0 && v.Shell.Embedded {", []string{"./spec"}},
	{"serve: the line limit", "runtime/serve/lines.go",
		"const DefaultMaxLine = 4 << 20", "const DefaultMaxLine = 4<<20 + 1", []string{"./runtime/serve"}},
}
