package main

// A mutant is one small wrong change: in file, on the line after the marker comment "mutate: ID" (Go's //
// or YAML's #), the text from (which must occur exactly once on that line) becomes to. The packages are
// the tests that own the behaviour and should fail. The marker, not the code around it, finds the site:
// an edit that keeps the marked line's meaning keeps the mutant applying.
type mutant struct {
	id, name string
	file     string
	from, to string
	packages []string
}

// mutants are the list `make mutate` applies, one at a time. Each is a plausible slip: an operator, a
// boundary, a unit, a constant of an upstream contract, a step of process cleanup left out.
var mutants = []mutant{
	{"textcap-limit", "textcap: limit boundary", "runtime/textcap/truncate.go", "<=", "<", []string{"./runtime/textcap"}},
	{"textcap-tail-threshold", "textcap: tail threshold boundary", "runtime/textcap/truncate.go", "<=", "<", []string{"./runtime/textcap"}},
	{"textcap-keep-head", "textcap: keep head default", "runtime/textcap/truncate.go", "int64(l.Limit)", "int64(l.Limit) - 1", []string{"./runtime/textcap"}},
	{"textcap-kept", "textcap: kept count in the marker", "runtime/textcap/truncate.go", "hk + tk", "hk", []string{"./runtime/textcap"}},
	{"textcap-replacement", "textcap: replacement of an invalid byte", "runtime/textcap/decode.go", "w == 1", "w == 2", []string{"./runtime/textcap"}},
	{"proc-group-kill", "proc: no group kill after the shell exits", "runtime/proc/external.go", "syscall.Kill(-p.pid, syscall.SIGKILL)", "syscall.Getpid()", []string{"./runtime/proc"}},
	{"proc-sweep", "proc: no survivor sweep", "runtime/proc/external.go", "case werr", "case false && werr", []string{"./runtime/proc"}},
	{"proc-cgroup-kill", "proc: no cgroup kill at the run's end", "runtime/proc/cgroup.go", "c.kill()", "_ = c.path", []string{"./runtime/proc"}},
	{"proc-cgroup-reuse", "proc: a killed cgroup reused", "runtime/proc/cgroup.go", "case c.killed", "case false && c.killed", []string{"./runtime/proc"}},
	{"unit-ms", "runtime: milliseconds read as seconds", "spec/enums.go", "time.Millisecond", "time.Second", []string{"./runtime"}},
	{"signal-exit-shell", "runtime: signal_exit shell is 128+N", "runtime/exec.go", "128 + sig", "129 + sig", []string{"./runtime"}},
	{"signal-exit-negative", "runtime: signal_exit negative", "runtime/exec.go", "-sig", "sig", []string{"./runtime"}},
	{"template-int-base", "runtime: a fast template prints integers in base 10", "runtime/fasttmpl.go", "v.i, 10", "v.i, 16", []string{"./runtime"}},
	{"workdir-dotdot", "runtime: workdir confinement lets .. through", "runtime/call.go", "rel != \"..\" && ", "", []string{"./runtime"}},
	{"omit-zero", "runtime: omit_zero keeps a zero", "runtime/render.go", "&& isZeroJSON", "&& !isZeroJSON", []string{"./runtime"}},
	{"live-max", "runtime: background limit off by one", "runtime/internal/live/live.go", ">=", ">", []string{"./runtime", "./runtime/internal/live"}},
	{"live-retain", "runtime: retention off by one", "runtime/internal/live/live.go", "r.pol.Retain", "r.pol.Retain+1", []string{"./runtime", "./runtime/internal/live"}},
	{"redact-last-rule", "runtime: redaction skips the last rule", "runtime/redact.go", "if !rule", "if i == len(r.rules)-1 || !rule", []string{"./runtime", "./variants/codegensandbox"}},
	{"jsonenc-newline", "jsonenc: newline escape", "internal/jsonenc/jsonenc.go", "'n'", "'r'", []string{"./internal/jsonenc"}},
	{"toolregistry-dev-sd", "policy: toolregistry's /dev/sd rule needs a space", "spec/library/toolregistry_deny.yaml", "\\s*", "\\s+", []string{"./runtime/policy", "./variants/toolregistry"}},
	{"guard-sudo", "policy: sudo leaves the shell guard", "spec/library/shell_guard.yaml", "[sudo, ", "[", []string{"./runtime/policy"}},
	{"permission-first-space", "policy: agentrail's first-space normalisation", "runtime/policy/permission.go", "t[i+1:]", "t[i:]", []string{"./runtime/policy", "./variants/agentrail"}},
	{"codegensandbox-clamp", "spec: codegensandbox's 600 s clamp", "variants/codegensandbox/codegensandbox.yaml", "600", "601", []string{"./variants/codegensandbox"}},
	{"codegensandbox-124", "spec: codegensandbox's exit 124", "variants/codegensandbox/codegensandbox.yaml", "exit: 124", "exit: 125", []string{"./variants/codegensandbox"}},
	{"rye-limit", "spec: rye's 50 KB per stream", "variants/rye/rye.yaml", "51200", "51201", []string{"./variants/rye"}},
	{"agentrail-limit", "spec: agentrail's 1 MB", "variants/agentrail/agentrail.yaml", "1048576", "1048575", []string{"./variants/agentrail"}},
	{"rye-marker", "spec: rye's truncation marker", "variants/rye/rye.yaml", "{{.Total}}", "{{.Kept}}", []string{"./variants/rye"}},
	{"argv-embedded", "spec: argv and embedded both allowed", "spec/check.go", "if len", "if false && len", []string{"./spec"}},
	{"serve-line-limit", "serve: the line limit", "runtime/serve/lines.go", "4 << 20", "4<<20 + 1", []string{"./runtime/serve"}},
}
