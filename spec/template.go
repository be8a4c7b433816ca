package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/agentbash/agentbash/internal/jsonenc"
)

// Data is what every template in a spec sees: result fields and texts, failure messages and truncation
// markers. Fields that do not apply to an outcome are zero.
type Data struct {
	// Tool is the tool's name.
	Tool string
	// Params holds the parameters as sent, with defaults filled in (JSON values: string, float64, bool, ...).
	Params map[string]any
	// Command is the command parameter as sent.
	Command string
	// Workspace is the absolute workspace root.
	Workspace string
	// Cwd is the working directory as the source reports it (resolved, or as sent).
	Cwd string
	// Timeout is the timeout parameter as sent (a JSON value), or the default when absent.
	Timeout any
	// TimeoutValue is the effective timeout in the spec's unit after the timeout rules.
	TimeoutValue float64
	// ExitCode is the exit code as the source reports it (signal_exit applied).
	ExitCode int
	// Signal is the signal number that ended the shell, or 0.
	Signal int
	// Success is ExitCode == 0 for a command that ran to its end.
	Success bool
	// TimedOut reports an expired timeout.
	TimedOut bool
	// Stdout, Stderr and Output (the combined stream) are the processed texts: decoded, stripped and
	// truncated with their markers as Output.Truncate says.
	Stdout, Stderr, Output string
	// StdoutTruncated, StderrTruncated and OutputTruncated report a cut; Truncated is any of them.
	StdoutTruncated, StderrTruncated, OutputTruncated, Truncated bool
	// StdoutBytes, StderrBytes and OutputBytes count the text before truncation (UTF-8 bytes, or raw bytes).
	StdoutBytes, StderrBytes, OutputBytes int64
	// Pid is the shell's process id (0 in the embedded shell).
	Pid int
	// ShellID is a background shell's id.
	ShellID string
	// Running reports a background shell that has not finished.
	Running bool
	// Started is the start time, RFC 3339.
	Started string
	// Message is the failure text for an error outcome (a failed check, a decode error, a spawn error).
	Message string
	// Param and Problem describe an invalid parameter.
	Param, Problem string
	// Issues are every problem of the call's parameters, for a tool with issues (each .Kind, .Param,
	// .Problem, .Type, .Value; Param, Problem and Value are then the first's).
	Issues []Issue
	// Path and Resolved are the working directory as sent and as resolved, for working-directory failures.
	Path, Resolved string
	// Min and Max are the timeout bounds, for the timeout failure.
	Min, Max float64
	// ID is a background shell id as sent, for unknown-id failures; Max doubles as the live-shell limit.
	ID string
	// Value is a parameter's value as sent, for the failures of a value of an unexpected type (on_type).
	Value any
	// ErrorType is the class of an error the source's language runtime raised (ValueError, TypeError), for
	// runtime_errors; .Message is its text.
	ErrorType string
	// Name and Configured are the workspace named (as sent) and the names configured, joined with ", ",
	// for the workspace failures; Name is also a redaction rule's name, and Match what it matched.
	Name, Configured, Match string
	// Total, Kept and Elided describe a cut, for truncation markers.
	Total, Kept, Elided int64
	// Err is a Go error text, for spawn errors.
	Err string
	// Errno, ErrnoName and Strerror describe a spawn error's system error: 20, "ENOTDIR", "Not a directory"
	// (C's strerror text, as Python's OSError and Node's error codes show it).
	Errno               int
	ErrnoName, Strerror string
	// SpawnPath is the path a spawn error names, as Python's OSError.filename does: the working directory
	// (as .Cwd reports it) when changing into it failed, the program when executing it failed.
	SpawnPath string
	// StdoutKept, StderrKept and OutputKept count the bytes a capture kept (a background shell's buffer).
	StdoutKept, StderrKept, OutputKept int64
	// Shell is the shell program (argv[0]).
	Shell string
	// SessionID is a session's id: the one started (outcome running) or the one a call names.
	SessionID string
	// WallTime is how long the call waited for its command, in seconds: the yield window, or the run.
	WallTime float64
	// Units is the size of the whole output in output.budget's unit (tokens: bytes / bytes_per_token,
	// rounded up) before the budget's cut; Lines its number of lines (a last line without "\n" counts) and
	// KeptLines the number of lines of the output as cut.
	Units, Lines, KeptLines int64
	// Nonce is 16 random hexadecimal digits drawn for the call (a chunk id: slice .Nonce 0 6).
	Nonce string
	// Input is the text a session_write wrote.
	Input string
	// Sessions are the sessions, for session_list: each .ID, .Command, .Pid, .Running, .ExitCode, .Started,
	// .Age, .Tty.
	Sessions []SessionInfo
	// Shells are the background shells, for a list tool, oldest first: each .ID, .Pid, .Command, .Running,
	// .ExitCode, .Signal, .Started, .Age (bglog.go).
	Shells []ShellInfo

	// A poll of a background shell whose registry keeps a log (background.log, bglog.go). Log is the log
	// read: stdout and stderr in the order they arrived, its last background.log.limit bytes (with poll:
	// new, what arrived since the last poll), invalid bytes shown as U+FFFD; LogBytes counts all that was
	// written to it, and LogTruncated says that its front was dropped. LogLineCount is the number of
	// lines of what was read (a last line without "\n" counts; when the front was dropped, its first line,
	// cut, is left out), and LogTail their last lines (read.lines, or the parameter with role lines),
	// joined with "\n" and without the last one's, LogTailLines their number.
	Log, LogTail                         string
	LogBytes, LogLineCount, LogTailLines int64
	LogTruncated                         bool
	// A paged session_read (session.page): Log is the lines read, joined with "\n", LogLineCount all the
	// lines kept, PageFrom the index of the first line read (from 0), PageLines how many were read and
	// PageRemaining how many follow them.
	PageFrom, PageLines, PageRemaining int64

	// What hosts report around a command (hostfeatures.go).

	// PidsFile is, in shell.wrap's template with pids_file, the file the wrapped command writes its
	// background jobs' pids to.
	PidsFile string
	// BackgroundPids are the pids the wrapped command reported (shell.wrap.pids_file), the shell's own
	// left out.
	BackgroundPids []int
	// Binary reports binary output (output.binary): the output ends before the read that held it.
	Binary bool

	// A spilled output (output.spill). Spilled reports that the output was saved to a file and .Output is
	// its preview; SpillPath is the file's path; SpillSize the whole output's size in the spill bound's
	// unit, SpillLines its lines, SpillElided the units the preview leaves out; SpillCapped reports a file
	// cut at max_bytes (or short: a write failed after it started); SpillError says why the file could not be
	// written (the output then did not spill, or, when it started, spilled to the short file).
	Spilled, SpillCapped               bool
	SpillPath, SpillError              string
	SpillSize, SpillLines, SpillElided int64
	// What a file's path is made of: TempDir is the engine's temporary directory (made when the spec
	// spills, removed when the engine closes), EngineID a uuid drawn for the engine (a host's session id),
	// CallID 16 characters of [0-9a-z] drawn for the call, CallSeq the call's number in its engine (from 1).
	TempDir, EngineID, CallID string
	CallSeq                   int64
	// The data of the model APIs' tool shapes (spec/apitools.go).

	// Answers are a batch's answers, one per command run, in order: each the JSON text (a json each) or the
	// text (a text each) its outcome's case rendered, for the batch's ok case
	// ("[{{range $i, $a := .Answers}}{{if $i}},{{end}}{{$a}}{{end}}]").
	Answers []string
	// Stream names the stream a truncation marker cuts (stdout, stderr, or output for a combined one).
	Stream string
}

