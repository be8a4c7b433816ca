package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentbash/agentbash/spec"
)

// call is one tool call in progress.
type call struct {
	e       *Engine
	t       *tool
	ctx     context.Context
	started time.Time

	raw     json.RawMessage // the parameters as sent
	params  map[string]any  // as sent, decoded with json.Number
	present map[string]bool
	data    spec.Data

	// Effective settings after the checks.
	timeoutDone bool
	hasTimeout  bool // false: wait for ever
	expireNow   bool
	timeout     time.Duration
	workdirDone bool
	cwd         string
	// workspaceDone: the workspace parameter was resolved (applyWorkspace).
	workspaceDone bool
	// cwdEmpty: the working directory is "" and cannot be changed into (workdir.empty_fails_spawn).
	cwdEmpty bool

	// snaps are the stream snapshots the result was rendered from (for result-level truncation).
	snaps snapshots

	// argv is a command given as an array (on_type argv): its elements follow the shell's argv.
	argv []string
	// deferred are the on_type failures raised when the command would start (when: run), in order.
	deferred []deferredFail
	// workspace is the workspace the call runs in: the engine's default, or the one it named.
	workspace string
	// budget is the call's output budget (output.budget), and window the capture it cuts.
	budget int
	window *window
	// carry is what the output a session read redacts continues (the end of the previous read), and then
	// what the next read continues.
	carry string

	// For a CallObserver: the result case rendered, the exit code the call saw, and what an Approver was
	// asked and answered.
	outcome         spec.Outcome
	sawExit         *int
	asked, approved bool

	// spill is the writer of a run whose output may spill (spill.go).
	spill *spillFile
	// The model APIs' shapes (apitools.go): direct runs argv without the shell (role argv); bat is a batch
	// tool's call (nil for the other kinds).
	direct bool
	bat    *batchCall

	// issues are the parameter problems collected for a tool with issues (raiseIssues).
	issues []spec.Issue
}

// deferredFail is an on_type failure raised when the command would start.
type deferredFail struct {
	param string
	value any
	f     *spec.Failure
}

// errFailed ends a call whose failure has already been rendered.
type failed struct {
	res json.RawMessage
	err error
}

func (f *failed) Error() string { return "failed" }

func (c *call) run(raw json.RawMessage) (res json.RawMessage, err error) {
	c.workspace = c.e.cfg.workspace
	c.data = spec.Data{Tool: c.t.spec.Name, Workspace: c.workspace, Shell: firstArg(c.e.cfg.argv), Nonce: nonce(),
		EngineID: c.e.id, TempDir: c.e.tempDir, CallID: callID(), CallSeq: c.e.seq.Add(1)}
	defer func() {
		var f *failed
		if errors.As(err, &f) {
			res, err = f.res, f.err
		}
		var te *ToolError
		if errors.As(err, &te) && c.e.redact.applies(c.t.spec.Name) && c.e.redact.errors {
			err = &ToolError{Type: te.Type, Message: c.e.redact.text(te.Message)}
		}
	}()
	c.raw = raw
	if err := c.parseParams(raw); err != nil {
		return nil, err
	}
	if err := c.readAPIParams(); err != nil {
		return nil, err
	}
	if c.restarts() {
		return c.restartPersistent() // before any check, as a restart reads nothing else
	}
	for i := range c.t.spec.Checks {
		if err := c.check(&c.t.spec.Checks[i]); err != nil {
			return nil, err
		}
	}
	if err := c.applyTimeout(); err != nil {
		return nil, err
	}
	if err := c.applyWorkspace(); err != nil {
		return nil, err
	}
	if err := c.applyWorkdir(); err != nil {
		return nil, err
	}
	if err := c.startErrors(); err != nil {
		return nil, err
	}
	if c.t.spec.Kind.IsSession() {
		return c.session()
	}
	switch c.t.spec.Kind {
	case spec.KindPoll:
		return c.poll()
	case spec.KindKill:
		return c.kill()
	case spec.KindList:
		return c.list()
	case spec.KindPersistent:
		return c.persistent()
	case spec.KindBatch:
		return c.batch()
	}
	return c.exec()
}

