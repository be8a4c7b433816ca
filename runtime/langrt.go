package runtime

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentbash/agentbash/spec"
)

// The source's language runtime (source.runtime): what it answers, by itself, where the source passes a
// value on. Each answer is an error of the runtime's class with the runtime's text, raised in one of two
// phases (the checks, or where the command starts) and reaching the host as the tool's runtime_errors say.

// runtimeError is an error the source's language runtime raises.
type runtimeError struct {
	class, msg string
	run        bool // where the command starts (else while the checks run)
}

// raiseRuntime renders a runtime error as the tool's runtime_errors say: the spec's failure for its phase,
// or the runtime's own class.
func (c *call) raiseRuntime(re *runtimeError) error {
	f := c.t.spec.RuntimeFailure(re.run, re.class)
	c.data.Message, c.data.ErrorType = re.msg, re.class
	return c.failMessage(f)
}

// failMessage is fail for a failure whose template reads .Message, keeping .Message as the data had it.
func (c *call) failMessage(f *spec.Failure) error {
	msg := c.data.Message
	err := c.fail(f)
	if c.data.Message == "" {
		c.data.Message = msg
	}
	return err
}

// pythonRuntime reports whether the variant's source runs on CPython.
func (c *call) pythonRuntime() bool { return c.e.v.Source.Runtime.Python() }

// startErrors is what stops a command before it starts, in the order the source's runtime meets it: a
// command of a type the spawn cannot take (an on_type failure at run, or CPython's own), the runtime's
// refusal of a string it passes on (a NUL byte, an environment name with "="), then what fails once it
// would be waited for (a timeout CPython cannot add or convert).
func (c *call) startErrors() error {
	cmd := c.t.spec.Param(spec.RoleCommand)
	var later []deferredFail
	for _, d := range c.deferred {
		if cmd != nil && d.param == cmd.Name {
			c.data.Param, c.data.Value = d.param, d.value
			return c.fail(d.f)
		}
		later = append(later, d)
	}
	// A persistent shell's command is typed into the shell, not passed to a spawn.
	if c.t.spec.Kind != spec.KindPersistent {
		if re := c.commandTypeError(); re != nil {
			return c.raiseRuntime(re)
		}
		if re, spawnErr := c.passOnError(); re != nil {
			return c.raiseRuntime(re)
		} else if spawnErr != nil {
			res, err := c.spawnError(spawnErr)
			return &failed{res: res, err: err}
		}
	}
	if len(later) > 0 {
		d := later[0]
		c.data.Param, c.data.Value = d.param, d.value
		return c.fail(d.f)
	}
	if re := c.timeoutRunError(); re != nil {
		return c.raiseRuntime(re)
	}
	return nil
}

// passOnError finds a string the runtime refuses to pass to the spawn: a runtime error (CPython, Node),
// or a spawn error (Go's os/exec fails the start itself).
func (c *call) passOnError() (*runtimeError, error) {
	rt := c.e.v.Source.Runtime
	if rt == "" {
		return nil, nil
	}
	shell := c.e.cfg.argv
	args := []string{c.data.Command}
	if c.argv != nil {
		args = c.argv
	}
	envPairs := c.envParamPairs()
	cwd, cwdShown := c.cwd, c.cwd
	if c.data.Path != "" {
		cwdShown = c.data.Path
	}
	switch {
	case rt.Python():
		for _, kv := range envPairs {
			if strings.Contains(kv[0], "=") {
				return &runtimeError{class: "ValueError", msg: "illegal environment variable name", run: true}, nil
			}
		}
		nul := slices.ContainsFunc(args, hasNUL) || hasNUL(cwd)
		for _, kv := range envPairs {
			nul = nul || hasNUL(kv[0]) || hasNUL(kv[1])
		}
		if nul {
			return &runtimeError{class: "ValueError", msg: "embedded null byte", run: true}, nil
		}
	case rt.Node():
		for i, a := range args {
			if hasNUL(a) {
				return &runtimeError{class: "TypeError", run: true,
					msg: nodeArgValue("args["+strconv.Itoa(len(shell)-1+i)+"]", "must be a string without null bytes", a)}, nil
			}
		}
		if hasNUL(cwd) {
			return &runtimeError{class: "TypeError", run: true,
				msg: nodeArgValue("options.cwd", "must be a string, Uint8Array, or URL without null bytes", cwdShown)}, nil
		}
		for _, kv := range envPairs {
			for _, s := range kv {
				if hasNUL(s) {
					return &runtimeError{class: "TypeError", run: true,
						msg: nodeArgValue("options.env['"+kv[0]+"']", "must be a string without null bytes", s)}, nil
				}
			}
		}
	case rt == spec.RuntimeGo:
		if slices.ContainsFunc(args, hasNUL) {
			return nil, &fs.PathError{Op: "fork/exec", Path: firstArg(shell), Err: syscall.EINVAL}
		}
		nul := hasNUL(cwd)
		for _, kv := range envPairs {
			nul = nul || hasNUL(kv[0]) || hasNUL(kv[1])
		}
		if nul {
			return nil, errors.New("exec: environment variable contains NUL")
		}
	}
	return nil, nil
}

