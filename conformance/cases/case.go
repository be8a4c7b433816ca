package cases

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/spec"
)

// WorkspaceToken stands for the case's workspace path: in Params it is replaced by the absolute path before
// a call, and in answers the path is masked back to it.
const WorkspaceToken = "<WORKSPACE>"

// WorkspaceNameToken stands for the base name of the case's workspace: in Params it is replaced by it, and
// the masker writes it for the names of the suite's own workspaces.
const WorkspaceNameToken = "<WORKSPACE_NAME>"

// countToken stands, in a sized case's command, for the number of filler units to emit; it is replaced by
// the number right-aligned in countWidth columns, so the command's length does not depend on it.
const (
	countToken = "<COUNT>"
	countWidth = 9
)

// DefaultMaxElapsed bounds a case that does not wait for a timeout.
const DefaultMaxElapsed = 5 * time.Second

// Case is one call of a tool with its workspace and the properties its answer must have.
type Case struct {
	// Name is unique within a variant's cases: "<tool>/<what>".
	Name string `json:"name"`
	// Tool is the tool called.
	Tool string `json:"tool"`
	// Params are the parameters as a model would send them; WorkspaceToken in a string stands for the
	// workspace path.
	Params json.RawMessage `json:"params"`
	// Setup is created in the workspace before the call, in order.
	Setup []Entry `json:"setup,omitempty"`
	// MaxElapsed bounds the time the answer may take.
	MaxElapsed time.Duration `json:"max_elapsed"`
	// NoSurvivors asks that no process is left running in the workspace once the answer is in (checked on
	// Linux, where /proc tells a process's working directory).
	NoSurvivors bool `json:"no_survivors,omitempty"`
	// Hazard, when set, says why the command would do harm if run (a command a policy blocks, as written):
	// the case is sent only to a trusted target and skipped on others.
	Hazard string `json:"hazard,omitempty"`
	// Size, when set, makes the output size depend on the rendered result: see Sizing.
	Size *Sizing `json:"size,omitempty"`
	// About says what the case checks, for reports.
	About string `json:"about,omitempty"`
	// Group is the kind of check, for the summary per group: basics, limits, timeouts, workdirs, roles,
	// checks, policies, shell ids.
	Group string `json:"group,omitempty"`
	// Features are the spec features the case exercises besides the parameters it sends (see Features).
	Features []string `json:"features,omitempty"`
	// Skip, when set, says why the case is never sent (it could do harm on any target): it is reported as
	// skipped with this reason.
	Skip string `json:"skip,omitempty"`
	// OwnWorkspace marks a case that names the workspace (role workspace): it needs the target's workspace
	// to go by the reference's name, and is skipped on a target that serves one of another name.
	OwnWorkspace bool `json:"own_workspace,omitempty"`
	// Steps are further calls after the first, in order, on the same workspace (a conversation with a
	// session); every answer is compared. MaxElapsed bounds them all, NoSurvivors is checked after the last.
	Steps []Step `json:"steps,omitempty"`
}

// Entry is a file, directory or symbolic link created in a case's workspace.
type Entry struct {
	// Path is relative to the workspace, with forward slashes.
	Path string `json:"path"`
	// Dir creates a directory.
	Dir bool `json:"dir,omitempty"`
	// Symlink creates a symbolic link pointing here.
	Symlink string `json:"symlink,omitempty"`
	// Content is a regular file's content.
	Content string `json:"content,omitempty"`
}

// Sizing calibrates a case whose limit applies to the whole rendered result (a result-level truncation):
// the command contains "<COUNT>" and emits that many filler units plus Fixed more. Before the case runs,
// the reference renders a probe with a small count, and the count is chosen so that the rendered text is
// Want units long (bytes or chars).
type Sizing struct {
	Unit  spec.SizeUnit `json:"unit"`
	Want  int           `json:"want"`
	Fixed int           `json:"fixed"`
}

// WithCount is a sized case's parameters with n for "<COUNT>", right-aligned so that the command's length
// does not depend on it.
func (c Case) WithCount(n int) json.RawMessage {
	return json.RawMessage(strings.ReplaceAll(string(c.Params), countToken, fmt.Sprintf("%*d", countWidth, n)))
}

// field is one parameter of a call, kept in order.
type field struct {
	name  string
	value any
}