// SessionInfo describes one session in a listing.
type SessionInfo struct {
	ID       string
	Command  string
	Pid      int
	Running  bool
	ExitCode int
	Started  string
	// Age is the seconds since the session started, at the call (a fraction).
	Age float64
	Tty bool
}

// Funcs are the functions templates may call, in addition to text/template's built-ins. A template
// compiled by ParseTemplateFor gets its own copies, which charge what they build and do to the budget of
// the execution (Execute); these, outside one, only refuse to build a value over TemplateOutput bytes.
var Funcs = funcsFor(nil, false)

// funcsFor makes the template functions of a template whose executions st budgets (nil: none); with
// builtins, also text/template's built-ins that take work or memory in proportion to their arguments
// (comparisons, print, html, js, urlquery), so that every one charges the budget.
func funcsFor(st *execState, builtins bool) template.FuncMap {
	m := template.FuncMap{
		// json encodes a value as JSON (no HTML escaping).
		"json": func(v any) (string, error) {
			if s, ok := v.(string); ok {
				if err := st.reserve(6*len(s) + 2); err != nil {
					return "", err
				}
			}
			b, err := jsonenc.Marshal(v)
			if err != nil {
				return "", err
			}
			return string(b), st.build(len(b))
		},
		// printf is text/template's printf with bounded widths and precisions.
		"printf": func(format string, args ...any) (string, error) {
			if err := st.reserve(printfEstimate(format, args)); err != nil {
				return "", err
			}
			s, err := boundedPrintf(format, args...)
			if err != nil {
				return "", err
			}
			return s, st.build(len(s))
		},
		// goquote is Go's %q.
		"goquote": func(s string) (string, error) {
			if err := st.reserve(4*len(s) + 2); err != nil {
				return "", err
			}
			q := strconv.Quote(s)
			return q, st.build(len(q))
		},
		// hasSuffix and hasPrefix are the strings functions.
		"hasSuffix": func(s, suffix string) (bool, error) {
			return strings.HasSuffix(s, suffix), st.step(1 + len(suffix)/stepBytes)
		},
		"hasPrefix": func(s, prefix string) (bool, error) {
			return strings.HasPrefix(s, prefix), st.step(1 + len(prefix)/stepBytes)
		},
		// join joins its non-empty arguments with sep (Python "sep".join of the truthy parts).
		"join": func(sep string, parts ...string) (string, error) {
			n, keep := 0, 0
			for _, p := range parts {
				if p != "" {
					n += len(p)
					keep++
				}
			}
			if keep > 1 {
				n += len(sep) * (keep - 1)
			}
			if err := st.build(n); err != nil {
				return "", err
			}
			var b strings.Builder
			b.Grow(n)
			first := true
			for _, p := range parts {
				if p == "" {
					continue
				}
				if !first {
					b.WriteString(sep)
				}
				b.WriteString(p)
				first = false
			}
			return b.String(), nil
		},
		// concat concatenates its arguments.
		"concat": func(parts ...string) (string, error) {
			n := 0
			for _, p := range parts {
				n += len(p)
			}
			if err := st.build(n); err != nil {
				return "", err
			}
			return strings.Join(parts, ""), nil
		},
		// pynum formats a number as Python's str() of the value the model sent (120, 1.5, 1e-05 -> as JSON).
		"pynum": func(v any) (string, error) { return pynum(v), st.step(1) },
		// int truncates a number toward zero.
		"int": func(v any) (int64, error) { return int64(toFloat(v)), st.step(1) },
		// pytype names the Python type of a JSON value as json.loads made it (str, int, float, bool, NoneType,
		// list, dict).
		"pytype": func(v any) (string, error) { return pytype(v), st.step(1) },
		// gonum formats a number as Go's %v of a float64 (600, 1.5).
		"gonum": func(v any) (string, error) {
			return strconv.FormatFloat(toFloat(v), 'g', -1, 64), st.step(1)
		},
		// add sums numbers: an integer when every one is integral, else a float.
		"add": func(vs ...any) (any, error) {
			var sum float64
			for _, v := range vs {
				sum += toFloat(v)
			}
			if err := st.step(1 + len(vs)); err != nil {
				return nil, err
			}
			if sum == math.Trunc(sum) && math.Abs(sum) < 1<<53 {
				return int64(sum), nil
			}
			return sum, nil
		},
		// humansize writes a size in bytes as Claude Code does (1024 per step, one decimal, ".0" dropped):
		// "512 bytes", "39.1KB", "1.5MB".
		"humansize": func(v any) (string, error) { return HumanSize(int64(toFloat(v))), st.step(1) },
		// humanduration writes milliseconds as Claude Code's formatDuration does: "1s", "2m 0s", "1h 0m 5s".
		"humanduration": func(v any) (string, error) { return HumanDuration(toFloat(v)), st.step(1) },
		// mul multiplies numbers: an integer when the product is integral, else a float (a wall time in
		// milliseconds: int (mul .WallTime 1000)).
		"mul": func(vs ...any) (any, error) {
			prod := 1.0
			for _, v := range vs {
				prod *= toFloat(v)
			}
			if err := st.step(1 + len(vs)); err != nil {
				return nil, err
			}
			if prod == math.Trunc(prod) && math.Abs(prod) < 1<<53 {
				return int64(prod), nil
			}
			return prod, nil
		},
		// round rounds a number to a number of decimal places, halves away from zero (Rust's f32::round of
		// x*10^n, divided back).
		"round": func(v any, places int) (float64, error) {
			p := math.Pow(10, float64(min(max(places, 0), 15)))
			return math.Round(toFloat(v)*p) / p, st.step(1)
		},
	}
	for name, f := range textFuncs(st) {
		m[name] = f
	}
	if builtins {
		for name, f := range budgetedBuiltins(st) {
			m[name] = f
		}
	}
	return m
}

