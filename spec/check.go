package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// checker collects semantic errors with positions.
type checker struct {
	v    *Variant
	errs Errors
}

func (c *checker) errf(pointer, format string, args ...any) {
	line, col := c.v.Pos(pointer)
	c.errs = append(c.errs, &Error{File: c.v.File, Line: line, Col: col, Field: pointerToField(pointer), Msg: fmt.Sprintf(format, args...)})
}

// sample is template data with every field set, so executing a template finds unknown fields and misused
// functions before anything runs.
var sample = Data{
	Tool: "bash", Params: map[string]any{"command": "echo hi"}, Command: "echo hi", Workspace: "/w", Cwd: "/w",
	Timeout: json.Number("1"), TimeoutValue: 1, ExitCode: 1, Signal: 9, Success: true, TimedOut: true, Stdout: "o",
	Stderr: "e", Output: "oe", StdoutTruncated: true, StderrTruncated: true, OutputTruncated: true,
	Truncated: true, StdoutBytes: 1, StderrBytes: 1, OutputBytes: 2, Pid: 1, ShellID: "id", Running: true,
	Started: "2026-01-01T00:00:00Z", Message: "m", Param: "p", Problem: "x",
	Issues: []Issue{{Kind: IssueType, Param: "p", Problem: "x", Type: TypeString, Value: json.Number("1")}}, Path: "p", Resolved: "/p",
	Min: 1, Max: 2, ID: "id", Value: json.Number("1"), Name: "n", Configured: "a, b", Match: "m", Total: 3, Kept: 2, Elided: 1, Err: "e", Shell: "/bin/sh", Errno: 2,
	ErrnoName: "ENOENT", ErrorType: "ValueError", Strerror: "No such file or directory", SpawnPath: "/bin/sh", StdoutKept: 1, StderrKept: 1, OutputKept: 2,
	SessionID: "1000", WallTime: 0.25, Units: 1, Lines: 1, KeptLines: 1, Nonce: "0123456789abcdef", Input: "i",
	Sessions: []SessionInfo{{ID: "1000", Command: "echo hi", Pid: 1, Running: true, Started: "2026-01-01T00:00:00Z", Age: 1.5}},
	Shells:   []ShellInfo{{ID: "1000", Command: "echo hi", Pid: 1, Running: true, Started: "2026-01-01T00:00:00Z", Age: 1.5}},
	Log:      "a\nb\n", LogTail: "b", LogBytes: 4, LogLineCount: 2, LogTailLines: 1, LogTruncated: true,

	Spilled: true, SpillCapped: true, SpillPath: "/tmp/s/1.txt", SpillError: "e", SpillSize: 40000, SpillLines: 2,
	SpillElided: 38000, TempDir: "/tmp/s", EngineID: "00000000-0000-4000-8000-000000000000", CallID: "0123456789abcdef",
	CallSeq: 1,
	Answers: []string{`{"stdout":"o"}`}, Stream: "stdout",
}