// object renders fields as a JSON object in their order.
func object(fs ...field) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonenc.String(f.name))
		b.WriteByte(':')
		v, _ := jsonenc.Marshal(f.value)
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// toolInfo is what the battery needs to know of a tool.
type toolInfo struct {
	v     *spec.Variant
	t     *spec.Tool
	grace time.Duration
}

func newToolInfo(v *spec.Variant, t *spec.Tool) *toolInfo {
	return &toolInfo{v: v, t: t, grace: v.Shell.GraceDuration()}
}

// role returns the tool's parameter with this role, or nil.
func (ti *toolInfo) role(r spec.Role) *spec.Param { return ti.t.Param(r) }

// params builds a call: the given parameters (by role, or by name for parameters without a role) first in
// the tool's parameter order, then every other required parameter filled with a plain value.
func (ti *toolInfo) params(set map[string]any) json.RawMessage {
	var fs []field
	for _, p := range ti.t.Params {
		if v, ok := set[string(p.Role)]; ok && p.Role != "" && p.Role != spec.RoleNone {
			if v != omit {
				fs = append(fs, field{p.Name, v})
			}
			continue
		}
		if v, ok := set[p.Name]; ok {
			if v != omit {
				fs = append(fs, field{p.Name, v})
			}
			continue
		}
		if p.Required {
			fs = append(fs, field{p.Name, ti.plain(p)})
		}
	}
	return object(fs...)
}

// Params builds a call of t as the cases do: the parameters set (by role, or by name for those without
// one) in the tool's order, and every other required parameter with a plain value.
func Params(t *spec.Tool, set map[string]any) json.RawMessage { return (&toolInfo{t: t}).params(set) }

// plain is the value a required parameter the case does not set is sent with: a yield window long enough
// for the case's command to finish (its default, when that is at least finishWindow; else finishWindow,
// within the window's range: a window closes when the command exits, so a long one costs nothing), else
// plainValue.
func (ti *toolInfo) plain(p spec.Param) any {
	if p.Role == spec.RoleYield && ti.t.Session != nil && ti.t.Session.Yield != nil {
		y := ti.t.Session.Yield
		d := window(ti.t, y.Default)
		if d < finishWindow {
			d = finishWindow
		}
		return yieldValue(ti.t, d, false)
	}
	return plainValue(p)
}

// finishWindow is the least yield window a case sends for a required yield parameter it does not set.
const finishWindow = 4 * time.Second

// omit leaves a parameter out even when it is required.
var omit = &struct{ omitted bool }{}

func plainValue(p spec.Param) any {
	if p.Default != nil {
		return p.Default
	}
	if len(p.Enum) > 0 {
		return p.Enum[0]
	}
	switch p.Type {
	case spec.TypeInteger, spec.TypeNumber:
		return 1
	case spec.TypeBoolean:
		return false
	case spec.TypeObject:
		return map[string]string{}
	}
	if p.Role == spec.RoleShellID {
		return "conformance-unknown"
	}
	return "conformance check"
}

// builder collects the cases of one tool.
type builder struct {
	ti    *toolInfo
	cases []Case
	// group is the Group of the cases added now.
	group string
	// ruleless are the features of the tool's policies that have no rules of their own (a permission
	// policy whose rules the host sets): a command they let run exercises them.
	ruleless []string
	// policies are the tool's compiled policies, in check order.
	checks []policy.Checker
}

func (b *builder) add(c Case) {
	c.Tool = b.ti.t.Name
	c.Name = b.ti.t.Name + "/" + c.Name
	if c.Group == "" {
		c.Group = b.group
	}
	t := "tool " + b.ti.t.Name + " "
	switch c.Group {
	case "timeouts":
		c.Features = append(c.Features, t+"timeout", t+"check timeout")
	case "workdirs":
		c.Features = append(c.Features, t+"check workdir")
	case "basics":
		c.Features = append(c.Features, b.ruleless...)
	case "limits":
		if c.Size != nil {
			c.Features = append(c.Features, t+"result truncation")
		} else {
			c.Features = append(c.Features, t+"output truncation")
		}
	}
	if c.MaxElapsed == 0 {
		c.MaxElapsed = DefaultMaxElapsed
	}
	b.cases = append(b.cases, c)
}