// toFloat reads a number from any form the template data holds (json.Number as sent, float64, int).
func toFloat(v any) float64 {
	switch n := v.(type) {
	case json.Number:
		f, _ := n.Float64()
		return f
	case float64:
		return n
	case int:
		return float64(n)
	case int64:
		return float64(n)
	}
	return 0
}

// pytype names the Python type json.loads makes of a JSON value.
func pytype(v any) string {
	switch n := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(n), ".eE") {
			return "float"
		}
		return "int"
	case float64:
		if n == float64(int64(n)) {
			return "int"
		}
		return "float"
	case int, int64:
		return "int"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// pynum renders a JSON number the way Python's str() renders the int or float json.loads made of it:
// integers without a point, floats with repr's shortest form (1.0, 0.5, 1e-05).
func pynum(v any) string {
	switch n := v.(type) {
	case nil:
		return "None"
	case bool:
		if n {
			return "True"
		}
		return "False"
	case json.Number:
		if !strings.ContainsAny(string(n), ".eE") {
			if i, ok := new(big.Int).SetString(string(n), 10); ok {
				return i.String() // -0 is 0
			}
			return string(n)
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !math.IsInf(f, 0) {
			return string(n)
		}
		return pyfloat(f) // out of range: inf, as float() reads it
	case float64:
		return pyfloat(n)
	case int:
		return strconv.Itoa(n)
	case int64:
		return strconv.FormatInt(n, 10)
	case string:
		return n
	}
	return fmt.Sprint(v)
}

func pyfloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0 && math.Signbit(f):
		return "-0.0"
	}
	abs := f
	if abs < 0 {
		abs = -abs
	}
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Python writes at least two exponent digits: 1e-05.
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[:1]
		digits := strings.TrimLeft(exp[1:], "0")
		if len(digits) < 2 {
			digits = strings.Repeat("0", 2-len(digits)) + digits
		}
		return mant + "e" + sign + digits
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// ParseTemplate compiles a spec template over Data (ParseTemplateFor).
func ParseTemplate(name, text string) (*template.Template, error) {
	return ParseTemplateFor(name, text, Data{})
}

