package spec

import (
	"slices"
	"strconv"
	"strings"
)

// SourceRuntime is the language runtime a spec's source runs on (source.runtime). It decides what the
// runtime itself answers where the source passes a value on: a NUL byte in a string given to a spawn, an
// environment name holding "=", a value of a type the runtime's own calls refuse, a path the runtime
// resolves. The version matters where the runtime's texts changed between versions.
type SourceRuntime string

const (
	// RuntimeCPython311 is CPython 3.11: subprocess.Popen raises ValueError("embedded null byte") for a NUL
	// in the command, an argument, the cwd or the environment, and ValueError("illegal environment variable
	// name") for an environment name with "=", before anything starts; pathlib and os.path answer as 3.11's.
	RuntimeCPython311 SourceRuntime = "cpython-3.11"
	// RuntimeNode20 is Node.js 20: child_process.spawn throws TypeError [ERR_INVALID_ARG_VALUE] for a NUL in
	// an argument (args[i]), the cwd (options.cwd) or the environment (options.env['K']), before anything
	// starts.
	RuntimeNode20 SourceRuntime = "node-20"
	// RuntimeGo is Go's os/exec: an argument with a NUL fails the start with "fork/exec <path>: invalid
	// argument" (EINVAL), an environment entry with one with "exec: environment variable contains NUL".
	RuntimeGo SourceRuntime = "go"
)

// Python reports whether the runtime is a CPython.
func (r SourceRuntime) Python() bool { return strings.HasPrefix(string(r), "cpython-") }

// Node reports whether the runtime is Node.js.
func (r SourceRuntime) Node() bool { return strings.HasPrefix(string(r), "node-") }

// ErrorClasses are the error classes the runtime raises on a value the source passes on, sorted.
func (r SourceRuntime) ErrorClasses() []string {
	switch {
	case r.Python():
		return []string{"OSError", "OverflowError", "PermissionError", "RuntimeError", "TypeError", "ValueError"}
	case r.Node():
		return []string{"TypeError"}
	}
	return nil
}

// language is the source language a runtime runs.
func (r SourceRuntime) language() string {
	switch {
	case r.Python():
		return "python"
	case r.Node():
		return "typescript"
	case r == RuntimeGo:
		return "go"
	}
	return ""
}

// Coerce says how a tool's parameters are read before the tool's code sees them: validated against their
// JSON types (schema, the default), or as the source's host or language reads them.
type Coerce string

const (
	// CoerceSchema validates each value against its parameter's JSON type: another type is invalid_param.
	CoerceSchema Coerce = "schema"
	// CoercePython passes the model's values to Python code unchecked (json.loads made them: int, float,
	// bool, str, None, list, dict); what a value of another type does is what CPython does with it in the
	// parameter's role (see docs/spec.md, "Coercion"). Needs source.runtime cpython-*.
	CoercePython Coerce = "python"
	// CoercePydantic validates as pydantic v2 does in lax mode: an integer takes a bool, an integral float
	// and a numeric string; a boolean takes 0/1, 0.0/1.0 and the strings pydantic reads as booleans; a
	// string takes only a string; null only where the parameter is nullable. The tool then runs with the
	// converted values. Needs source.runtime cpython-*.
	CoercePydantic Coerce = "pydantic"
	// CoerceTypeBox validates as TypeBox's Value.Check does, on the numbers JavaScript parsed (an integer is
	// Number.isInteger: 5.0 is one, 1e400 is Infinity and is not); null fails where the parameter is not
	// nullable. Needs source.runtime node-*.
	CoerceTypeBox Coerce = "typebox"
	// CoerceGo reads each value with a Go type assertion on what encoding/json made (float64, string, bool,
	// map, slice): a value of another type reads as absent (every parameter is lenient). A number out of
	// float64's range fails the whole request (invalid_param, .Value the number as sent). Needs
	// source.runtime go.
	CoerceGo Coerce = "go"
	// CoerceAjv validates as Ajv does with coerceTypes (a Node host's JSON Schema validator): a value of
	// another scalar type is converted first, then checked: a string parameter takes a number (its
	// JavaScript String()), a boolean ("true") and null (""); an integer or number one a numeric string
	// (JavaScript's Number() of it, integral for an integer), a boolean (1, 0) and null (0); a boolean one
	// "true" and "false", 1 and 0, and null (false). The tool runs with the converted values.
	CoerceAjv Coerce = "ajv"
)

// RuntimeErrors is how an error the source's language runtime raises reaches the host: the TypeError of a
// value of the wrong type, the ValueError of a NUL byte, an OverflowError. Data: .ErrorType (the runtime's
// class), .Message (its text). A phase without a failure raises the error as the runtime's own class, as
// an exception nothing catches does.
type RuntimeErrors struct {
	// Checks is the failure for an error raised while the checks run (the working directory resolved, a
	// policy searching the command), where the source catches nothing (rye's Path(5) TypeError).
	Checks *Failure `yaml:"checks,omitempty" json:"checks,omitempty"`
	// Run is the failure for an error raised where the command starts (subprocess.Popen, spawn,
	// communicate): rye's try/except renders it as its error dict, tunacode's decorator raises
	// ToolExecutionError "Tool 'bash' failed: ...".
	Run *Failure `yaml:"run,omitempty" json:"run,omitempty"`
}

// RuntimeFailure is the failure for an error of class class the source's runtime raises in phase run
// (true) or checks (false): the spec's, or the class raised with the runtime's text.
func (t *Tool) RuntimeFailure(run bool, class string) *Failure {
	if re := t.RuntimeErrors; re != nil {
		if run && re.Run != nil {
			return re.Run
		}
		if !run && re.Checks != nil {
			return re.Checks
		}
	}
	return &Failure{Type: class, Message: "{{.Message}}"}
}