func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// envParamPairs are the pairs of the env parameter, in the order the model sent them.
func (c *call) envParamPairs() [][2]string {
	p := c.t.spec.Param(spec.RoleEnv)
	if p == nil {
		return nil
	}
	m, _ := c.params[p.Name].(map[string]any)
	if len(m) == 0 {
		return nil
	}
	var out [][2]string
	for _, k := range c.keysOf(p.Name, m) {
		if s, ok := m[k].(string); ok {
			out = append(out, [2]string{k, s})
		}
	}
	return out
}

// keysOf lists an object parameter's keys in the order the model sent them (the keys of m, sorted, when
// the order cannot be read).
func (c *call) keysOf(name string, m map[string]any) []string {
	keys := nestedKeys(c.raw, name)
	if len(keys) != len(m) {
		keys = slices.Sorted(func(yield func(string) bool) {
			for k := range m {
				if !yield(k) {
					return
				}
			}
		})
	}
	return keys
}

// nestedKeys lists the keys of the object that the top-level key name holds in raw, in document order.
func nestedKeys(raw []byte, name string) []string {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil
		}
		if k, _ := t.(string); k != name {
			var skip json.RawMessage
			if d.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := d.Token(); err != nil || t != json.Delim('{') {
			return nil
		}
		var keys []string
		for d.More() {
			t, err := d.Token()
			if err != nil {
				return nil
			}
			k, _ := t.(string)
			keys = append(keys, k)
			var skip json.RawMessage
			if d.Decode(&skip) != nil {
				return nil
			}
		}
		return keys
	}
	return nil
}

// commandTypeError is CPython's answer to a command of a type Popen(shell=True) cannot take (coerce
// python): list(command) of a number, a bool or None; an element of a list that is not a string. A list
// is the argv after the shell's, an object the list of its keys (list(dict)).
func (c *call) commandTypeError() *runtimeError {
	p := c.t.spec.Param(spec.RoleCommand)
	if c.t.spec.Coerce != spec.CoercePython || p == nil || c.argv != nil {
		return nil
	}
	v, ok := c.params[p.Name]
	if !ok {
		return nil
	}
	switch x := v.(type) {
	case string:
		return nil
	case []any:
		c.argv = []string{}
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				c.argv = nil
				return &runtimeError{class: "TypeError", msg: "expected str, bytes or os.PathLike object, not " + spec.PyType(e), run: true}
			}
			c.argv = append(c.argv, s)
		}
	case map[string]any:
		c.argv = append([]string{}, c.keysOf(p.Name, x)...)
	default:
		return &runtimeError{class: "TypeError", msg: "'" + spec.PyType(v) + "' object is not iterable", run: true}
	}
	if len(c.argv) > 0 {
		c.data.Command = c.argv[0]
	}
	return nil
}

// maxPyTime is the largest timeout, in seconds, CPython 3.11's _PyTime_t (int64 nanoseconds) holds;
// maxPollTime the largest poll() takes (a C int of milliseconds).
const (
	maxPyTime   = float64(math.MaxInt64) / 1e9
	maxPollTime = float64(math.MaxInt32) / 1e3
)

// timeoutRunError is what CPython raises when it waits with a timeout it cannot use (coerce python):
// communicate() adds it to a float (a TypeError for what is not a number, an OverflowError for an int too
// large for a float), and polls the pipes with the time left (an OverflowError for infinity, past
// _PyTime_t, or past a C int of milliseconds).
func (c *call) timeoutRunError() *runtimeError {
	p := c.t.spec.Param(spec.RoleTimeout)
	if c.t.spec.Coerce != spec.CoercePython || p == nil || c.t.spec.Timeout == nil {
		return nil
	}
	v, ok := c.params[p.Name]
	if !ok || v == nil {
		return nil
	}
	if _, own := p.OnType[jsonType(v)]; own {
		return nil // the spec says what this type does
	}
	switch x := v.(type) {
	case bool:
		return nil
	case json.Number:
		f, isInt, tooBig := pyNumber(x)
		switch {
		case isInt && tooBig:
			return &runtimeError{class: "OverflowError", msg: "int too large to convert to float", run: true}
		case math.IsInf(f, 0):
			if f > 0 {
				return &runtimeError{class: "OverflowError", msg: "cannot convert float infinity to integer", run: true}
			}
			return nil
		case f > maxPyTime:
			return &runtimeError{class: "OverflowError", msg: "timestamp too large to convert to C _PyTime_t", run: true}
		case f > maxPollTime:
			// communicate() polls its pipes with the time left, in milliseconds, as a C int.
			return &runtimeError{class: "OverflowError", msg: "timeout is too large", run: true}
		}
		return nil
	}
	return &runtimeError{class: "TypeError", msg: "unsupported operand type(s) for +: 'float' and '" + spec.PyType(v) + "'", run: true}
}

// pyNumber reads a JSON number as json.loads does: an int when it has no fraction or exponent (exact, of
// any size), else a float (out of range: infinity). tooBig: an int float() refuses.
func pyNumber(n json.Number) (f float64, isInt, tooBig bool) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		i, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return 0, true, false
		}
		bf, _ := new(big.Float).SetInt(i).Float64()
		return bf, true, math.IsInf(bf, 0)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false, false
	}
	return f, false, false
}