// ParseTemplateFor compiles a spec template with Funcs, for data of the given type; name is used in error
// messages. A spec template cannot run away: it may not define or call other templates; it may range only
// over a list or a map that the data holds (never over a number, so every loop is bounded by the data),
// and inside a range only over the element it is on (or a part of it), so nested loops walk the data
// rather than multiply it; and printf rejects widths and precisions that would allocate without bound.
// Execute it with Execute or ExecuteLimit, which bound what one execution writes, what its functions
// build and the steps it takes.
func ParseTemplateFor(name, text string, data any) (*template.Template, error) {
	st := &execState{}
	t, err := template.New(name).Funcs(funcsFor(st, true)).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, err
	}
	if len(t.Templates()) > 1 {
		return nil, fmt.Errorf("a spec template may not define templates (define, block)")
	}
	work := 0
	if t.Tree != nil && t.Tree.Root != nil {
		if err := checkTemplate(t.Tree.Root, reflect.TypeOf(data), scope{}); err != nil {
			return nil, err
		}
		work = rangeWork(t.Tree.Root)
	}
	register(t, &templateState{own: st, rangeWork: work, builds: work > 0 || builds(t.Tree)})
	return t, nil
}

// TemplateOutput is the output budget of one execution of a spec template by Execute: far more than any
// message or marker needs. The runtime gives a result template more (ExecuteLimit), in proportion to the
// tool's own size limits.
const TemplateOutput = 16 << 20