// cmd adds a case running a battery command, spelled so that the tool's policies let it run when some
// spelling does: with newlines for "; " and >/dev/stderr for >&2 (a deny list of characters such as
// tunacode's blocks ; and &). With no such spelling the case checks the policy's verdict instead.
func (b *builder) cmd(name, command string, more map[string]any, c Case) {
	b.run(name, b.spell(command), more, c)
}

func (b *builder) spell(command string) string {
	nl := strings.ReplaceAll(command, "; ", "\n")
	dev := strings.ReplaceAll(command, ">&2", ">/dev/stderr")
	both := strings.ReplaceAll(nl, ">&2", ">/dev/stderr")
	for _, alt := range []string{command, nl, dev, both} {
		if b.allowed(alt) {
			return alt
		}
	}
	return command
}

// allowed reports whether every policy of the tool lets the command run.
func (b *builder) allowed(command string) bool {
	for _, p := range b.checks {
		if !p.Check(command).Allowed {
			return false
		}
	}
	return true
}

// run adds a case calling the tool with this command as written (and more parameters by role or name).
func (b *builder) run(name, command string, more map[string]any, c Case) {
	set := map[string]any{"command": command}
	apiValues(set, command)
	for k, v := range more {
		set[k] = v
	}
	c.Name = name
	c.Params = b.ti.params(set)
	if c.About == "" {
		c.About = "command: " + command
	}
	b.add(c)
}

// carry checks the state a tool carries across calls (spec Tool.Carry): a conversation of commands that
// change directory and export variables, each starting where the last ended; an exit carries nothing.
func (b *builder) carry() {
	var cwd, env bool
	for _, w := range b.ti.t.Carry {
		cwd = cwd || w == spec.CarriedCwd
		env = env || w == spec.CarriedEnv
	}
	if !cwd && !env {
		return
	}
	step := func(command string) Step {
		return Step{Tool: b.ti.t.Name, Params: b.ti.params(map[string]any{"command": b.spell(command)})}
	}
	first, steps := "true", []Step{}
	if cwd {
		first = "cd sub"
		steps = append(steps, step("pwd"), step("cd ..; exit 3"), step("pwd"))
	}
	if env {
		steps = append(steps, step("export AGENTBASH_CARRIED=yes; UNEXPORTED=no"),
			step(`echo "${AGENTBASH_CARRIED-unset} ${UNEXPORTED-unset}"`),
			step("unset AGENTBASH_CARRIED"), step(`echo "${AGENTBASH_CARRIED-unset}"`))
	}
	b.cmd("carried state", first, nil, Case{Setup: []Entry{{Path: "sub", Dir: true}}, Steps: steps, NoSurvivors: true,
		About:    "each command starts where the last one that ended by itself left the working directory and the exported variables",
		Features: []string{"tool " + b.ti.t.Name + " carry"}})
}

// Cases derives the conformance cases of a variant from its spec: for each exec tool a battery built from
// the tool's own parameters, limits, timeout rules, working-directory rules and policy examples; for poll
// and kill tools the unknown and missing shell id. The order is stable.
func Cases(v *spec.Variant) []Case {
	var checkers map[string]policy.Checker
	if len(v.Policies) > 0 {
		checkers, _ = policy.CompileAll(v.Policies)
	}
	var out []Case
	for i := range v.Tools {
		ti := newToolInfo(v, &v.Tools[i])
		b := &builder{ti: ti}
		for _, ch := range ti.t.Checks {
			if c, ok := checkers[ch.Policy]; ok && ch.Policy != "" {
				b.checks = append(b.checks, c)
				for k := range v.Policies {
					if p := &v.Policies[k]; p.Name == ch.Policy && len(ruleEntries(p)) == 0 {
						b.ruleless = append(b.ruleless, "policy "+ch.Policy)
					}
				}
			}
		}
		if ti.apiShaped() {
			b.apiBasics()
			out = append(out, b.cases...)
			continue
		}
		switch ti.t.Kind {
		case spec.KindExec, "", spec.KindSessionStart:
			if ti.role(spec.RoleCommand) == nil {
				continue
			}
			b.group = "basics"
			b.basics()
			b.group = "limits"
			b.limits()
			b.budgetLimits()
			b.group = "timeouts"
			b.timeouts()
			b.group = "workdirs"
			b.workdirs()
			b.group = "roles"
			b.otherRoles()
			b.redaction()
			b.group = "checks"
			b.commandChecks()
			b.group = "policies"
			b.policies(checkers)
			b.sessions()
			b.group = "carry"
			b.carry()
		case spec.KindSessionWrite, spec.KindSessionRead, spec.KindSessionKill:
			b.group = "sessions"
			b.unknownSession()
		case spec.KindPoll, spec.KindKill:
			b.group = "shell ids"
			b.shellIDs()
		}
		out = append(out, b.cases...)
	}
	return out
}

