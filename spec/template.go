package spec

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/template"

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
	// Path and Resolved are the working directory as sent and as resolved, for working-directory failures.
	Path, Resolved string
	// Min and Max are the timeout bounds, for the timeout failure.
	Min, Max float64
	// ID is a background shell id as sent, for unknown-id failures; Max doubles as the live-shell limit.
	ID string
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
}

// Funcs are the functions templates may call, in addition to text/template's built-ins.
var Funcs = template.FuncMap{
	// json encodes a value as JSON (no HTML escaping).
	"json": func(v any) (string, error) {
		b, err := jsonenc.Marshal(v)
		return string(b), err
	},
	// goquote is Go's %q.
	"goquote": strconv.Quote,
	// hasSuffix and hasPrefix are the strings functions.
	"hasSuffix": strings.HasSuffix,
	"hasPrefix": strings.HasPrefix,
	// join joins its non-empty arguments with sep (Python "sep".join of the truthy parts).
	"join": func(sep string, parts ...string) string {
		var keep []string
		for _, p := range parts {
			if p != "" {
				keep = append(keep, p)
			}
		}
		return strings.Join(keep, sep)
	},
	// concat concatenates its arguments.
	"concat": func(parts ...string) string { return strings.Join(parts, "") },
	// pynum formats a number as Python's str() of the value the model sent (120, 1.5, 1e-05 -> as JSON).
	"pynum": pynum,
	// int truncates a number toward zero.
	"int": func(v any) int64 { return int64(toFloat(v)) },
	// gonum formats a number as Go's %v of a float64 (600, 1.5).
	"gonum": func(v any) string { return strconv.FormatFloat(toFloat(v), 'g', -1, 64) },
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
			return string(n)
		}
		f, err := n.Float64()
		if err != nil {
			return string(n)
		}
		return pyfloat(f)
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

// ParseTemplate compiles a spec template with Funcs; name is used in error messages.
func ParseTemplate(name, text string) (*template.Template, error) {
	return template.New(name).Funcs(Funcs).Option("missingkey=error").Parse(text)
}