// TemplateSteps is the number of steps one execution may take: each write, each function call (and one
// more per stepBytes bytes a comparison or a prefix test reads), and, charged before it starts, each node
// of a range's body once for every iteration the range could make over the data.
const TemplateSteps = 1 << 20

// stepBytes is how many bytes a comparison reads per step.
const stepBytes = 4096

// ErrTemplateOutput is returned (wrapped) when a template writes more than its output budget.
var ErrTemplateOutput = errors.New("the template writes more than its output budget")

// ErrTemplateBudget is returned (wrapped) when the values a template's functions build together exceed its
// output budget, or when it takes more than TemplateSteps steps.
var ErrTemplateBudget = errors.New("the template exceeds its budget")

// Execute runs a template compiled by ParseTemplateFor and returns its output, failing with
// ErrTemplateOutput past TemplateOutput bytes written and with ErrTemplateBudget past as many bytes built by
// its functions or past TemplateSteps steps.
func Execute(t *template.Template, data any) (string, error) {
	return ExecuteLimit(t, data, TemplateOutput)
}

// ExecuteLimit is Execute with an output budget of limit bytes (and as many for the values its functions
// build).
func ExecuteLimit(t *template.Template, data any, limit int) (string, error) {
	b := &budget{outLeft: limit, outLimit: limit, buildLeft: limit, buildLimit: limit, stepsLeft: TemplateSteps}
	ts := stateOf(t)
	if ts == nil { // not compiled by ParseTemplateFor: only the output is bounded
		err := t.Execute(b, data)
		return b.out.String(), err
	}
	if ts.rangeWork > 0 {
		// Every range iterates at most once per element of the data's lists and maps (a nested range walks
		// the element it is on), or up to an integer the data holds in one (a default from the spec): its
		// body's nodes are charged that many times before the execution starts.
		w := width(reflect.ValueOf(data), false, TemplateSteps/ts.rangeWork+1)
		if err := b.step(ts.rangeWork * w); err != nil {
			return "", fmt.Errorf("template: %s: ranges over data of %d elements: %w", t.Name(), w, err)
		}
	}
	err := ts.execute(t, b, data)
	return b.out.String(), err
}

// building are the functions whose results grow with their arguments.
var building = []string{"concat", "join", "printf", "json", "goquote", "print", "println", "html", "js", "urlquery",
	"replace", "shquote", "lines", "joinlist"}