// fail renders a failure: raised as a ToolError, or rendered as a result case with .Message.
func (c *call) fail(f *spec.Failure) error {
	msg, err := c.t.tmpl.render(f.Message, &c.data)
	if err != nil {
		return fmt.Errorf("agentbash: rendering failure message: %w", err)
	}
	if f.RPC() {
		return &failed{err: &RPCError{Code: f.Code, Message: msg}}
	}
	if f.Type != "" {
		return &failed{err: &ToolError{Type: f.Type, Message: msg}}
	}
	c.data.Message = msg
	res, err := c.render(f.Result)
	return &failed{res: res, err: err}
}

// issue reports a problem of parameter p (nil for a key the tool does not declare): collected for a tool
// with issues (nil is returned and the parameter is then skipped), else raised at once as invalid_param.
func (c *call) issue(kind spec.IssueKind, p *spec.Param, name, problem string, v any) error {
	if c.t.spec.Issues == nil {
		if kind != spec.IssueMissing {
			c.data.Value = v
		}
		return c.invalid(name, problem)
	}
	is := spec.Issue{Kind: kind, Param: name, Problem: problem, Value: v}
	if p != nil {
		is.Type = p.Type
	}
	c.issues = append(c.issues, is)
	return nil
}

// raiseIssues raises the issues collected, if any, as one invalid_param failure: listed in the order of
// the spec's kinds, each kind in the order found; .Param, .Problem and .Value are the first's.
func (c *call) raiseIssues() error {
	if len(c.issues) == 0 {
		return nil
	}
	order := c.t.spec.Issues.Order
	rank := func(k spec.IssueKind) int {
		if i := slices.Index(order, k); i >= 0 {
			return i
		}
		return len(order) + slices.Index(spec.IssueKinds, k)
	}
	slices.SortStableFunc(c.issues, func(a, b spec.Issue) int { return rank(a.Kind) - rank(b.Kind) })
	first := c.issues[0]
	c.data.Issues = c.issues
	c.data.Param, c.data.Problem, c.data.Value = first.Param, first.Problem, first.Value
	return c.fail(c.t.spec.InvalidParam)
}

func (c *call) invalid(param, problem string) error {
	c.data.Param, c.data.Problem = param, problem
	if v, ok := c.params[param]; ok {
		c.data.Value = v // the value as sent, for a message that shows it
	}
	if c.t.spec.Issues != nil && c.data.Issues == nil {
		// A problem raised at once by a tool with issues: its list holds it alone.
		is := spec.Issue{Kind: spec.IssueType, Param: param, Problem: problem, Value: c.data.Value}
		if p := c.t.spec.ParamNamed(param); p != nil {
			is.Type = p.Type
		}
		c.data.Issues = []spec.Issue{is}
	}
	return c.fail(c.t.spec.InvalidParam)
}

