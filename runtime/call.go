package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
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

	params  map[string]any // as sent, decoded with json.Number
	present map[string]bool
	data    spec.Data

	// Effective settings after the checks.
	timeoutDone bool
	hasTimeout  bool // false: wait for ever
	expireNow   bool
	timeout     time.Duration
	workdirDone bool
	cwd         string
	// cwdEmpty: the working directory is "" and cannot be changed into (workdir.empty_fails_spawn).
	cwdEmpty bool

	// snaps are the stream snapshots the result was rendered from (for result-level truncation).
	snaps snapshots
}

// errFailed ends a call whose failure has already been rendered.
type failed struct {
	res json.RawMessage
	err error
}

func (f *failed) Error() string { return "failed" }

func (c *call) run(raw json.RawMessage) (res json.RawMessage, err error) {
	c.data = spec.Data{Tool: c.t.spec.Name, Workspace: c.e.cfg.workspace, Shell: firstArg(c.e.cfg.argv)}
	defer func() {
		var f *failed
		if errors.As(err, &f) {
			res, err = f.res, f.err
		}
	}()
	if err := c.parseParams(raw); err != nil {
		return nil, err
	}
	for i := range c.t.spec.Checks {
		if err := c.check(&c.t.spec.Checks[i]); err != nil {
			return nil, err
		}
	}
	if err := c.applyTimeout(); err != nil {
		return nil, err
	}
	if err := c.applyWorkdir(); err != nil {
		return nil, err
	}
	switch c.t.spec.Kind {
	case spec.KindPoll:
		return c.poll()
	case spec.KindKill:
		return c.kill()
	}
	return c.exec()
}

// fail renders a failure: raised as a ToolError, or rendered as a result case with .Message.
func (c *call) fail(f *spec.Failure) error {
	msg, err := c.t.tmpl.render(f.Message, &c.data)
	if err != nil {
		return fmt.Errorf("agentbash: rendering failure message: %w", err)
	}
	if f.Type != "" {
		return &failed{err: &ToolError{Type: f.Type, Message: msg}}
	}
	c.data.Message = msg
	res, err := c.render(f.Result)
	return &failed{res: res, err: err}
}

func (c *call) invalid(param, problem string) error {
	c.data.Param, c.data.Problem = param, problem
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
		if !ok {
			return c.invalid("(params)", "must be a JSON object")
		}
		c.params = m
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
		if ok && v == nil && !p.Nullable {
			if c.t.spec.NullParams == spec.NullInvalid {
				return c.invalid(p.Name, "must not be null")
			}
			ok = false // null for a parameter that is not nullable counts as absent
		}
		c.present[p.Name] = ok
		if !ok {
			if p.Required && !checked[p.Name] {
				return c.invalid(p.Name, "is required")
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
		if problem := typeProblem(p.Type, v); problem != "" {
			return c.invalid(p.Name, problem)
		}
	}
	c.data.Params = filled
	if p := c.t.spec.Param(spec.RoleCommand); p != nil {
		c.data.Command, _ = c.params[p.Name].(string)
	}
	return nil
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
			return c.fail(ch.Fail)
		}
	case ch.NotEmpty != "":
		if c.str(ch.NotEmpty) == "" {
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
	case ch.Policy != "":
		chk, ok := c.e.policies[ch.Policy]
		if !ok {
			return fmt.Errorf("agentbash: policy %q is not compiled", ch.Policy)
		}
		verdict := chk.Check(c.data.Command)
		if verdict.Allowed {
			return nil
		}
		// The policy renders the verdict message; the policy's Failure sees it as .Message and says whether
		// it is raised or rendered as a result case.
		c.data.Message = verdict.Message
		return c.fail(verdict.Fail)
	}
	return nil
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
		if n, ok := raw.(json.Number); ok {
			if f, err := n.Float64(); err == nil {
				value = f
			}
		}
	}
	if tm.TruncateFraction {
		value = math.Trunc(value)
	}
	inRange := tm.RangeSkipsZero && value == 0
	if !inRange && (tm.Min != nil || tm.Max != nil) {
		lo, hi := math.Inf(-1), math.Inf(1)
		if tm.Min != nil {
			lo, c.data.Min = *tm.Min, *tm.Min
		}
		if tm.Max != nil {
			hi, c.data.Max = *tm.Max, *tm.Max
		}
		if value < lo || value > hi {
			if tm.OutOfRange == spec.OutOfRangeFail {
				return c.fail(tm.Fail)
			}
			value = math.Max(lo, math.Min(hi, value))
		}
	}
	if value <= 0 {
		if tm.NonPositive == spec.NonPositiveDefault {
			value = tm.Default
		} else {
			c.expireNow = true
		}
	}
	c.data.TimeoutValue = value
	c.hasTimeout = true
	if value > 0 {
		// Longer than any run can last is no timeout at all.
		c.timeout, c.hasTimeout = tm.Duration(value)
	}
	return nil
}

// applyWorkdir resolves the working directory once, at its place in the checks or before running.
func (c *call) applyWorkdir() error {
	if c.workdirDone {
		return nil
	}
	c.workdirDone = true
	ws := c.e.cfg.workspace
	c.cwd = ws
	// The default is reported as getcwd() reports a process's directory: physical, symlinks resolved.
	c.data.Cwd = resolveLenient(ws)
	w := c.t.spec.Workdir
	p := c.t.spec.Param(spec.RoleWorkdir)
	if w == nil || p == nil || !c.present[p.Name] {
		return nil
	}
	sent := c.str(p.Name)
	if sent == "" && w.EmptyIsDefault {
		return nil
	}
	if s, isStr := c.params[p.Name].(string); isStr && s == "" && w.EmptyFailsSpawn { // not null: None is fine
		// The checks see the workspace (Path("") is "."); the spawn fails.
		c.cwdEmpty = true
		c.data.Path, c.data.Cwd = "", ""
		return nil
	}
	c.data.Path = sent
	path := sent
	if !filepath.IsAbs(path) {
		path = filepath.Join(ws, path)
	}
	path = filepath.Clean(path)
	resolved := path
	if w.ResolveSymlinks {
		resolved = resolveLenient(path)
	}
	c.data.Resolved = resolved
	c.cwd = resolved
	if w.ResolveSymlinks {
		c.data.Cwd = resolved
	} else {
		c.data.Cwd = sent
	}
	if w.Confine != nil {
		root := ws
		if w.ResolveSymlinks {
			root = resolveLenient(ws)
		}
		if !within(root, resolved) {
			return c.fail(w.Confine)
		}
	}
	if w.MustExist != nil {
		if _, err := os.Stat(resolved); err != nil {
			return c.fail(w.MustExist)
		}
	}
	if w.MustBeDir != nil {
		if fi, err := os.Stat(resolved); err != nil || !fi.IsDir() {
			return c.fail(w.MustBeDir)
		}
	}
	return nil
}

// resolveLenient follows symlinks as far as the path exists and appends the rest (Python's
// Path.resolve(strict=False)).
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
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func firstArg(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return argv[0]
}