// builds reports a template that calls a function of building.
func builds(tree *parse.Tree) bool {
	if tree == nil || tree.Root == nil {
		return false
	}
	found := false
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		if found || n == nil {
			return
		}
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.ActionNode:
			walk(n.Pipe)
		case *parse.PipeNode:
			if n != nil {
				for _, c := range n.Cmds {
					walk(c)
				}
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(a)
			}
		case *parse.IdentifierNode:
			found = slices.Contains(building, n.Ident)
		case *parse.IfNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			found = true
		}
	}
	walk(tree.Root)
	return found
}

// rangeWork is what the ranges of a template do per element of its data: for each range, the nodes of its
// body (a range nested in it counts as one node there, and its own body is counted for itself).
func rangeWork(n parse.Node) int {
	work := 0
	var size func(n parse.Node) int
	size = func(n parse.Node) int {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return 0
			}
			k := 0
			for _, c := range n.Nodes {
				k += size(c)
			}
			return k
		case *parse.ActionNode:
			return 1 + size(n.Pipe)
		case *parse.PipeNode:
			if n == nil {
				return 0
			}
			k := len(n.Decl)
			for _, c := range n.Cmds {
				k += size(c)
			}
			return k
		case *parse.CommandNode:
			k := 1
			for _, a := range n.Args {
				k += size(a)
			}
			return k
		case *parse.IfNode:
			return 1 + size(n.Pipe) + size(n.List) + size(n.ElseList)
		case *parse.WithNode:
			return 1 + size(n.Pipe) + size(n.List) + size(n.ElseList)
		case *parse.RangeNode:
			work += 1 + size(n.List)
			return 1 + size(n.Pipe) + size(n.ElseList)
		}
		return 1
	}
	size(n)
	return work
}

// scope is what a range may iterate besides the data's lists and maps: the element variables declared by
// the ranges around a node, and dot when the nearest construct that set it is a range (an element of a
// list or a map). Each carries the depth of the range that set it (1 for the outermost) and its type when
// the data's type says it (nil for a value read from JSON).
type scope struct {
	vars       []rangeVar
	depth      int
	dotElement bool
	dotType    reflect.Type
}

type rangeVar struct {
	name  string
	depth int
	typ   reflect.Type
}

// without forgets variables that a declaration or an assignment may have set to anything.
func (sc scope) without(decl []*parse.VariableNode) scope {
	if len(decl) == 0 {
		return sc
	}
	out := sc
	out.vars = nil
	for _, v := range sc.vars {
		if !slices.ContainsFunc(decl, func(d *parse.VariableNode) bool { return d.Ident[0] == v.name }) {
			out.vars = append(out.vars, v)
		}
	}
	return out
}

// checkTemplate walks a template's tree: no template calls, every range over a list or a map, and a range
// inside a range only over the element the outer one is on.
func checkTemplate(n parse.Node, data reflect.Type, sc scope) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			// A variable declared or assigned outside a range header ({{$v := 9}}, {{$v = 9}}) may hold a
			// number from here on.
			if a, ok := c.(*parse.ActionNode); ok {
				sc = sc.without(a.Pipe.Decl)
			}
			if err := checkTemplate(c, data, sc); err != nil {
				return err
			}
		}
	case *parse.TemplateNode:
		return fmt.Errorf("a spec template may not call templates ({{template %q}})", n.Name)
	case *parse.IfNode:
		sc = sc.without(n.Pipe.Decl)
		if err := checkTemplate(n.List, data, sc); err != nil {
			return err
		}
		return checkTemplate(n.ElseList, data, sc)
	case *parse.WithNode:
		sc = sc.without(n.Pipe.Decl)
		inner := sc
		inner.dotElement, inner.dotType = false, nil // with sets dot to anything
		if err := checkTemplate(n.List, data, inner); err != nil {
			return err
		}
		return checkTemplate(n.ElseList, data, sc)
	case *parse.RangeNode:
		elem, err := checkRange(n.Pipe, data, sc)
		if err != nil {
			return err
		}
		inner := scope{vars: slices.Clone(sc.vars), depth: sc.depth + 1, dotElement: true, dotType: elem}
		if d := n.Pipe.Decl; len(d) > 0 && !n.Pipe.IsAssign {
			// {{range $e := x}} and {{range $i, $e := x}}: only $e is an element ($i is an index or a key).
			inner.vars = append(inner.vars, rangeVar{name: d[len(d)-1].Ident[0], depth: inner.depth, typ: elem})
		}
		if err := checkTemplate(n.List, data, inner); err != nil {
			return err
		}
		return checkTemplate(n.ElseList, data, sc)
	}
	return nil
}