func (c *call) parseParams(raw json.RawMessage) error {
	c.params = map[string]any{}
	c.present = map[string]bool{}
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return c.invalid("(params)", "not valid JSON: "+err.Error())
		}
		if d.More() {
			return c.invalid("(params)", "trailing data after the JSON object")
		}
		m, ok := v.(map[string]any)
		if !ok && c.t.spec.Coerce == spec.CoerceGo {
			m, ok = map[string]any{}, true // args, _ := arguments.(map[string]any): nothing is there
		}
		if !ok {
			return c.invalid("(params)", "must be a JSON object")
		}
		c.params = m
		if err := c.goDecodeError(); err != nil {
			return err
		}
		if f := c.t.spec.UnknownParams; f != nil {
			// The first the model sent that the tool does not declare, as Python names it (every one, in
			// the order sent, for a tool with issues).
			for _, k := range objectKeys(raw) {
				if c.t.spec.ParamNamed(k) != nil {
					continue
				}
				if c.t.spec.Issues == nil {
					c.data.Param = k
					return c.fail(f)
				}
				_ = c.issue(spec.IssueUnknown, nil, k, "is not a parameter", c.params[k])
			}
		}
	}
	checked := map[string]bool{}
	for i := range c.t.spec.Checks {
		checked[c.t.spec.Checks[i].Param()] = true
	}
	filled := map[string]any{}
	for k, v := range c.params {
		filled[k] = v
	}
	for i := range c.t.spec.Params {
		p := &c.t.spec.Params[i]
		v, ok := c.params[p.Name]
		if ok {
			if o, typed := c.onType(p, v); typed {
				switch {
				case o.Fail != nil && o.When == "run":
					c.deferred = append(c.deferred, deferredFail{param: p.Name, value: v, f: o.Fail})
				case o.Fail != nil:
					c.data.Param, c.data.Value = p.Name, v
					return c.fail(o.Fail)
				case o.Absent:
					ok = false
					delete(c.params, p.Name) // nothing downstream sees it
				case o.Argv:
					if err := c.argvCommand(o, v); err != nil {
						return err
					}
				case o.Number:
					s, _ := v.(string)
					n := strings.TrimSpace(s) // JavaScript's trim() takes more white space; the digits are ASCII
					if !decimalRE.MatchString(n) || typeProblem(p.Type, json.Number(n)) != "" {
						if err := c.issue(spec.IssueType, p, p.Name, typeProblem(p.Type, v), v); err != nil {
							return err
						}
						continue
					}
					v = json.Number(n)
					c.params[p.Name], filled[p.Name] = v, v
				}
				if ok {
					c.present[p.Name] = true
					continue // accepted, or an argv command
				}
			}
		}
		if ok {
			if handled, err := c.coerceParam(p, v); err != nil {
				return err
			} else if handled {
				filled[p.Name] = c.params[p.Name]
				continue
			}
			v = c.params[p.Name]
			filled[p.Name] = v
		}
		if ok && v == nil && !p.Nullable {
			if c.t.spec.NullParams == spec.NullInvalid {
				if err := c.issue(spec.IssueType, p, p.Name, "must not be null", nil); err != nil {
					return err
				}
				continue
			}
			ok = false // null for a parameter that is not nullable counts as absent
		}
		c.present[p.Name] = ok
		if !ok {
			if p.Required && !checked[p.Name] {
				if err := c.issue(spec.IssueMissing, p, p.Name, "is required", nil); err != nil {
					return err
				}
				continue
			}
			if p.Default != nil {
				filled[p.Name] = p.Default
			} else {
				delete(filled, p.Name)
			}
			continue
		}
		if v == nil || p.Lenient {
			continue
		}
		if m, isMap := v.(map[string]any); isMap && p.Type == spec.TypeObject && p.InvalidEntries == "drop" {
			for k, x := range m {
				if _, isStr := x.(string); !isStr {
					delete(m, k) // a host that keeps only the string pairs
				}
			}
		}
		if problem := typeProblem(p.Type, v); problem != "" {
			if err := c.issue(spec.IssueType, p, p.Name, problem, v); err != nil {
				return err
			}
			continue
		}
		if s, isStr := v.(string); isStr && len(p.Enum) > 0 && !slices.Contains(p.Enum, s) {
			if err := c.issue(spec.IssueValue, p, p.Name, "must be one of "+strings.Join(p.Enum, ", "), s); err != nil {
				return err
			}
			continue
		}
	}
	if err := c.raiseIssues(); err != nil {
		return err
	}
	c.data.Params = filled
	if p := c.t.spec.Param(spec.RoleCommand); p != nil && c.argv == nil {
		c.data.Command, _ = c.params[p.Name].(string)
	}
	return nil
}

// onType finds what a value of an unexpected JSON type does (the parameter's on_type), if it says.
func (c *call) onType(p *spec.Param, v any) (spec.TypeOutcome, bool) {
	if len(p.OnType) == 0 {
		return spec.TypeOutcome{}, false
	}
	if v != nil && typeProblem(p.Type, v) == "" {
		return spec.TypeOutcome{}, false
	}
	if v == nil && p.Nullable {
		return spec.TypeOutcome{}, false
	}
	o, ok := p.OnType[jsonType(v)]
	return o, ok
}

// argvCommand takes a command given as an array: its elements follow the shell's argv.
func (c *call) argvCommand(o spec.TypeOutcome, v any) error {
	list, _ := v.([]any)
	c.argv = []string{}
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			c.argv = nil
			if o.ElementFail != nil && o.When == "run" {
				c.deferred = append(c.deferred, deferredFail{param: c.t.spec.Param(spec.RoleCommand).Name, value: x, f: o.ElementFail})
				return nil
			}
			c.data.Value = x
			if o.ElementFail != nil {
				return c.fail(o.ElementFail)
			}
			return c.invalid(c.t.spec.Param(spec.RoleCommand).Name, "must be an array of strings")
		}
		c.argv = append(c.argv, s)
	}
	if len(c.argv) > 0 {
		c.data.Command = c.argv[0]
	}
	return nil
}