func (b *builder) basics() {
	noSurv := Case{NoSurvivors: true}
	for _, c := range []struct{ name, cmd string }{
		{"stdout only", "echo hello"},
		{"stderr only", "echo oops >&2"},
		{"stdout and stderr", "echo out; echo err >&2"},
		{"interleaved streams", "echo 1; echo 2 >&2; echo 3; echo 4 >&2"},
		{"non-zero exit", "echo x; echo y >&2; exit 3"},
		{"exit 1 without output", "exit 1"},
		{"empty output", "true"},
		{"unicode", `printf 'h\303\251llo \342\202\254 \360\237\230\200\n'`},
		{"invalid UTF-8", `printf 'a\377b\n'`},
		{"truncated UTF-8 sequence at the end", `printf 'ab\342\202'`},
		{"overlong UTF-8 encoding", `printf 'x\300\257y\n'`},
		{"invalid UTF-8 on stderr only", `echo fine; printf 'x\377\n' >&2`},
		{"CRLF line endings", `printf 'a\r\nb\r\n'`},
		{"lone CR", `printf 'a\rb\rc\n'`},
		{"CRLF on stderr", `printf 'e\r\nf\r\n' >&2`},
		{"white space around output", `printf '  padded  \n\n'; printf '\n  err  \n' >&2`},
		{"stdin is closed", "cat"},
		{"killed by a signal", "kill -9 $$"},
		{"background child holding the output", "sleep 30 & echo started"},
	} {
		if c.name == "stdin is closed" && b.ti.t.Session != nil && (b.ti.t.Session.PTY || b.ti.t.Session.Stdin == spec.SessionStdinOpen) {
			continue // the command reads a terminal or a pipe: it would wait
		}
		b.cmd(c.name, c.cmd, nil, noSurv)
	}
}

// emit is a shell command writing exactly n units (bytes or chars) of text with distinguishable ends
// ("<" and ">"; with chars, a two-byte character after "<" and before ">") and no white space, so a head, a
// tail and a strip are visible. count, when not empty, replaces the filler count (a sized case).
func emit(n int, unit spec.SizeUnit, count string) string {
	fixed := 2
	head, tail := `<`, `>`
	if unit == spec.Chars {
		fixed, head, tail = 4, `<\303\251`, `\303\251>`
	}
	if count == "" {
		if n < fixed {
			return "printf '" + strings.Repeat("a", max(n, 0)) + "'"
		}
		count = fmt.Sprint(n - fixed)
	}
	return "printf '" + head + "'; head -c " + count + " /dev/zero | tr '\\0' a; printf '" + tail + "'"
}

func emitFixed(unit spec.SizeUnit) int {
	if unit == spec.Chars {
		return 4
	}
	return 2
}