// checkRange accepts a range over a field (or a chain of fields) of the data that holds a list or a map (or
// a value read from JSON, which never holds a Go integer), or over the element a range around it is on (dot,
// or its variable) or a field of it. Inside a range, only the element of the innermost range around it (or
// a part of it) may be ranged over: a range over anything else would repeat its whole walk once per
// element, and nested ranges would multiply (five nested ranges over the parameters take n^5 steps). It
// returns the type of the elements when the data's type says it.
func checkRange(p *parse.PipeNode, data reflect.Type, sc scope) (reflect.Type, error) {
	bad := fmt.Errorf("range over %s: a spec template ranges only over a list or a map the data holds, never over a number", p)
	if len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return nil, bad
	}
	var fields []string
	depth, t := 0, data // what the expression starts from: the data (depth 0), or an element
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.DotNode:
		if !sc.dotElement {
			return nil, bad
		}
		depth, t = sc.depth, sc.dotType
	case *parse.FieldNode:
		if sc.dotElement {
			depth, t = sc.depth, sc.dotType // a field of the element
		}
		fields = a.Ident
	case *parse.VariableNode:
		if a.Ident[0] != "$" {
			i := slices.IndexFunc(sc.vars, func(v rangeVar) bool { return v.name == a.Ident[0] })
			if i < 0 {
				return nil, bad
			}
			depth, t = sc.vars[i].depth, sc.vars[i].typ
		}
		fields = a.Ident[1:]
	default:
		return nil, bad
	}
	for _, f := range fields {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			t = nil // inside a map or an interface: values read from JSON
			break
		}
		sf, ok := t.FieldByName(f)
		if !ok {
			return nil, bad
		}
		t = sf.Type
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Map, reflect.Slice, reflect.Array:
			elem = t.Elem()
			if elem.Kind() == reflect.Interface {
				elem = nil
			}
		case reflect.Interface:
		default:
			return nil, bad
		}
	}
	if sc.depth > 0 && depth != sc.depth {
		return nil, fmt.Errorf("range over %s inside another range: a spec template nests a range only over the element the range around it is on (dot or its variable, or a field of it), so that nested ranges walk the data instead of multiplying it", p)
	}
	return elem, nil
}

// boundedPrintf is fmt.Sprintf for templates, without widths or precisions from arguments (%*d) and with
// none over 4096: what a template prints stays proportional to its data.
func boundedPrintf(format string, args ...any) (string, error) {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0", format[j]) >= 0 {
			j++
		}
		// [argument index] width [. [argument index] precision]
		for part := 0; part < 2; part++ {
			if j < len(format) && format[j] == '[' {
				if k := strings.IndexByte(format[j:], ']'); k > 0 {
					j += k + 1
				}
			}
			if j < len(format) && format[j] == '*' {
				return "", fmt.Errorf("printf: a width or precision from an argument (*) is not allowed")
			}
			start := j
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
			if n, err := strconv.Atoi(format[start:j]); err == nil && n > 4096 || j-start > 4 {
				return "", fmt.Errorf("printf: width or precision %s is over 4096", format[start:j])
			}
			if part == 1 || j >= len(format) || format[j] != '.' {
				break
			}
			j++
		}
		if j < len(format) && format[j] == '%' {
			i = j
		}
	}
	return fmt.Sprintf(format, args...), nil
}