// errnoName is a C errno name (ENOENT, E2BIG), compiled on first use: a program that starts from compiled
// specs checks none.
var errnoName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^E[A-Z0-9]+$`) })

func (c *checker) template(pointer, text string) {
	t, err := ParseTemplate(pointer, text)
	if err != nil {
		c.errf(pointer, "template does not parse: %v", err)
		return
	}
	if _, err := Execute(t, sample); err != nil {
		c.errf(pointer, "%s", templateProblem(err))
		return
	}
	// Again on data as large as a call's may be, for a template whose work grows faster than its data (a
	// value doubled in a loop): its budget is not proportional, so it fails here rather than on a call.
	if ts := stateOf(t); ts == nil || !ts.builds {
		return // writes what the data holds, no more
	}
	if _, err := Execute(t, largeSample()); errors.Is(err, ErrTemplateBudget) || errors.Is(err, ErrTemplateOutput) {
		c.errf(pointer, "on data whose texts are %d bytes each, %v", largeText, err)
	}
}

// largeText is the size of each text of largeSample.
const largeText = 4096

// largeSample is sample with the texts a call takes from its command, its output or its parameters made
// largeText bytes long.
var largeSample = sync.OnceValue(func() Data {
	d := sample
	big := func(s string) string { return strings.Repeat(s, largeText/len(s)+1)[:largeText] }
	d.Command, d.Stdout, d.Stderr, d.Output = big(d.Command), big(d.Stdout), big(d.Stderr), big(d.Output)
	d.Message, d.Input, d.Match, d.Err = big(d.Message), big(d.Input), big(d.Match), big(d.Err)
	d.Params = map[string]any{"command": d.Command}
	d.Value = d.Command
	return d
})

func (c *checker) failure(pointer string, f *Failure, cases map[Outcome]Shape) {
	if f == nil {
		return
	}
	switch {
	case f.Code != 0:
		c.errf(pointer+"/code", "code (a JSON-RPC error) applies to unknown_tool and invalid_param only")
	case f.Type == "" && f.Result == "":
		c.errf(pointer, "a failure needs type (raise) or result (render a result case)")
	case f.Type != "" && f.Result != "":
		c.errf(pointer, "a failure has either type or result, not both")
	case f.Result != "" && cases != nil:
		if _, ok := cases[f.Result]; !ok {
			c.errf(pointer+"/result", "result case %q is not in results.cases", f.Result)
		}
	}
	c.template(pointer+"/message", f.Message)
}

func (v *Variant) check() Errors {
	if errs := v.resolveLibrary(); len(errs) > 0 {
		return errs
	}
	c := &checker{v: v}
	c.enums(reflect.ValueOf(v).Elem(), "")
	if len(v.Shell.Argv) == 0 && !v.Shell.Embedded {
		c.errf("/shell", "shell needs argv or embedded: true")
	}
	// mutate: argv-embedded
	if len(v.Shell.Argv) > 0 && v.Shell.Embedded {
		c.errf("/shell", "shell has both argv and embedded: choose one")
	}
	if v.Shell.Embedded && v.Sandbox != nil {
		c.errf("/sandbox", "the embedded shell runs inside this process and cannot be sandboxed (sandbox %s)", v.Sandbox.Mode)
	}
	if v.Shell.SpawnError != "" {
		c.template("/shell/spawn_error", v.Shell.SpawnError)
	}
	if u := v.Shell.User; u != nil {
		switch {
		case v.Shell.Embedded:
			c.errf("/shell/user", "the user's shell is a program: the embedded shell has none")
		case u.Env == "":
			c.errf("/shell/user/env", "user needs env, the variable that names the user's shell (SHELL)")
		case u.Fallback != "" && !filepath.IsAbs(u.Fallback):
			c.errf("/shell/user/fallback", "fallback %q: not an absolute path", u.Fallback)
		}
	}

	policies := map[string]bool{}
	for i, p := range v.Policies {
		ptr := "/policies/" + strconv.Itoa(i)
		if policies[p.Name] {
			c.errf(ptr+"/name", "policy %q is declared twice", p.Name)
		}
		policies[p.Name] = true
		c.failure(ptr+"/fail", p.Fail, nil)
	}
	c.policies()

	if b := v.Background; b != nil {
		c.failure("/background/limit_error", b.LimitError, nil)
		c.failure("/background/unknown_id", b.UnknownID, nil)
		c.atMost("/background/stream_limit", "stream_limit", float64(b.StreamLimit), MaxSize)
		c.atMost("/background/max_live", "max_live", float64(b.MaxLive), MaxLive)
		c.atMost("/background/retain", "retain", float64(b.Retain), MaxRetain)
	}
	c.sessions()
	c.backgroundLog()
	c.hostVariant()
	for i, m := range v.Masks {
		re, err := regexp.Compile(m.Pattern)
		switch {
		case err != nil:
			c.errf("/masks/"+strconv.Itoa(i)+"/pattern", "the mask does not compile: %v", err)
		case re.MatchString(""):
			c.errf("/masks/"+strconv.Itoa(i)+"/pattern", "the mask matches the empty string")
		}
	}
	if g := v.Shell.Grace.D(); g > MaxGrace {
		c.errf("/shell/grace", "grace %v is over the maximum %v", g, MaxGrace)
	}

	tools := map[string]bool{}
	for i := range v.Tools {
		c.tool("/tools/"+strconv.Itoa(i), &v.Tools[i], policies, tools)
	}
	if f := v.UnknownTool; f != nil && !c.rpcFailure("/unknown_tool", f) {
		if f.Type == "" {
			c.errf("/unknown_tool", "unknown_tool is raised: it needs a type")
		}
		c.failure("/unknown_tool", f, nil)
	}
	c.fidelity()
	c.conformance()
	if r := v.Redact; r != nil {
		for i, rule := range r.Rules {
			rp := "/redact/rules/" + strconv.Itoa(i)
			if _, err := regexp.Compile(rule.Pattern); err != nil {
				c.errf(rp+"/pattern", "pattern does not compile: %v", err)
			} else if regexp.MustCompile(rule.Pattern).MatchString("") {
				c.errf(rp+"/pattern", "pattern matches the empty string")
			}
			if rule.Replace != "" {
				c.template(rp+"/replace", rule.Replace)
			}
			for _, x := range []struct{ key, re string }{{"open", rule.Open}, {"close", rule.Close}, {"partial", rule.Partial}} {
				if x.re == "" {
					continue
				}
				if re, err := regexp.Compile(x.re); err != nil {
					c.errf(rp+"/"+x.key, "%s does not compile: %v", x.key, err)
				} else if re.MatchString("") {
					c.errf(rp+"/"+x.key, "%s matches the empty string", x.key)
				}
			}
			if rule.Close != "" && rule.Open == "" {
				c.errf(rp+"/close", "close needs open: it ends a secret that open starts")
			}
		}
		for i, name := range r.Tools {
			if !tools[name] {
				c.errf("/redact/tools/"+strconv.Itoa(i), "redact names tool %q, which the variant does not have", name)
			}
		}
	}
	sortErrors(c.errs)
	return c.errs
}

func (c *checker) tool(ptr string, t *Tool, policies, tools map[string]bool) {
	v := c.v
	if tools[t.Name] {
		c.errf(ptr+"/name", "tool %q is declared twice", t.Name)
	}
	tools[t.Name] = true
	kind := t.kind()

	params := map[string]*Param{}
	roles := map[Role]string{}
	for i := range t.Params {
		p := &t.Params[i]
		pp := ptr + "/params/" + strconv.Itoa(i)
		if params[p.Name] != nil {
			c.errf(pp+"/name", "parameter %q is declared twice", p.Name)
		}
		params[p.Name] = p
		if p.Role != "" && p.Role != RoleNone {
			if prev, ok := roles[p.Role]; ok {
				c.errf(pp+"/role", "role %s is already taken by parameter %q", p.Role, prev)
			}
			roles[p.Role] = p.Name
		}
		if p.Default != nil && !defaultFits(p.Type, p.Default) {
			c.errf(pp+"/default", "default %v is not of type %s", p.Default, p.Type)
		}
		for _, lim := range []struct {
			key string
			v   *float64
		}{{"minimum", p.Minimum}, {"exclusive_minimum", p.ExclusiveMinimum}, {"maximum", p.Maximum}} {
			if lim.v != nil && p.Type != TypeInteger && p.Type != TypeNumber {
				c.errf(pp+"/"+lim.key, "%s applies to numbers, not %s", lim.key, p.Type)
			}
		}
		if len(p.Enum) > 0 && p.Type != TypeString {
			c.errf(pp+"/enum", "enum applies to string parameters, not %s", p.Type)
		}
		if d, ok := p.Default.(string); ok && len(p.Enum) > 0 && !slices.Contains(p.Enum, d) {
			c.errf(pp+"/default", "default %q is not one of the enum's values", d)
		}
		if p.Minimum != nil && p.Maximum != nil && *p.Minimum > *p.Maximum {
			c.errf(pp+"/maximum", "maximum %v is below minimum %v", *p.Maximum, *p.Minimum)
		}
		if p.InvalidEntries != "" && p.Type != TypeObject {
			c.errf(pp+"/invalid_entries", "invalid_entries applies to object parameters, not %s", p.Type)
		}
		for _, jt := range slices.Sorted(maps.Keys(p.OnType)) {
			o := p.OnType[jt]
			op := pp + "/on_type/" + jt
			if !slices.Contains(jsonTypes, jt) {
				c.errf(op, "%q is not a JSON type (%s)", jt, strings.Join(jsonTypes, ", "))
			}
			set := 0
			for _, b := range []bool{o.Accept, o.Absent, o.Argv, o.Number, o.Fail != nil} {
				if b {
					set++
				}
			}
			if set != 1 {
				c.errf(op, "on_type has exactly one of accept, absent, argv, number, fail (found %d)", set)
			}
			if o.Number && (jt != "string" || (p.Type != TypeNumber && p.Type != TypeInteger)) {
				c.errf(op+"/number", "number applies to a string given for a number parameter")
			}
			if o.Argv && (jt != "array" || p.Role != RoleCommand) {
				c.errf(op+"/argv", "argv applies to an array given as the command")
			}
			if o.ElementFail != nil && !o.Argv {
				c.errf(op+"/element_fail", "element_fail goes with argv")
			}
			if o.When != "" && o.Fail == nil && o.ElementFail == nil {
				c.errf(op+"/when", "when says when a failure happens: it goes with fail or element_fail")
			}
			c.failure(op+"/fail", o.Fail, t.Results.Cases)
			c.failure(op+"/element_fail", o.ElementFail, t.Results.Cases)
		}
	}

	cases := t.Results.Cases
	if !c.rpcFailure(ptr+"/invalid_param", t.InvalidParam) {
		c.failure(ptr+"/invalid_param", t.InvalidParam, cases)
	}
	c.failure(ptr+"/unknown_params", t.UnknownParams, cases)
	if _, ok := roles[RoleWorkspace]; ok != (t.Workspaces != nil) {
		c.errf(ptr+"/workspaces", "a parameter with role workspace and a workspaces block go together")
	}
	if ws := t.Workspaces; ws != nil {
		if ws.Unknown == nil {
			c.errf(ptr+"/workspaces", "workspaces needs unknown")
		}
		c.failure(ptr+"/workspaces/unknown", ws.Unknown, cases)
		c.failure(ptr+"/workspaces/ambiguous", ws.Ambiguous, cases)
	}

	switch kind {
	case KindExec:
		if _, ok := roles[RoleCommand]; !ok && roles[RoleArgv] == "" {
			c.errf(ptr+"/params", "an exec tool needs a parameter with role: command (or argv)")
		}
	case KindPoll, KindKill:
		if _, ok := roles[RoleShellID]; !ok {
			c.errf(ptr+"/params", "a %s tool needs a parameter with role: shell_id", kind)
		}
		if v.Background == nil {
			c.errf(ptr+"/kind", "a %s tool needs the variant's background registry", kind)
		}
	}
	c.sessionTool(ptr, t, kind, roles)
	c.logTool(ptr, t, kind, roles)
	c.hostFeatures(ptr, t, kind, roles)
	c.apiTool(ptr, t, kind, roles, params)
	if _, ok := roles[RoleTimeout]; ok && t.Timeout == nil {
		c.errf(ptr+"/params", "parameter %q has role timeout but the tool has no timeout block", roles[RoleTimeout])
	}
	if _, ok := roles[RoleBackground]; ok && v.Background == nil {
		c.errf(ptr+"/params", "parameter %q has role background but the variant has no background block", roles[RoleBackground])
	}

	for i, ch := range t.Checks {
		cp := ptr + "/checks/" + strconv.Itoa(i)
		n := 0
		for _, set := range []bool{ch.Required != "", ch.NotEmpty != "", ch.NotBlank != "", ch.Timeout, ch.Workdir, ch.Workspace, ch.Policy != ""} {
			if set {
				n++
			}
		}
		if n != 1 {
			c.errf(cp, "a check has exactly one of required, not_empty, not_blank, timeout, workdir, workspace, policy (found %d)", n)
			continue
		}
		for _, name := range []string{ch.Required, ch.NotEmpty, ch.NotBlank} {
			if name == "" {
				continue
			}
			if params[name] == nil {
				c.errf(cp, "check names parameter %q, which the tool does not declare", name)
			}
			if ch.Fail == nil && name != ch.Required {
				c.errf(cp, "check on %q needs fail", name)
			}
		}
		if ch.Policy != "" && !policies[ch.Policy] {
			c.errf(cp+"/policy", "policy %q is not declared in policies", ch.Policy)
		}
		if ch.Timeout && t.Timeout == nil {
			c.errf(cp, "timeout check but the tool has no timeout block")
		}
		if ch.Workdir && t.Workdir == nil {
			c.errf(cp, "workdir check but the tool has no workdir block")
		}
		if ch.Workspace && t.Workspaces == nil {
			c.errf(cp, "workspace check but the tool has no workspaces block")
		}
		c.failure(cp+"/fail", ch.Fail, cases)
	}

	if tm := t.Timeout; tm != nil {
		tp := ptr + "/timeout"
		if tm.Min != nil && tm.Max != nil && *tm.Min > *tm.Max {
			c.errf(tp+"/min", "min %v is greater than max %v", *tm.Min, *tm.Max)
		}
		maxT := tm.Unit.Of(MaxTimeout)
		c.atMost(tp+"/default", "default", tm.Default, maxT)
		if tm.Min != nil {
			c.atMost(tp+"/min", "min", *tm.Min, maxT)
		}
		if tm.Max != nil {
			c.atMost(tp+"/max", "max", *tm.Max, maxT)
		}
		// A default outside the spec's own range would make every call that sends no timeout fail (or be
		// clamped): a mistake, not a contract.
		if tm.Min != nil && tm.Default < *tm.Min && !(tm.RangeSkipsZero && tm.Default == 0) {
			c.errf(tp+"/default", "default %v is below min %v", tm.Default, *tm.Min)
		}
		if tm.Max != nil && tm.Default > *tm.Max {
			c.errf(tp+"/default", "default %v is above max %v", tm.Default, *tm.Max)
		}
		if tm.OutOfRange == OutOfRangeFail && tm.Fail == nil {
			c.errf(tp+"/out_of_range", "out_of_range fail needs timeout.fail")
		}
		if (tm.Min != nil || tm.Max != nil) && tm.OutOfRange == "" {
			c.errf(tp, "min or max needs out_of_range (fail or clamp)")
		}
		if tm.Expiry == ExpiryBackground && v.Background == nil {
			c.errf(tp+"/expiry", "expiry background needs the variant's background block")
		}
		if tm.KillIf != "" {
			if tm.Expiry != ExpiryBackground {
				c.errf(tp+"/kill_if", "kill_if applies to expiry background")
			}
			if _, err := regexp.Compile(tm.KillIf); err != nil {
				c.errf(tp+"/kill_if", "kill_if does not compile: %v", err)
			}
			if _, ok := cases[OutcomeTimeout]; !ok && kind == KindExec {
				c.errf(ptr+"/results/cases", "timeout.kill_if needs a %q result case", OutcomeTimeout)
			}
		}
		if tm.Signal != "" && tm.Expiry == ExpiryBackground && tm.KillIf == "" {
			c.errf(tp+"/signal", "signal applies to a command the timeout kills: expiry kill, or kill_if")
		}
		if tm.Default < 0 {
			c.errf(tp+"/default", "default timeout %v is negative", tm.Default)
		}
		if o := tm.Overflow; o != nil && (o.Above <= 0 || o.Use < 0 || o.Use > o.Above) {
			c.errf(tp+"/overflow", "overflow needs above > 0 and 0 <= use <= above")
		}
		c.failure(tp+"/fail", tm.Fail, cases)
		if kind == KindExec {
			out := OutcomeTimeout
			if tm.Expiry == ExpiryBackground {
				out = OutcomeBackground
			}
			if _, ok := cases[out]; !ok {
				c.errf(ptr+"/results/cases", "expiry %s needs a %q result case", tm.Expiry, out)
			}
		}
	}
	if w := t.Workdir; w != nil {
		if w.EmptyIsDefault && w.EmptyFailsSpawn {
			c.errf(ptr+"/workdir/empty_fails_spawn", "empty_is_default and empty_fails_spawn exclude each other")
		}
		c.failure(ptr+"/workdir/absolute", w.Absolute, cases)
		c.failure(ptr+"/workdir/confine", w.Confine, cases)
		c.failure(ptr+"/workdir/must_exist", w.MustExist, cases)
		c.failure(ptr+"/workdir/must_be_dir", w.MustBeDir, cases)
	}
	if o := t.Output; o != nil {
		c.failure(ptr+"/output/decode_error", o.DecodeError, cases)
		if o.Decode == DecodeStrict && o.DecodeError == nil {
			c.errf(ptr+"/output/decode", "strict decoding needs output.decode_error")
		}
		if o.Sanitize != "" && o.Decode != DecodeRaw {
			c.errf(ptr+"/output/sanitize", "sanitize applies to decode: raw only")
		}
		if o.StripLeading != "" && !o.Strip {
			c.errf(ptr+"/output/strip_leading", "strip_leading applies with strip: true")
		}
		c.truncate(ptr+"/output/truncate", o.Truncate)
		c.budget(ptr+"/output", t)
		c.spill(ptr+"/output/spill", t, kind)
	}
	c.resultSpill(ptr+"/results/spill", t)

	for name := range cases {
		if errno, ok := strings.CutPrefix(string(name), string(OutcomeSpawnError)+"."); ok && !errnoName().MatchString(errno) {
			c.errf(ptr+"/results/cases/"+string(name), "a spawn_error case is keyed by an errno name such as ENOTDIR, not %q", errno)
		}
	}

	if kind == KindExec || kind.Waits() || kind == KindPersistent {
		_, ex := cases[OutcomeExit]
		_, ok := cases[OutcomeSuccess]
		_, bad := cases[OutcomeFailure]
		if !ex && !(ok && bad) {
			c.errf(ptr+"/results/cases", "a%s %s tool needs an exit case, or both success and failure", map[bool]string{true: "n"}[kind == KindExec], kind)
		}
	} else if _, ok := cases[OutcomeOK]; !ok {
		c.errf(ptr+"/results/cases", "a %s tool needs an ok case", kind)
	}
	if t.Results.Union && t.Results.Discriminator == "" {
		c.errf(ptr+"/results/union", "a union needs a discriminator")
	}
	if t.Results.Union && t.Results.Format != FormatJSON {
		c.errf(ptr+"/results/union", "a union is a json result (format: json)")
	}
	if t.Results.Discriminator != "" && !t.Results.Union {
		c.errf(ptr+"/results/discriminator", "a discriminator needs union: true")
	}
	names := make([]Outcome, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	slices.Sort(names)
	var unit SizeUnit
	for _, name := range names {
		if tr := cases[name].Truncate; tr != nil {
			if unit != "" && tr.Unit != unit {
				c.errf(ptr+"/results/cases/"+string(name)+"/truncate/unit", "result-level truncations of one tool share a unit (%s, not %s)", unit, tr.Unit)
			}
			unit = tr.Unit
		}
	}
	if len(t.Carry) > 0 {
		switch {
		case kind != KindExec:
			c.errf(ptr+"/carry", "carry applies to exec tools, not %s", kind)
		case v.Shell.Embedded:
			c.errf(ptr+"/carry", "carry needs an argv shell: the state is read from a POSIX shell at its exit")
		}
		seen := map[CarryState]bool{}
		for i, s := range t.Carry {
			if seen[s] {
				c.errf(ptr+"/carry/"+strconv.Itoa(i), "%s is listed twice", s)
			}
			seen[s] = true
		}
	}
	if _, ok := roles[RoleBackground]; ok && kind == KindExec {
		if _, ok := cases[OutcomeBackground]; !ok {
			c.errf(ptr+"/results/cases", "parameter %q has role background: the tool needs a \"background\" result case", roles[RoleBackground])
		}
	}
	for i, ch := range t.Checks {
		if ch.Policy == "" {
			continue
		}
		for _, p := range v.Policies {
			if p.Name == ch.Policy && p.Fail != nil && p.Fail.Result != "" {
				if _, ok := cases[p.Fail.Result]; !ok {
					c.errf(ptr+"/checks/"+strconv.Itoa(i)+"/policy", "policy %q renders result case %q, which the tool does not have", p.Name, p.Fail.Result)
				}
			}
		}
	}
	for _, name := range names {
		c.shape(ptr+"/results/cases/"+string(name), t.Results.Format, cases[name], cases)
	}
}

func (c *checker) shape(ptr string, format Format, s Shape, cases map[Outcome]Shape) {
	n := 0
	if len(s.Fields) > 0 {
		n++
	}
	if s.Text != nil {
		n++
	}
	if s.Raise != nil {
		n++
	}
	if n != 1 {
		c.errf(ptr, "a result case has exactly one of fields, text, raise")
		return
	}
	if s.Raise != nil {
		if s.Raise.Type == "" || s.Raise.Result != "" {
			c.errf(ptr+"/raise", "raise needs a type (and no result)")
		}
		c.template(ptr+"/raise/message", s.Raise.Message)
	}
	if format == FormatJSON && s.Text != nil {
		c.errf(ptr+"/text", "results.format is json: use fields")
	}
	if format == FormatText && len(s.Fields) > 0 {
		c.errf(ptr+"/fields", "results.format is text: use text")
	}
	if s.Text != nil {
		c.template(ptr+"/text", *s.Text)
	}
	c.fields(ptr+"/fields", s.Fields)
	c.truncate(ptr+"/truncate", s.Truncate)
}

func (c *checker) fields(ptr string, fs []Field) {
	seen := map[string]bool{}
	for i, f := range fs {
		fp := ptr + "/" + strconv.Itoa(i)
		if seen[f.Name] && f.Name != "" {
			c.errf(fp+"/name", "field %q appears twice", f.Name)
		}
		seen[f.Name] = true
		switch f.Type {
		case TypeObject, TypeArray:
			if len(f.Fields) == 0 {
				c.errf(fp, "%s field %q needs fields", f.Type, f.Name)
			}
			if f.Value != "" || f.Const != nil {
				c.errf(fp, "%s field %q takes fields, not value or const", f.Type, f.Name)
			}
			c.fields(fp+"/fields", f.Fields)
		default:
			if (f.Value == "") == (f.Const == nil) {
				c.errf(fp, "field %q needs exactly one of value and const", f.Name)
			}
			if f.Const != nil && !defaultFits(f.Type, f.Const) && f.Type != TypeJSON {
				c.errf(fp+"/const", "const %v is not of type %s", f.Const, f.Type)
			}
			if f.Value != "" {
				c.template(fp+"/value", f.Value)
			}
			if f.OmitZero && f.Type == TypeJSON {
				c.errf(fp+"/omit_zero", "omit_zero applies to string, integer, number and boolean fields")
			}
		}
	}
}

func (c *checker) truncate(ptr string, t *Truncate) {
	if t == nil {
		return
	}
	c.atMost(ptr+"/limit", "limit", float64(t.Limit), MaxSize)
	c.atMost(ptr+"/head", "head", float64(t.Head), MaxSize)
	c.atMost(ptr+"/tail", "tail", float64(t.Tail), MaxSize)
	c.atMost(ptr+"/tail_threshold", "tail_threshold", float64(t.TailThreshold), MaxSize)
	switch t.Keep {
	case KeepHeadTail:
		if t.Head <= 0 || t.Tail <= 0 {
			c.errf(ptr, "keep head_tail needs head and tail")
		} else if t.Head+t.Tail > t.Limit {
			c.errf(ptr, "head %d + tail %d exceed limit %d", t.Head, t.Tail, t.Limit)
		}
	case KeepHead:
		if t.Head > t.Limit {
			c.errf(ptr+"/head", "head %d exceeds limit %d", t.Head, t.Limit)
		}
	case KeepTail:
		if t.Tail > t.Limit {
			c.errf(ptr+"/tail", "tail %d exceeds limit %d", t.Tail, t.Limit)
		}
	}
	if t.TailThreshold != 0 && t.Keep != KeepHeadTail {
		c.errf(ptr+"/tail_threshold", "tail_threshold applies to keep head_tail only")
	}
	if t.CutDecode != "" && t.Unit != Bytes {
		c.errf(ptr+"/cut_decode", "cut_decode applies to unit bytes only")
	}
	c.template(ptr+"/marker", t.Marker)
}

// defaultFits reports whether a YAML value suits a parameter or field type.
func defaultFits(typ Type, v any) bool {
	switch typ {
	case TypeString:
		_, ok := v.(string)
		return ok
	case TypeInteger:
		switch n := v.(type) {
		case int, int64, uint64:
			return true
		case float64:
			return n == float64(int64(n))
		}
		return false
	case TypeNumber:
		switch v.(type) {
		case int, int64, uint64, float64:
			return true
		}
		return false
	case TypeBoolean:
		_, ok := v.(bool)
		return ok
	case TypeObject:
		_, ok := v.(map[string]any)
		return ok
	}
	return true
}

// The largest values a spec's sizes and times may take: far above any real tool's, low enough that no
// spec can make the runtime hold or wait without bound.
const (
	// MaxSize bounds every size: truncation limits, heads, tails and thresholds, background stream_limit
	// (256 MiB).
	MaxSize = 256 << 20
	// MaxTimeout bounds a timeout's default, min and max (in the timeout's unit: 365 days).
	MaxTimeout = 365 * 24 * time.Hour
	// MaxGrace bounds shell.grace.
	MaxGrace = time.Minute
	// MaxLive bounds background.max_live.
	MaxLive = 4096
	// MaxRetain bounds background.retain.
	MaxRetain = 100_000
)

// atMost reports a value over its maximum.
func (c *checker) atMost(ptr, what string, value, max float64) {
	if value > max {
		c.errf(ptr, "%s %v is over the maximum %v", what, value, max)
	}
}

// jsonTypes are the JSON types a value may have, as on_type names them (number: with a fraction).
var jsonTypes = []string{"null", "boolean", "integer", "number", "string", "array", "object"}

var unknownDataField = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`at <(\.[^>]*)>: can't evaluate field (\w+) in type spec\.Data`)
})

// templateProblem words a template's failure on sample data in the spec's terms: an unknown field of the
// template data is named with the nearest field it may have meant, rather than Go's reflection message.
func templateProblem(err error) string {
	if m := unknownDataField().FindStringSubmatch(err.Error()); m != nil {
		msg := fmt.Sprintf("the template uses %s, and the template data has no field %s", m[1], m[2])
		if near := Nearest(m[2], dataFieldNames()); near != "" {
			msg += fmt.Sprintf("; did you mean .%s?", near)
		}
		return msg + " (the fields: docs/spec.md, Template data and functions)"
	}
	return "template fails on sample data: " + err.Error()
}

func dataFieldNames() []string {
	t := reflect.TypeOf(Data{})
	names := make([]string, t.NumField())
	for i := range names {
		names[i] = t.Field(i).Name
	}
	return names
}