func (b *builder) limits() {
	o := b.ti.t.Output
	if o != nil && o.Truncate != nil {
		tr := o.Truncate
		streams := []string{"stdout", "stderr"}
		if o.Capture == spec.CaptureCombined {
			streams = []string{"output"}
		}
		for _, s := range streams {
			deltas := []int{-1, 0, 1}
			if s == "stderr" {
				deltas = []int{0, 1}
			}
			for _, d := range deltas {
				n := tr.Limit + d
				cmd := emit(n, tr.Unit, "")
				if s == "stderr" {
					cmd = "(" + cmd + ") >&2"
				}
				b.cmd(fmt.Sprintf("%s at limit%s (%d %s)", s, signed(d), n, tr.Unit), cmd, nil,
					Case{NoSurvivors: true, About: fmt.Sprintf("%s of %d %s against a limit of %d", s, n, tr.Unit, tr.Limit)})
			}
		}
		if o.Capture == spec.CaptureCombined {
			half := tr.Limit / 2
			cmd := emit(half, tr.Unit, "") + "; (" + emit(tr.Limit+1-half, tr.Unit, "") + ") >&2"
			b.cmd(fmt.Sprintf("stdout and stderr together at limit+1 (%d %s)", tr.Limit+1, tr.Unit), cmd, nil,
				Case{NoSurvivors: true})
		}
		if tr.Unit == spec.Bytes && tr.Limit >= 2 {
			// A two-byte character across the cut: the cut decodes as the spec says (replace, ignore, raw).
			cmd := fmt.Sprintf(`head -c %d /dev/zero | tr '\0' a; printf '\303\251z'`, tr.Limit-1)
			b.cmd("multi-byte character across the limit", cmd, nil, Case{NoSurvivors: true})
		}
	}
	// Result-level truncation: the whole rendered text is limited, so the output size is calibrated.
	for _, name := range b.ti.t.Outcomes() {
		sh := b.ti.t.Results.Cases[name]
		if sh.Truncate == nil || sh.Text == nil || (name != spec.OutcomeExit && name != spec.OutcomeSuccess) {
			continue
		}
		tr := sh.Truncate
		for _, d := range []int{-1, 0, 1} {
			want := tr.Limit + d
			b.cmd(fmt.Sprintf("result at limit%s (%d %s)", signed(d), want, tr.Unit), emit(0, tr.Unit, countToken), nil,
				Case{NoSurvivors: true, Size: &Sizing{Unit: tr.Unit, Want: want, Fixed: emitFixed(tr.Unit)},
					About: fmt.Sprintf("output sized so that the %s result is %d %s against a limit of %d", name, want, tr.Unit, tr.Limit)})
		}
	}
}

func signed(d int) string {
	switch {
	case d > 0:
		return fmt.Sprintf("+%d", d)
	case d < 0:
		return fmt.Sprint(d)
	}
	return ""
}

// smallestTimeout is the shortest timeout worth waiting for, in the spec's unit: a second, brought into
// the range (one that lets no positive timeout through keeps the second).
func smallestTimeout(tm *spec.Timeout) float64 {
	one := tm.Unit.Of(time.Second)
	if v := tm.Clamp(one); v > 0 {
		return v
	}
	return one
}

// seconds is a timeout value in the tool's unit as a duration.
func (ti *toolInfo) seconds(v float64) time.Duration {
	d, _ := ti.t.Timeout.Duration(v)
	return d
}

// number renders a timeout value as the parameter's JSON type expects.
func number(p *spec.Param, v float64) any {
	if p.Type == spec.TypeInteger || v == math.Trunc(v) {
		return int64(v)
	}
	return v
}

func (b *builder) timeouts() {
	tm, p := b.ti.t.Timeout, b.ti.role(spec.RoleTimeout)
	if tm == nil || p == nil {
		return
	}
	small := smallestTimeout(tm)
	d := b.ti.seconds(small)
	background := tm.Expiry == spec.ExpiryBackground
	b.cmd(fmt.Sprintf("timeout with partial output (%s%s)", fmtNum(small), string(tm.Unit)), "echo partial; sleep 5; echo late",
		map[string]any{"timeout": number(p, small)},
		Case{MaxElapsed: d + b.ti.grace + 3*time.Second, NoSurvivors: !background,
			About: "partial output, then a timeout of " + fmtNum(small) + string(tm.Unit) + " expires (" + string(tm.Expiry) + ")"})
	// Zero: expires at once, means the default, fails the range rule, or is clamped to the minimum. The
	// command is silent for a second so that "at once" cannot race with its output; when zero is clamped
	// to a minimum near a second, it is silent for half the minimum, so that the command ends first.
	silent := time.Second
	if tm.OutOfRange == spec.OutOfRangeClamp && tm.Min != nil && *tm.Min > 0 {
		if c := b.ti.seconds(*tm.Min); c >= silent/2 && c <= 2*silent {
			silent = c / 2
		}
	}
	b.cmd("timeout zero", fmt.Sprintf("sleep %v; echo zero", silent.Seconds()), map[string]any{"timeout": 0},
		Case{MaxElapsed: silent + 500*time.Millisecond + b.ti.grace + 3*time.Second, NoSurvivors: !background})
	if p.Nullable || b.ti.t.NullParams == spec.NullInvalid {
		b.cmd("timeout null", "echo none", map[string]any{"timeout": nil}, Case{NoSurvivors: true})
	}
	if tm.Max != nil {
		b.cmd("timeout above the maximum", "echo high", map[string]any{"timeout": number(p, *tm.Max+1)}, Case{NoSurvivors: true})
	}
	if tm.Min != nil && !(*tm.Min-1 == 0 && tm.RangeSkipsZero) {
		b.cmd("timeout below the minimum", "echo low", map[string]any{"timeout": number(p, *tm.Min-1)}, Case{NoSurvivors: true})
	}
	if p.Type == spec.TypeNumber {
		b.cmd("timeout with a fraction", "echo fraction", map[string]any{"timeout": small + 1.5}, Case{NoSurvivors: true})
	}
	// A string holding a number: ten seconds in the spec's unit, so that a contract which coerces it
	// (ajv's coerceTypes) runs the command well inside it, even on a loaded machine.
	typed := fmt.Sprint(number(p, tm.Clamp(tm.Unit.Of(10*time.Second))))
	b.cmd("timeout of the wrong type", "echo typed", map[string]any{"timeout": typed}, Case{NoSurvivors: true})
}

