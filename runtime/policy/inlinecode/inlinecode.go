// Package inlinecode finds, without running anything, the commands that code given inline to an
// interpreter runs: python -c, perl -e, ruby -e, node -e, php -r, lua -e, an awk program, a GNU sed
// script (its e command and the e flag of s), and a vim Ex command line (-c, +CMD).
//
// It reads the code's tokens (strings with their escapes and interpolations, comments, names) and finds
// the calls that start a process: os.system, subprocess.*, os.exec*, os.spawn*, pty.spawn (Python, through
// its imports and aliases); system, exec, open with a pipe, qx and backticks (Perl); system, exec, spawn,
// IO.popen, Open3.*, %x and backticks (Ruby); child_process's exec, execSync, spawn, execFile (JavaScript);
// system, exec, shell_exec, passthru, popen, proc_open, pcntl_exec and backticks (PHP); os.execute and
// io.popen (Lua); system(), print | "cmd" and "cmd" | getline (awk). A call whose command is a literal
// string is a Run with that shell source; a literal list is a Run with that argument vector; code that
// builds the command at run time (a variable, an interpolation, an alias of the function, getattr, eval
// of a computed string) is a dynamic Run. eval of a literal string is read as code in the same language.
//
// What it does not see: code read from a file (python script.py, awk -f), commands run by modules it
// does not name (an FFI, a library's own process spawning), and names a program defines at run time in
// ways other than those above. It knows nothing of policies: runtime/policy checks what it finds.
package inlinecode

import (
	"slices"
	"strings"
)

// Language is a language whose inline code is read.
type Language string

// The languages.
const (
	Python     Language = "python"
	Perl       Language = "perl"
	Ruby       Language = "ruby"
	JavaScript Language = "javascript"
	PHP        Language = "php"
	Lua        Language = "lua"
	Awk        Language = "awk"
	Sed        Language = "sed"
	Ex         Language = "ex"
)

// Languages are the languages Scan reads.
var Languages = []Language{Python, Perl, Ruby, JavaScript, PHP, Lua, Awk, Sed, Ex}

// Known reports a language Scan reads.
func Known(name string) bool { return slices.Contains(Languages, Language(name)) }

// Run is a command that code runs.
type Run struct {
	// Shell is the shell source it runs (os.system("..."), backticks), when Argv is nil and it is not
	// Dynamic.
	Shell string
	// Argv is the argument vector it runs a program with (subprocess.run([...]), exec, spawn).
	Argv []Arg
	// Dynamic: the command is built at run time.
	Dynamic bool
	// Code is the code that runs it, as written.
	Code string
}

// Arg is one argument of an argument vector.
type Arg struct {
	Val string
	Dyn bool // only known at run time
}

// Limits on the work for one piece of code.
const (
	// MaxCode is the longest code read; longer code is one dynamic Run.
	MaxCode = 1 << 16
	// maxDepth bounds code read inside code (eval of a literal).
	maxDepth = 4
	// maxRuns bounds the runs reported.
	maxRuns = 256
)

// Scan finds the commands code in lang runs. Code that does not lex (an unterminated string) is read as
// far as it goes.
func Scan(lang Language, code string) []Run {
	var s Scanner
	return s.Scan(lang, code)
}

// Scanner is Scan with its buffers kept from one call to the next. The zero value is ready to use; a
// Scanner is not safe for concurrent use.
type Scanner struct {
	runs []Run
	// toks holds the tokens of the code being read, and after them those of code read inside it (eval);
	// aliases the names its imports bind, likewise.
	toks    []token
	aliases []alias
}

// alias is a local name that stands for a module or a function (sp -> subprocess, system -> os.system).
type alias struct {
	local, target string
}

// Scan is the package's Scan. The runs are the caller's.
func (s *Scanner) Scan(lang Language, code string) []Run {
	s.runs = nil
	s.scan(lang, code, 0)
	clear(s.toks[:cap(s.toks)]) // no string of this code outlives the call
	clear(s.aliases[:cap(s.aliases)])
	s.toks, s.aliases = s.toks[:0], s.aliases[:0]
	runs := s.runs
	s.runs = nil
	return runs
}

type scanner = Scanner

func (s *scanner) add(r Run) {
	if !r.Dynamic && r.Argv == nil && strings.TrimSpace(r.Shell) == "" {
		return // an empty command runs nothing
	}
	if len(s.runs) < maxRuns {
		s.runs = append(s.runs, r)
	}
}

func (s *scanner) scan(lang Language, code string, depth int) {
	if len(code) > MaxCode || depth > maxDepth {
		s.add(Run{Dynamic: true, Code: clip(code)})
		return
	}
	switch lang {
	case Sed:
		s.sed(code, depth)
	case Ex:
		s.ex(code, depth)
	default:
		base, aliases := len(s.toks), len(s.aliases)
		toks := s.lex(lang, code)
		if lang == Awk {
			s.awk(code, toks)
		} else {
			c := &calls{s: s, lang: lang, src: code, toks: toks, depth: depth, tab: tables[lang], aliasBase: aliases}
			c.imports()
			c.run()
		}
		s.toks, s.aliases = s.toks[:base], s.aliases[:aliases]
	}
}

// clip shortens code for a message.
func clip(code string) string {
	if len(code) > 200 {
		return code[:200] + "..."
	}
	return code
}

// shellRun is the run of a command literal.
func shellRun(cmd string, dyn bool, code string) Run {
	if dyn {
		return Run{Dynamic: true, Code: code}
	}
	return Run{Shell: cmd, Code: code}
}

// argvRun is the run of an argument vector; a single argument with blanks in it is shell source (how
// spawn("a b") and system("a b") are mostly meant, and the stricter reading).
func argvRun(argv []Arg, code string) (Run, bool) {
	if len(argv) == 0 {
		return Run{}, false
	}
	if argv[0].Dyn {
		return Run{Dynamic: true, Code: code}, true
	}
	if len(argv) == 1 && strings.ContainsAny(argv[0].Val, " \t\n;|&") {
		return Run{Shell: argv[0].Val, Code: code}, true
	}
	return Run{Argv: argv, Code: code}, true
}