// decimalRE is a decimal number as a zod preprocess reads one from a string: /^-?\d+(\.\d+)?$/.
var decimalRE = regexp.MustCompile(`^-?[0-9]+(?:\.[0-9]+)?$`)

// jsonType names a decoded JSON value's type as on_type does.
func jsonType(v any) string {
	switch n := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := n.Int64(); err == nil {
			return "integer"
		}
		if f, err := n.Float64(); err == nil && f == math.Trunc(f) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

// objectKeys lists a JSON object's keys in the order they were written.
func objectKeys(raw []byte) []string {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}

func typeProblem(typ spec.Type, v any) string {
	switch typ {
	case spec.TypeString:
		if _, ok := v.(string); !ok {
			return "must be a string"
		}
	case spec.TypeInteger:
		n, ok := v.(json.Number)
		if !ok {
			return "must be an integer"
		}
		if _, err := n.Int64(); err != nil {
			f, err := n.Float64()
			if err != nil || f != math.Trunc(f) {
				return "must be an integer"
			}
		}
	case spec.TypeNumber:
		if _, ok := v.(json.Number); !ok {
			return "must be a number"
		}
	case spec.TypeBoolean:
		if _, ok := v.(bool); !ok {
			return "must be a boolean"
		}
	case spec.TypeArray:
		return arrayProblem(v)
	case spec.TypeObject:
		m, ok := v.(map[string]any)
		if !ok {
			return "must be an object of strings"
		}
		for k, x := range m {
			if _, ok := x.(string); !ok {
				return fmt.Sprintf("value of %q must be a string", k)
			}
		}
	}
	return ""
}

func (c *call) str(name string) string {
	s, _ := c.params[name].(string)
	return s
}

func (c *call) check(ch *spec.Check) error {
	if n := ch.Param(); n != "" {
		c.data.Param = n
	}
	switch {
	case ch.Required != "":
		if !c.present[ch.Required] {
			if ch.Fail == nil {
				return c.invalid(ch.Required, "is required") // the tool's invalid_param, at this point of the order
			}
			return c.fail(ch.Fail)
		}
	case ch.NotEmpty != "":
		if c.empty(ch.NotEmpty) {
			return c.fail(ch.Fail)
		}
	case ch.NotBlank != "":
		if strings.TrimSpace(c.str(ch.NotBlank)) == "" {
			return c.fail(ch.Fail)
		}
	case ch.Timeout:
		return c.applyTimeout()
	case ch.Workdir:
		return c.applyWorkdir()
	case ch.Workspace:
		return c.applyWorkspace()
	case ch.Policy != "" && c.t.spec.Kind == spec.KindBatch:
		return c.batchPolicy(ch)
	case ch.Policy != "":
		return c.policyCheck(ch)
	}
	return nil
}

// policyCheck runs a policy check on the command.
func (c *call) policyCheck(ch *spec.Check) error {
	if re := c.policyTypeError(); re != nil {
		return c.raiseRuntime(re)
	}
	chk, ok := c.e.policies[ch.Policy]
	if !ok {
		return fmt.Errorf("agentbash: policy %q is not compiled", ch.Policy)
	}
	verdict := chk.Check(c.data.Command)
	if verdict.Allowed {
		return nil
	}
	if verdict.Decision == spec.DecisionAsk && c.approve(verdict.Policy, verdict.Rule, verdict.Message) {
		return nil
	}
	// The policy renders the verdict message; the policy's Failure sees it as .Message and says whether
	// it is raised or rendered as a result case.
	c.data.Message = verdict.Message
	return c.fail(verdict.Fail)
}

// applyTimeout interprets the timeout parameter once, at its place in the checks or before running.
func (c *call) applyTimeout() error {
	if c.timeoutDone {
		return nil
	}
	c.timeoutDone = true
	tm := c.t.spec.Timeout
	if tm == nil {
		return nil
	}
	p := c.t.spec.Param(spec.RoleTimeout)
	var raw any
	present := false
	if p != nil {
		raw, present = c.params[p.Name]
	}
	value := tm.Default
	// Absent, the timeout reads as the default written as a model would send it (120, not 120.0).
	c.data.Timeout = json.Number(strconv.FormatFloat(tm.Default, 'f', -1, 64))
	switch {
	case !present:
	case raw == nil:
		c.data.Timeout = nil
		if tm.OnNull == spec.OnNullNone {
			c.hasTimeout = false
			return nil
		}
	default:
		c.data.Timeout = raw
		// A value that is not a number reaches here only through a lenient parameter, and then keeps the
		// default (timeout.invalid: default).
		switch n := raw.(type) {
		case json.Number:
			// Out of range, a number reads as JavaScript and Python read it: infinity.
			if f, err := strconv.ParseFloat(string(n), 64); err == nil || math.IsInf(f, 0) {
				value = f
			}
		case bool: // accepted (on_type boolean: accept): Python's True + 0.5 is 1.5
			value = 0
			if n {
				value = 1
			}
		}
	}
	if tm.TruncateFraction && c.t.spec.Coerce == spec.CoerceGo && math.Abs(math.Trunc(value)) >= 1<<63 {
		value = math.MinInt64 // int(v) of a float past int64 on amd64
	}
	r := tm.Resolve(value)
	if r.Ranged {
		if tm.Min != nil {
			c.data.Min = *tm.Min
		}
		if tm.Max != nil {
			c.data.Max = *tm.Max
		}
	}
	if r.OutOfRange {
		return c.fail(tm.Fail)
	}
	c.expireNow = r.Expire
	c.data.TimeoutValue = r.Value
	c.hasTimeout = !r.None
	if r.Value > 0 {
		// Longer than any run can last is no timeout at all.
		c.timeout, c.hasTimeout = r.Duration, !r.Unbounded
	}
	return nil
}

// applyWorkdir resolves the working directory once, at its place in the checks or before running.
func (c *call) applyWorkdir() error {
	if c.workdirDone {
		return nil
	}
	c.workdirDone = true
	if err := c.applyWorkspace(); err != nil {
		return err
	}
	ws := c.workspace
	c.cwd = ws
	// The default is reported as getcwd() reports a process's directory: physical, symlinks resolved.
	c.data.Cwd = c.e.resolveRoot(ws)
	if c.carries(spec.CarriedCwd) {
		// The directory the last command ended in (still a directory), unless the call names one.
		if d, ok := c.e.carry.get(ws).carriedDir(); ok {
			c.cwd, c.data.Cwd = d, d
		}
	}
	w := c.t.spec.Workdir
	p := c.t.spec.Param(spec.RoleWorkdir)
	if w == nil || p == nil || !c.present[p.Name] {
		return nil
	}
	return c.workdir(w, p, ws)
}

// applyWorkspace resolves the workspace parameter once, at its place in the checks or before running: the
// workspace it names, or the default.
func (c *call) applyWorkspace() error {
	if c.workspaceDone {
		return nil
	}
	c.workspaceDone = true
	ws, p := c.t.spec.Workspaces, c.t.spec.Param(spec.RoleWorkspace)
	if ws == nil || p == nil {
		return nil
	}
	named := c.e.cfg.named
	names := make([]string, len(named))
	for i, w := range named {
		names[i] = w.Name
	}
	slices.Sort(names)
	c.data.Configured = strings.Join(names, ", ")
	name := c.str(p.Name)
	if ws.Trim {
		name = strings.TrimSpace(name)
	}
	if name == "" {
		if len(named) > 1 && ws.Ambiguous != nil {
			c.data.Max = float64(len(named))
			return c.fail(ws.Ambiguous)
		}
		return nil
	}
	for _, w := range named {
		if w.Name == name {
			c.workspace, c.data.Workspace = w.Dir, w.Dir
			return nil
		}
	}
	c.data.Name = name
	return c.fail(ws.Unknown)
}

// resolveLenient follows symlinks as far as the path exists and appends the rest (Python's
// Path.resolve(strict=False)).
// carries reports whether the tool carries what across calls.
func (c *call) carries(what spec.CarryState) bool {
	for _, w := range c.t.spec.Carry {
		if w == what {
			return true
		}
	}
	return false
}

// resolveRoot is resolveLenient for a workspace root, cached by the engine.
func (e *Engine) resolveRoot(root string) string {
	if r, ok := e.resolved.Load(root); ok {
		return r.(string)
	}
	r := resolveLenient(root)
	e.resolved.Store(root, r)
	return r
}

func resolveLenient(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(filepath.Clean(p))
	dir = filepath.Clean(dir)
	if dir == p || base == "" {
		return p
	}
	return filepath.Join(resolveLenient(dir), base)
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	// mutate: workdir-dotdot
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func firstArg(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return argv[0]
}