func fmtNum(f float64) string { return fmt.Sprint(f) }

func (b *builder) workdirs() {
	p := b.ti.role(spec.RoleWorkdir)
	if p == nil {
		return
	}
	setup := []Entry{{Path: "sub", Dir: true}, {Path: "file.txt", Content: "not a directory\n"}, {Path: "up", Symlink: ".."}}
	for _, c := range []struct {
		name string
		dir  any
	}{
		{"workdir relative", "sub"},
		{"workdir absolute", WorkspaceToken + "/sub"},
		{"workdir missing", "missing"},
		{"workdir is a file", "file.txt"},
		{"workdir outside the workspace", ".."},
		{"workdir symlink leaving the workspace", "up"},
		{"workdir empty", ""},
	} {
		b.cmd(c.name, "pwd", map[string]any{"workdir": c.dir}, Case{Setup: setup, NoSurvivors: true})
	}
	if p.Nullable || b.ti.t.NullParams == spec.NullInvalid {
		b.cmd("workdir null", "pwd", map[string]any{"workdir": nil}, Case{NoSurvivors: true})
	}
}

func (b *builder) otherRoles() {
	// The parameters the runtime only records (role none) are sent once, each with a plain value.
	// A parameter the spec's conformance block fixes is left out: its value means more to the target than
	// the spec says (a program to run).
	recorded := map[string]any{}
	for _, p := range b.ti.t.Params {
		if (p.Role == spec.RoleNone || p.Role == "") && !p.Required && !b.ti.v.Conformance.IsFixed(b.ti.t, p.Name) {
			recorded[p.Name] = plainValue(p)
		}
	}
	if len(recorded) > 0 {
		b.cmd("recorded parameters", "echo recorded", recorded, Case{NoSurvivors: true,
			About: "every parameter the runtime only records, with a plain value"})
	}
	// Each value of an enum is accepted, and one outside it is invalid.
	for _, p := range b.ti.t.Params {
		if len(p.Enum) == 0 || b.ti.v.Conformance.IsFixed(b.ti.t, p.Name) || (p.Role != spec.RoleNone && p.Role != "") {
			continue
		}
		f := []string{"tool " + b.ti.t.Name + " enum " + p.Name}
		for _, e := range p.Enum {
			b.cmd(p.Name+" "+e, "echo listed", map[string]any{p.Name: e}, Case{NoSurvivors: true, Features: f,
				About: "a value of the parameter's enum"})
		}
		b.cmd(p.Name+" outside its enum", "echo unlisted", map[string]any{p.Name: "conformance-unlisted"}, Case{NoSurvivors: true, Features: f,
			About: "a value the parameter's enum does not list is invalid"})
	}
	if b.ti.role(spec.RoleEnv) != nil {
		b.cmd("env parameter", `echo "$CONFORMANCE_VAR"`, map[string]any{"env": map[string]string{"CONFORMANCE_VAR": "from env"}},
			Case{NoSurvivors: true})
	}
	if b.ti.role(spec.RoleCapture) != nil {
		b.cmd("output not captured", "echo hidden; echo hidden-err >&2", map[string]any{"capture": false}, Case{NoSurvivors: true})
	}
	if b.ti.role(spec.RoleBackground) != nil {
		b.cmd("run in background", "echo started", map[string]any{"background": true}, Case{})
		if w := b.ti.t.Wait; w != nil && b.ti.role(spec.RoleYield) != nil {
			// A second's wait (in the wait's unit): the start answers with the first output, still running.
			b.cmd("run in background, waiting for output", "echo started; sleep 3",
				map[string]any{"background": true, "yield": w.Unit.Of(time.Second)},
				Case{About: "a start in the background that waits a second for its first output"})
		}
		b.backgroundTools()
	}
	if b.ti.role(spec.RoleWorkspace) != nil {
		b.cmd("workspace named", "pwd", map[string]any{"workspace": WorkspaceNameToken}, Case{NoSurvivors: true, OwnWorkspace: true})
		b.cmd("workspace unknown", "pwd", map[string]any{"workspace": "conformance-unknown"}, Case{NoSurvivors: true, OwnWorkspace: true})
	}
}