// RPC reports whether the failure is a JSON-RPC error of the MCP server the contract is (Code set).
func (f *Failure) RPC() bool { return f != nil && f.Code != 0 }

// PyType names the Python type of a decoded JSON value as json.loads makes it (str, int, float, bool,
// NoneType, list, dict).
func PyType(v any) string { return pytype(v) }

// fidelity checks source.runtime, coerce, runtime_errors and the JSON-RPC codes of failures.
func (c *checker) fidelity() {
	v := c.v
	rt := v.Source.Runtime
	if rt != "" && v.Source.Language != "" && v.Source.Language != "other" && rt.language() != v.Source.Language {
		c.errf("/source/runtime", "runtime %s runs %s, not %s", rt, rt.language(), v.Source.Language)
	}
	for i := range v.Tools {
		t := &v.Tools[i]
		ptr := "/tools/" + strconv.Itoa(i)
		need := map[Coerce]func(SourceRuntime) bool{
			CoercePython:   SourceRuntime.Python,
			CoercePydantic: SourceRuntime.Python,
			CoerceTypeBox:  SourceRuntime.Node,
			CoerceGo:       func(r SourceRuntime) bool { return r == RuntimeGo },
		}
		if ok, has := need[t.Coerce]; has && !ok(rt) {
			c.errf(ptr+"/coerce", "coerce %s needs the matching source.runtime (it is %q)", t.Coerce, rt)
		}
		if t.Coerce == CoerceGo {
			for j := range t.Params {
				if len(t.Params[j].OnType) > 0 {
					c.errf(ptr+"/params/"+strconv.Itoa(j)+"/on_type", "on_type does not apply with coerce go (every value of another type reads as absent)")
				}
			}
		}
		if re := t.RuntimeErrors; re != nil {
			if rt == "" {
				c.errf(ptr+"/runtime_errors", "runtime_errors needs source.runtime: which runtime raises them")
			}
			c.failure(ptr+"/runtime_errors/checks", re.Checks, t.Results.Cases)
			c.failure(ptr+"/runtime_errors/run", re.Run, t.Results.Cases)
		}
		if f := t.InvalidParam; f.RPC() && !slices.Contains([]Coerce{CoerceGo, CoerceSchema, ""}, t.Coerce) {
			c.errf(ptr+"/invalid_param/code", "a JSON-RPC invalid_param is the refusal of a Go MCP server: it goes with coerce go or schema")
		}
	}
}

// rpcFailure checks a failure that may be a JSON-RPC error: code excludes type and result.
func (c *checker) rpcFailure(pointer string, f *Failure) bool {
	if f == nil || f.Code == 0 {
		return false
	}
	if f.Type != "" || f.Result != "" {
		c.errf(pointer+"/code", "a JSON-RPC failure (code) has neither type nor result")
	}
	if f.Code > -32000 || f.Code < -32768 {
		c.errf(pointer+"/code", "code %d is not a reserved JSON-RPC error code (-32768 to -32000)", f.Code)
	}
	c.template(pointer+"/message", f.Message)
	return true
}

// fillCoerce fills what a coercion mode implies: Go's type assertions make every parameter lenient;
// pydantic and TypeBox refuse null where a parameter is not nullable.
func (t *Tool) fillCoerce() {
	switch t.Coerce {
	case "":
		t.Coerce = CoerceSchema
	case CoerceGo:
		for i := range t.Params {
			t.Params[i].Lenient = true
		}
	case CoercePydantic, CoerceTypeBox:
		if t.NullParams == "" {
			t.NullParams = NullInvalid
		}
	}
}

// runtimeSites are the places where the source's runtime raises for a tool: per phase, the spec's failure
// or each class the runtime raises.
func (v *Variant) runtimeSites(t *Tool, tp string) []Site {
	rt := v.Source.Runtime
	if rt == "" || (t.Kind != KindExec && t.Kind != KindSessionStart) {
		return nil
	}
	var out []Site
	for _, run := range []bool{false, true} {
		phase, ptr := "while its checks run", tp+"/runtime_errors/checks"
		if run {
			phase, ptr = "where its command starts", tp+"/runtime_errors/run"
		}
		if f := t.RuntimeFailure(run, ""); f.Type != "" || f.Result != "" {
			out = append(out, Site{When: t.Name + "'s runtime (" + string(rt) + ") raises " + phase, Pointer: ptr, Failure: f})
			continue
		}
		for _, class := range rt.ErrorClasses() {
			if !t.mayRaise(rt, class, run) {
				continue
			}
			out = append(out, Site{When: t.Name + "'s runtime (" + string(rt) + ") raises " + class + " " + phase, Pointer: ptr,
				Failure: &Failure{Type: class, Message: "{{.Message}}"}})
		}
	}
	return out
}

// mayRaise reports whether the tool's runtime can raise class in a phase (run: where the command starts),
// given what the tool does: CPython's TypeError and OverflowError come of values passed unchecked (coerce
// python), its RuntimeError of a symlink loop in resolve(), its OSError of a stat that exists() or
// is_dir() does not swallow; a NUL byte's ValueError can come anywhere a string is passed on.
func (t *Tool) mayRaise(rt SourceRuntime, class string, run bool) bool {
	if !rt.Python() {
		return run
	}
	w := t.Workdir
	switch class {
	case "TypeError":
		return t.Coerce == CoercePython
	case "OverflowError":
		return run && t.Coerce == CoercePython
	case "RuntimeError":
		return !run && w != nil && w.ResolveSymlinks
	case "OSError", "PermissionError":
		return !run && w != nil && (w.MustExist != nil || w.MustBeDir != nil)
	case "ValueError":
		return run || (w != nil && w.ResolveSymlinks)
	}
	return true
}