// redaction prints, for each redaction rule that applies to the tool, a text the rule matches: the answer
// must show it redacted as the reference does.
func (b *builder) redaction() {
	r := b.ti.v.Redact
	if r == nil || (len(r.Tools) > 0 && !slices.Contains(r.Tools, b.ti.t.Name)) {
		return
	}
	for _, rule := range r.Rules {
		text := matchingText(rule.Pattern)
		if text == "" {
			continue
		}
		quoted := "'" + strings.ReplaceAll(text, "'", `'\''`) + "'"
		b.cmd("redact "+rule.Name, "printf '%s\\n' "+quoted, nil, Case{NoSurvivors: true,
			About:    "a text the redaction rule " + rule.Name + " matches",
			Features: []string{"redact " + rule.Name}})
	}
}

func (b *builder) commandChecks() {
	t, p := "tool "+b.ti.t.Name+" ", b.ti.role(spec.RoleCommand).Name
	b.run("empty command", "", nil, Case{NoSurvivors: true, Features: []string{t + "check not_empty " + p, t + "check not_blank " + p}})
	b.run("blank command", "   ", nil, Case{NoSurvivors: true, Features: []string{t + "check not_blank " + p}})
	b.run("missing command", "", map[string]any{"command": omit}, Case{NoSurvivors: true, About: "no command parameter",
		Features: []string{t + "check required " + p}})
	b.run("command of the wrong type", "", map[string]any{"command": 42}, Case{NoSurvivors: true, About: "command: 42",
		Features: []string{t + "invalid parameter"}})
	b.otherChecks("")
}

func (b *builder) shellIDs() {
	t := "tool " + b.ti.t.Name + " "
	b.add(Case{Name: "unknown shell id", Params: b.ti.params(map[string]any{"shell_id": "conformance-unknown"}),
		Features: []string{t + "unknown shell id"}})
	b.otherChecks("shell_id")
}

// otherChecks adds a case for each required, not_empty and not_blank check of a parameter other than the
// command: the parameter left out, or sent empty or blank. The shell id parameter is named by its role.
func (b *builder) otherChecks(role string) {
	t := "tool " + b.ti.t.Name + " "
	for _, ch := range b.ti.t.Checks {
		name, kind, value := ch.Required, "required", any(omit)
		switch {
		case ch.NotEmpty != "":
			name, kind, value = ch.NotEmpty, "not_empty", ""
		case ch.NotBlank != "":
			name, kind, value = ch.NotBlank, "not_blank", "   "
		}
		if name == "" || (b.ti.role(spec.RoleCommand) != nil && name == b.ti.role(spec.RoleCommand).Name) {
			continue
		}
		key := name
		if p := b.ti.role(spec.Role(role)); p != nil && p.Name == name {
			key = role
		}
		what := map[string]string{"required": "missing", "not_empty": "empty", "not_blank": "blank"}[kind]
		label := strings.ReplaceAll(key, "_", " ")
		if key != name {
			label = strings.ReplaceAll(role, "_", " ")
		}
		set := map[string]any{key: value}
		if r := b.ti.role(spec.RoleCommand); r != nil {
			set["command"] = "echo unreachable"
		}
		b.add(Case{Name: what + " " + label, Params: b.ti.params(set), NoSurvivors: true,
			Features: []string{t + "check " + kind + " " + name}})
	}
}

// guards are put before a blocked example so that a shell that runs it anyway exits first: the first
// with which the policy blocks the example by the same rule is used.
var guards = []string{"exit 0; ", "exit 0\n"}

// posixShell reports whether the variant's shell reads "exit 0; X" as exiting before X.
func posixShell(v *spec.Variant) bool {
	if v.Shell.Embedded {
		return true
	}
	if len(v.Shell.Argv) == 0 {
		return false
	}
	switch path.Base(v.Shell.Argv[0]) {
	case "sh", "bash", "dash", "ash", "ksh", "mksh", "zsh", "busybox":
		return true
	}
	return false
}

func (b *builder) policies(checkers map[string]policy.Checker) {
	for _, ch := range b.ti.t.Checks {
		if ch.Policy == "" {
			continue
		}
		var pol *spec.Policy
		for i := range b.ti.v.Policies {
			if b.ti.v.Policies[i].Name == ch.Policy {
				pol = &b.ti.v.Policies[i]
			}
		}
		chk := checkers[ch.Policy]
		if pol == nil || chk == nil {
			continue
		}
		entries := ruleEntries(pol)
		// The commands to send blocked: the examples, then one derived from each rule no example exercises.
		type blockedCmd struct{ cmd, from string }
		var blocked []blockedCmd
		if pol.Examples != nil {
			for _, ex := range pol.Examples.Blocked {
				if !chk.Check(ex.Command).Allowed {
					blocked = append(blocked, blockedCmd{ex.Command, ""})
				}
			}
		}
		for _, e := range entries {
			if slices.ContainsFunc(blocked, func(bc blockedCmd) bool { return e.exercises(chk, bc.cmd) }) {
				continue
			}
			if cmd := e.derive(chk); cmd != "" {
				blocked = append(blocked, blockedCmd{cmd, " (derived from " + e.label + ")"})
				continue
			}
			b.add(Case{Name: "policy " + ch.Policy + " " + e.label, Params: b.ti.params(map[string]any{"command": e.text}),
				Skip: "no command exercises this rule alone: no blocked example does, and none derived from " +
					strconv.Quote(e.text) + " does (another rule may block the same commands alike; if not, add a blocked example that only this rule blocks)"})
		}
		features := func(cmd string) []string {
			var fs []string
			for _, e := range entries {
				if e.exercises(chk, cmd) {
					fs = append(fs, e.feature(ch.Policy))
				}
			}
			if len(entries) == 0 {
				fs = append(fs, "policy "+ch.Policy)
			}
			return fs
		}
		for _, bc := range blocked {
			orig := chk.Check(bc.cmd)
			for _, guard := range guards {
				if !posixShell(b.ti.v) {
					break
				}
				g := chk.Check(guard + bc.cmd)
				if !g.Allowed && g.Rule == orig.Rule && g.Decision == orig.Decision {
					b.run("policy "+ch.Policy+" blocks"+bc.from+" (guarded): "+bc.cmd, guard+bc.cmd, nil,
						Case{NoSurvivors: true, Features: features(guard + bc.cmd),
							About: fmt.Sprintf("a blocked command after %q: the policy blocks it by the same rule, and a shell that runs it exits first", guard)})
					break
				}
			}
			c := Case{NoSurvivors: true, Features: features(bc.cmd)}
			if strings.TrimSpace(bc.cmd) != "" && Harmless(bc.cmd) != nil {
				c.Hazard = "the policy " + ch.Policy + " blocks this command; a target that runs it anyway could do harm"
			}
			b.run("policy "+ch.Policy+" blocks"+bc.from+": "+bc.cmd, bc.cmd, nil, c)
		}
		if pol.Examples == nil {
			continue
		}
		for _, cmd := range pol.Examples.Allowed {
			if !chk.Check(cmd).Allowed {
				continue
			}
			c := Case{NoSurvivors: true}
			if len(entries) == 0 {
				c.Features = []string{"policy " + ch.Policy}
			}
			if err := Harmless(cmd); err != nil {
				c.Skip = "not sent: an allowed example runs for real, and this one is not provably harmless (" + err.Error() + ")"
			}
			b.run("policy "+ch.Policy+" allows: "+cmd, cmd, nil, c)
		}
	}
}
