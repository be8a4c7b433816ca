package inlinecode

import "strings"

// mode is how a sink reads its arguments.
type mode uint8

const (
	// first: the first positional argument is shell source (a string) or an argument vector (a list).
	first mode = iota
	// list: one string is shell source, several arguments are an argument vector (Perl's and Ruby's system).
	list
	// execArgs: the positional arguments (lists flattened) are the program and its arguments.
	execArgs
	// code: the first argument is code in the same language (eval).
	code
	// open: a string starting or ending with | is shell source; after a "-|" or "|-" mode, a list.
	open
	// dynamic: using it at all runs something only known at run time (getattr on os, process.binding).
	dynamic
	// via: the first argument names the function to call with the rest (call_user_func, send).
	via
)

// sink is a function that runs a command.
type sink struct {
	mode  mode
	skip  int  // leading positional arguments that are not part of the command (os.spawn*'s mode)
	argv0 bool // execArgs: a list after the program starts with argv[0], which is not an argument
}

// table is what one language's code can run commands with.
type table struct {
	// sinks by qualified name (os.system, child_process.exec, IO.popen), separators written as dots.
	sinks map[string]sink
	// bare is the sinks callable without a qualifier (Perl's system, Ruby's `system`, PHP's exec).
	bare map[string]sink
	// parenless: a bare sink may take its arguments without parentheses (Perl, Ruby).
	parenless bool
	// concat is the string concatenation operator ("" for juxtaposition only).
	concat []string
	// juxtapose: adjacent string literals concatenate (Python, Ruby, awk).
	juxtapose bool
	// gate: bare sinks count only when the code names this module in a string (JavaScript's
	// child_process: exec and spawn are common method names).
	gate string
	// modules are the names that hold sinks as attributes (os, subprocess); using one otherwise than by
	// a known attribute (getattr, indexing) is dynamic.
	modules map[string]bool
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

func sinks(m mode, names ...string) map[string]sink {
	out := map[string]sink{}
	for _, n := range names {
		out[n] = sink{mode: m}
	}
	return out
}

func merge(ms ...map[string]sink) map[string]sink {
	out := map[string]sink{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

var tables = map[Language]*table{
	Python: {
		sinks: merge(
			sinks(first, "os.system", "os.popen", "os.popen2", "os.popen3", "os.popen4", "commands.getoutput",
				"commands.getstatusoutput", "subprocess.getoutput", "subprocess.getstatusoutput", "subprocess.run",
				"subprocess.call", "subprocess.check_call", "subprocess.check_output", "subprocess.Popen",
				"asyncio.create_subprocess_shell", "pty.spawn", "platform.popen"),
			map[string]sink{
				"os.execl": {mode: execArgs, argv0: true}, "os.execle": {mode: execArgs, argv0: true},
				"os.execlp": {mode: execArgs, argv0: true}, "os.execlpe": {mode: execArgs, argv0: true},
				"os.execv": {mode: execArgs, argv0: true}, "os.execve": {mode: execArgs, argv0: true},
				"os.execvp": {mode: execArgs, argv0: true}, "os.execvpe": {mode: execArgs, argv0: true},
				"os.spawnl": {mode: execArgs, skip: 1, argv0: true}, "os.spawnle": {mode: execArgs, skip: 1, argv0: true},
				"os.spawnlp": {mode: execArgs, skip: 1, argv0: true}, "os.spawnlpe": {mode: execArgs, skip: 1, argv0: true},
				"os.spawnv": {mode: execArgs, skip: 1, argv0: true}, "os.spawnve": {mode: execArgs, skip: 1, argv0: true},
				"os.spawnvp": {mode: execArgs, skip: 1, argv0: true}, "os.spawnvpe": {mode: execArgs, skip: 1, argv0: true},
				"os.posix_spawn": {mode: execArgs, argv0: true}, "os.posix_spawnp": {mode: execArgs, argv0: true},
				"asyncio.create_subprocess_exec": {mode: execArgs},
				"importlib.import_module":        {mode: dynamic},
			}),
		bare: map[string]sink{"eval": {mode: code}, "exec": {mode: code}, "compile": {mode: code},
			"__import__": {mode: dynamic}, "getattr": {mode: dynamic}},
		concat: []string{"+"}, juxtapose: true,
		modules: set("os", "subprocess", "pty", "commands", "asyncio", "platform", "posix"),
	},
	Perl: {
		bare: merge(sinks(list, "system", "exec", "CORE.system", "CORE.exec"), sinks(first, "readpipe"),
			sinks(open, "open", "CORE.open"), sinks(code, "eval")),
		parenless: true, concat: []string{"."},
	},
	Ruby: {
		sinks: merge(sinks(list, "Kernel.system", "Kernel.exec", "Kernel.spawn", "Process.spawn", "Process.exec",
			"PTY.spawn", "Open3.popen3", "Open3.popen2", "Open3.popen2e", "Open3.capture2", "Open3.capture2e",
			"Open3.capture3", "Open3.pipeline", "Open3.pipeline_r", "Open3.pipeline_w", "Open3.pipeline_rw",
			"Open3.pipeline_start"), sinks(first, "IO.popen"), sinks(open, "Kernel.open", "IO.read",
			"IO.readlines", "IO.foreach", "IO.write", "URI.open")),
		bare: merge(sinks(list, "system", "exec", "spawn"), sinks(open, "open"), sinks(code, "eval",
			"instance_eval", "class_eval", "module_eval"), sinks(via, "send", "public_send", "__send__")),
		parenless: true, concat: []string{"+"}, juxtapose: true,
	},
	JavaScript: {
		sinks: merge(sinks(first, "child_process.exec", "child_process.execSync"),
			map[string]sink{"child_process.spawn": {mode: execArgs}, "child_process.spawnSync": {mode: execArgs},
				"child_process.execFile": {mode: execArgs}, "child_process.execFileSync": {mode: execArgs},
				"Bun.spawn": {mode: first}, "Bun.spawnSync": {mode: first}, "Deno.run": {mode: dynamic},
				"Deno.Command": {mode: execArgs}, "process.binding": {mode: dynamic},
				"process._linkedBinding": {mode: dynamic}, "process.dlopen": {mode: dynamic},
				"vm.runInThisContext": {mode: code}, "vm.runInNewContext": {mode: code}, "vm.runInContext": {mode: code},
				"vm.Script": {mode: code}}),
		bare: merge(sinks(first, "exec", "execSync"), map[string]sink{"spawn": {mode: execArgs},
			"spawnSync": {mode: execArgs}, "execFile": {mode: execArgs}, "execFileSync": {mode: execArgs},
			"eval": {mode: code}, "Function": {mode: code}}),
		concat: []string{"+"}, gate: "child_process", modules: set("child_process", "vm"),
	},
	PHP: {
		bare: merge(sinks(first, "system", "exec", "shell_exec", "passthru", "popen", "proc_open"),
			map[string]sink{"pcntl_exec": {mode: execArgs}, "eval": {mode: code}, "assert": {mode: code},
				"call_user_func": {mode: via}, "call_user_func_array": {mode: via}, "create_function": {mode: dynamic}}),
		concat: []string{"."},
	},
	Lua: {
		sinks: merge(sinks(first, "os.execute", "io.popen"), map[string]sink{"load": {mode: code},
			"loadstring": {mode: code}}),
		bare:   map[string]sink{"load": {mode: code}, "loadstring": {mode: code}},
		concat: []string{".."}, modules: set("os", "io", "_G"),
	},
}

// calls finds the sink calls in one piece of tokenized code.
type calls struct {
	s     *scanner
	lang  Language
	src   string
	toks  []token
	depth int
	tab   *table
	// aliasBase is where this code's aliases start in the scanner's.
	aliasBase int
	// star lists the modules imported with from M import *.
	star []string
	// gated: the code names tab.gate.
	gated bool
}

func (c *calls) text(i, j int) string {
	if i >= len(c.toks) {
		return ""
	}
	end := len(c.src)
	if j > 0 && j <= len(c.toks) {
		end = int(c.toks[j-1].end)
	}
	return clip(c.src[int(c.toks[i].off):end])
}

func (c *calls) is(i int, s string) bool {
	return i >= 0 && i < len(c.toks) && c.toks[i].k == kPunct && c.toks[i].s == s
}

func (c *calls) ident(i int) bool { return i >= 0 && i < len(c.toks) && c.toks[i].k == kIdent }

// imports reads Python's import statements and JavaScript's requires and imports into aliases, and
// whether the code names its gate module.
func (c *calls) imports() {
	for _, t := range c.toks {
		if c.tab.gate != "" && (t.k == kStr || t.k == kCmd) && strings.Contains(t.s, c.tab.gate) {
			c.gated = true
		}
	}
	for i := 0; i < len(c.toks); i++ {
		switch {
		case c.lang == Python && c.ident(i) && c.toks[i].s == "import" && (i == 0 || !c.ident(i-1) || c.toks[i-1].s != "from" && !c.is(i-1, ".")):
			i = c.pyImport(i + 1)
		case c.lang == Python && c.ident(i) && c.toks[i].s == "from":
			i = c.pyFrom(i + 1)
		case c.lang == JavaScript && c.ident(i) && c.toks[i].s == "import":
			i = c.jsImport(i + 1)
		case c.lang == JavaScript && c.ident(i) && c.toks[i].s == "require" && c.is(i+1, "(") && i+3 < len(c.toks) && c.toks[i+2].k == kStr && c.is(i+3, ")"):
			c.jsRequire(i, module(c.toks[i+2].s))
		case c.ident(i) && c.is(i+1, "=") && !c.is(i+2, "=") && (i == 0 || !c.midChain(i)):
			c.assignAlias(i)
		}
	}
}

// assignAlias binds x in x = module (os, an alias of it) and x = __import__("m"): a module by another name.
func (c *calls) assignAlias(i int) {
	j := i + 2
	if !c.ident(j) {
		return
	}
	if c.lang == Python && c.toks[j].s == "__import__" && c.is(j+1, "(") && j+3 < len(c.toks) && c.toks[j+2].k == kStr && c.is(j+3, ")") {
		c.bind(c.toks[i].s, c.toks[j+2].s)
		return
	}
	if name, k := c.qualified(j); k == j+1 && c.tab.modules[name] {
		c.bind(c.toks[i].s, name)
	}
}

// bind makes local stand for target (a later binding wins).
func (c *calls) bind(local, target string) {
	c.s.aliases = append(c.s.aliases, alias{local, target})
}

// skipTok marks a token of an import statement.
func (c *calls) skipTok(k int) {
	if k >= 0 && k < len(c.toks) {
		c.toks[k].skip = true
	}
}

// module is a JavaScript module specifier without its node: scheme.
func module(s string) string { return strings.TrimPrefix(s, "node:") }

// dotted reads a dotted name at i; it returns the name and the index after it.
func (c *calls) dotted(i int) (string, int) {
	if !c.ident(i) {
		return "", i
	}
	name := c.toks[i].s
	i++
	for c.is(i, ".") && c.ident(i+1) {
		name += "." + c.toks[i+1].s
		i += 2
	}
	return name, i
}

// pyImport reads import a.b [as c], d ...
func (c *calls) pyImport(i int) int {
	for {
		start := i
		name, j := c.dotted(i)
		if name == "" {
			return i
		}
		local := strings.SplitN(name, ".", 2)[0]
		target := local
		if c.ident(j) && c.toks[j].s == "as" && c.ident(j+1) {
			local, target = c.toks[j+1].s, name
			j += 2
		}
		c.bind(local, target)
		for k := start; k < j; k++ {
			c.skipTok(k)
		}
		if !c.is(j, ",") {
			return j
		}
		i = j + 1
	}
}

// pyFrom reads from a.b import c [as d], e ... (and import *).
func (c *calls) pyFrom(i int) int {
	mod, j := c.dotted(i)
	if mod == "" || !c.ident(j) || c.toks[j].s != "import" {
		return i
	}
	j++
	paren := c.is(j, "(")
	if paren {
		j++
	}
	for j < len(c.toks) {
		switch {
		case c.is(j, "*"):
			c.star = append(c.star, mod)
			return j + 1
		case c.ident(j):
			name, local := c.toks[j].s, c.toks[j].s
			c.skipTok(j)
			j++
			if c.ident(j) && c.toks[j].s == "as" && c.ident(j+1) {
				local = c.toks[j+1].s
				c.skipTok(j + 1)
				j += 2
			}
			c.bind(local, mod+"."+name)
		case c.is(j, ",") || (paren && c.is(j, "\n")):
			j++
			continue
		default:
			return j
		}
		if !c.is(j, ",") {
			return j
		}
	}
	return j
}

// jsImport reads import x from "m", import * as x from "m", import {a, b as c} from "m".
func (c *calls) jsImport(i int) int {
	from := i
	for from < len(c.toks) && !(c.ident(from) && c.toks[from].s == "from") && !c.is(from, ";") && !c.is(from, "\n") {
		from++
	}
	if !c.ident(from) || from+1 >= len(c.toks) || c.toks[from+1].k != kStr {
		return i
	}
	mod := module(c.toks[from+1].s)
	for k := i; k < from; k++ {
		c.skipTok(k)
		t := c.toks[k]
		if t.k != kIdent || t.s == "as" {
			continue
		}
		switch {
		case c.is(k-1, "*") || (k >= 2 && c.toks[k-1].s == "as" && c.is(k-2, "*")):
			c.bind(t.s, mod)
		case c.ident(k+1) && c.toks[k+1].s == "as" && c.ident(k+2):
			c.bind(c.toks[k+2].s, mod+"."+t.s)
			k += 2
		case k > i && c.toks[k-1].s == "as":
		default:
			if c.insideBraces(i, k) {
				c.bind(t.s, mod+"."+t.s)
			} else {
				c.bind(t.s, mod) // the default export
			}
		}
	}
	return from + 1
}

// insideBraces reports that token k is inside { } that open at or after i.
func (c *calls) insideBraces(i, k int) bool {
	depth := 0
	for j := i; j < k; j++ {
		if c.is(j, "{") {
			depth++
		} else if c.is(j, "}") {
			depth--
		}
	}
	return depth > 0
}

// jsRequire binds the names a require("m") is assigned to: x = require("m"), {a, b: c} = require("m").
func (c *calls) jsRequire(i int, mod string) {
	if i < 2 || !c.is(i-1, "=") {
		return
	}
	if c.ident(i - 2) {
		c.bind(c.toks[i-2].s, mod)
		return
	}
	if !c.is(i-2, "}") {
		return
	}
	j := i - 3
	for j >= 0 && !c.is(j, "{") {
		j--
	}
	for k := j + 1; k < i-2; k++ {
		if !c.ident(k) {
			continue
		}
		c.skipTok(k)
		switch {
		case c.is(k+1, ":") && c.ident(k+2):
			c.bind(c.toks[k+2].s, mod+"."+c.toks[k].s)
			c.skipTok(k + 2)
			k += 2
		default:
			c.bind(c.toks[k].s, mod+"."+c.toks[k].s)
		}
	}
}

// qualified reads the name of a chain at i (a.b.c, A::B.c, require("m").c, __import__("m").c), with the
// alias of its first part resolved and separators written as dots; it returns the index after it.
func (c *calls) qualified(i int) (string, int) {
	var name string
	j := i
	t := c.toks[i]
	if (t.s == "require" || t.s == "__import__") && c.is(i+1, "(") && i+3 < len(c.toks) && c.toks[i+2].k == kStr && c.is(i+3, ")") {
		name = module(c.toks[i+2].s)
		j = i + 4
	} else {
		name = c.resolve(t.s)
		j = i + 1
	}
	for j+1 < len(c.toks) && (c.is(j, ".") || c.is(j, "::") || c.is(j, "->") || c.is(j, "?.")) && c.ident(j+1) {
		name += "." + c.toks[j+1].s
		j += 2
	}
	return name, j
}

func (c *calls) resolve(name string) string {
	for k := len(c.s.aliases) - 1; k >= c.aliasBase; k-- {
		if c.s.aliases[k].local == name {
			return c.s.aliases[k].target
		}
	}
	for _, m := range c.star {
		if _, ok := c.tab.sinks[m+"."+name]; ok {
			return m + "." + name
		}
	}
	return name
}

// lookup finds the sink a qualified name calls.
func (c *calls) lookup(name string) (sink, bool) {
	if sk, ok := c.tab.sinks[name]; ok {
		return sk, true
	}
	if sk, ok := c.tab.bare[strings.TrimPrefix(name, "CORE.")]; ok {
		if c.tab.gate != "" && !c.gated && sk.mode != code {
			return sink{}, false
		}
		return sk, true
	}
	// With the gate module named, a method of that name on anything may be its function (cp.exec where cp
	// came from somewhere this reading does not follow).
	if c.tab.gate != "" && c.gated {
		if sk, ok := c.tab.bare[name[strings.LastIndexByte(name, '.')+1:]]; ok && sk.mode != code {
			return sk, true
		}
	}
	return sink{}, false
}

func (c *calls) run() {
	for i := 0; i < len(c.toks); i++ {
		t := c.toks[i]
		switch t.k {
		case kCmd:
			c.s.add(shellRun(t.s, t.dyn, c.text(i, i+1)))
		case kCode:
			c.s.scan(c.lang, t.s, c.depth+1)
		case kVar:
			if c.lang == PHP && c.is(i+1, "(") { // $f(...): a function named at run time
				c.s.add(Run{Dynamic: true, Code: c.text(i, i+2)})
			}
			if c.lang == Perl && i > 0 && c.is(i-1, "&") && c.is(i+1, "(") {
				c.s.add(Run{Dynamic: true, Code: c.text(i-1, i+2)})
			}
		case kIdent:
			if t.skip || c.midChain(i) {
				continue
			}
			if t.s == "def" || t.s == "class" || t.s == "function" || t.s == "sub" {
				i++ // a definition's name is not a call
				continue
			}
			name, j := c.qualified(i)
			bare := !strings.Contains(name, ".") || strings.HasPrefix(name, "CORE.")
			sk, ok := c.lookup(name)
			if !ok {
				if c.tab.modules[name] && c.is(j, "[") { // os["execute"], child_process[x]
					c.s.add(Run{Dynamic: true, Code: c.text(i, j+1)})
				}
				continue
			}
			c.call(i, j, sk, bare)
		}
	}
}

// midChain reports a name after a member operator: it is read with the chain it ends.
func (c *calls) midChain(i int) bool {
	if i == 0 {
		return false
	}
	if c.is(i-1, ".") || c.is(i-1, "->") || c.is(i-1, "?.") {
		return true
	}
	return c.is(i-1, "::") && i >= 2 && (c.ident(i-2) || c.is(i-2, ")"))
}

// call reads the call of a sink whose name spans tokens [i, j).
func (c *calls) call(i, j int, sk sink, bare bool) {
	if c.is(j, "=") && !c.is(j+1, "=") {
		return // an assignment to the name
	}
	var args [][]token
	end := j
	switch {
	case c.is(j, "("):
		args, end = c.args(j+1, ")")
	case c.lang == Lua && j < len(c.toks) && c.toks[j].k == kStr: // os.execute "cmd"
		args, end = [][]token{{c.toks[j]}}, j+1
	case c.tab.parenless && bare && j < len(c.toks) && c.parenlessStart(c.toks[j]):
		args, end = c.args(j, "")
	case sk.mode == code && c.lang == Perl && c.is(j, "{"):
		return // eval { ... }: a block, read as the code it is
	default:
		if !bare || sk.mode == dynamic {
			// The function is taken as a value (f = os.system; getattr(os, ...)): what it runs is not known.
			c.s.add(Run{Dynamic: true, Code: c.text(i, j)})
		}
		return
	}
	text := c.text(i, end)
	var pos [][]token
	for _, a := range args {
		if !c.keyword(a) {
			pos = append(pos, a)
		}
	}
	switch sk.mode {
	case dynamic:
		if c.lang == Python && c.toks[i].s == "__import__" && len(pos) == 1 && c.str(pos[0]).known() {
			return // __import__("os"): the module is resolved where it is used
		}
		if c.lang == Python && c.toks[i].s == "getattr" && (len(pos) == 0 || !c.moduleExpr(pos[0])) {
			return // getattr on something other than a module that runs commands
		}
		c.s.add(Run{Dynamic: true, Code: text})
	case code:
		if len(pos) == 0 {
			return
		}
		if v := c.str(pos[len(pos)-1]); v.known() {
			c.s.scan(c.lang, v.s, c.depth+1)
		} else {
			c.s.add(Run{Dynamic: true, Code: text})
		}
	case via:
		if len(pos) == 0 {
			return
		}
		v := c.str(pos[0])
		if name := strings.TrimPrefix(v.s, ":"); v.known() {
			if next, ok := c.tab.bare[name]; ok {
				c.apply(next, pos[1:], text)
			}
			return
		}
		c.s.add(Run{Dynamic: true, Code: text})
	default:
		c.apply(sk, pos, text)
	}
}

// moduleExpr reports an expression that is a module holding sinks (os, an alias of it, __import__(...)).
func (c *calls) moduleExpr(a []token) bool {
	if len(a) == 0 || a[0].k != kIdent {
		return false
	}
	if a[0].s == "__import__" || a[0].s == "importlib" {
		return true
	}
	return len(a) == 1 && c.tab.modules[c.resolve(a[0].s)]
}

// parenlessStart reports a token that can start the arguments of a call without parentheses.
func (c *calls) parenlessStart(t token) bool {
	switch t.k {
	case kStr, kVar, kCmd, kWords:
		return true
	case kIdent:
		switch t.s {
		case "if", "unless", "or", "and", "do", "then", "end", "while", "until":
			return false
		}
		return true
	case kPunct:
		return t.s == "[" || t.s == "{" && c.lang == Ruby
	}
	return false
}

// args splits the arguments from i to the closing token (close "" for a call without parentheses, to
// the end of its statement) at top-level commas; it returns them and the index after the call.
func (c *calls) args(i int, close string) ([][]token, int) {
	var out [][]token
	var cur []token
	depth := 0
	j := i
	for ; j < len(c.toks); j++ {
		t := c.toks[j]
		if t.k == kPunct {
			switch t.s {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					if close != "" && t.s == close {
						j++
					}
					goto done
				}
				depth--
			case ",":
				if depth == 0 {
					out = append(out, cur)
					cur = nil
					continue
				}
			case ";", "\n", "||", "&&", "|":
				if close == "" && depth == 0 {
					goto done
				}
			}
		}
		if close == "" && depth == 0 && t.k == kIdent && (t.s == "or" || t.s == "and" || t.s == "if" || t.s == "unless" || t.s == "do") {
			goto done
		}
		if t.k == kPunct && t.s == "\n" {
			continue
		}
		cur = append(cur, t)
	}
done:
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out, j
}

// keyword reports a keyword argument or an options object, which is not part of the command: Python's
// name=value and **kw, Ruby's key: value, a JavaScript or Ruby hash literal, PHP's named arguments.
func (c *calls) keyword(a []token) bool {
	if len(a) == 0 {
		return true
	}
	if len(a) >= 2 && a[0].k == kIdent && a[1].k == kPunct && (a[1].s == "=" || a[1].s == ":") {
		return true
	}
	if a[0].k == kPunct && (a[0].s == "**" || a[0].s == "{" && c.lang != Lua) {
		return true
	}
	return false
}

// value is an argument's value: a string (known or not), or a list.
type value struct {
	isList bool
	s      string
	dyn    bool
	list   []Arg
}

func (v value) known() bool { return !v.isList && !v.dyn }

// str evaluates an argument as a string: literals joined by the language's concatenation; anything else
// is only known at run time.
func (c *calls) str(a []token) value {
	a = trimParens(a)
	if len(a) == 0 {
		return value{dyn: true}
	}
	var b strings.Builder
	dyn := false
	wantOperand := true
	for _, t := range a {
		switch {
		case t.k == kStr && (wantOperand || c.tab.juxtapose):
			b.WriteString(t.s)
			dyn = dyn || t.dyn
			wantOperand = false
		case t.k == kPunct && !wantOperand && containsStr(c.tab.concat, t.s):
			wantOperand = true
		case t.k == kPunct && t.s == ":" && c.lang == Ruby && wantOperand: // :symbol
		case t.k == kIdent && c.lang == Ruby && b.Len() == 0 && wantOperand:
			b.WriteString(":" + t.s) // a symbol's name (send(:system, ...))
			wantOperand = false
		default:
			return value{dyn: true}
		}
	}
	if wantOperand {
		return value{dyn: true}
	}
	return value{s: b.String(), dyn: dyn}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func trimParens(a []token) []token {
	for len(a) >= 2 && a[0].k == kPunct && a[0].s == "(" && a[len(a)-1].k == kPunct && a[len(a)-1].s == ")" {
		a = a[1 : len(a)-1]
	}
	return a
}

// eval evaluates an argument as a string or a list literal ([...], (...,), qw//, %w//, array(...), {...}
// in Lua).
func (c *calls) eval(a []token) value {
	if len(a) == 1 && a[0].k == kWords {
		var out []Arg
		for _, w := range strings.Fields(a[0].s) {
			out = append(out, Arg{Val: w})
		}
		return value{isList: true, list: out}
	}
	open, close := "", ""
	switch {
	case len(a) >= 2 && a[0].k == kPunct && a[0].s == "[":
		open, close = "[", "]"
	case len(a) >= 2 && a[0].k == kPunct && a[0].s == "(" && c.lang == Python:
		open, close = "(", ")"
	case len(a) >= 2 && a[0].k == kPunct && a[0].s == "{" && c.lang == Lua:
		open, close = "{", "}"
	case len(a) >= 3 && a[0].k == kIdent && a[0].s == "array" && c.lang == PHP && a[1].s == "(":
		a = a[1:]
		open, close = "(", ")"
	}
	if open == "" || a[len(a)-1].k != kPunct || a[len(a)-1].s != close {
		if c.lang == Python && len(a) >= 2 && a[0].k == kPunct && a[0].s == "*" {
			return value{isList: true, list: []Arg{{Dyn: true}}} // *args
		}
		return c.str(a)
	}
	sub := &calls{s: c.s, lang: c.lang, src: c.src, toks: a[1:], depth: c.depth, tab: c.tab}
	elems, _ := sub.args(0, close)
	if open == "(" && len(elems) == 1 && !c.hasTopComma(a) {
		return c.str(a) // a parenthesized string, not a tuple
	}
	var out []Arg
	for _, e := range elems {
		if c.lang == Lua && len(e) >= 2 && e[1].k == kPunct && e[1].s == "=" {
			continue // a named field
		}
		v := c.str(e)
		out = append(out, Arg{Val: v.s, Dyn: v.dyn})
	}
	return value{isList: true, list: out}
}

func (c *calls) hasTopComma(a []token) bool {
	depth := 0
	for _, t := range a[1 : len(a)-1] {
		if t.k != kPunct {
			continue
		}
		switch t.s {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ",":
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

// apply reads the positional arguments of a call of sink sk.
func (c *calls) apply(sk sink, pos [][]token, text string) {
	if sk.skip <= len(pos) {
		pos = pos[sk.skip:]
	} else {
		pos = nil
	}
	if len(pos) == 0 {
		return
	}
	switch sk.mode {
	case first:
		c.addValue(c.eval(pos[0]), text)
	case list:
		if len(pos) == 1 {
			c.addValue(c.eval(pos[0]), text)
			return
		}
		c.addArgv(c.flatten(pos, false), text)
	case execArgs:
		c.addArgv(c.flatten(pos, sk.argv0), text)
	case open:
		for k, a := range pos {
			v := c.str(a)
			t := strings.TrimSpace(v.s)
			switch {
			case !v.dyn && (t == "-|" || t == "|-"):
				c.addArgv(c.flatten(pos[k+1:], false), text)
				return
			case strings.HasPrefix(t, "|"):
				c.s.add(shellRun(strings.TrimSpace(t[1:]), v.dyn, text))
				return
			case strings.HasSuffix(t, "|"):
				c.s.add(shellRun(strings.TrimSpace(strings.TrimSuffix(t, "|")), v.dyn, text))
				return
			}
		}
	}
}

func (c *calls) addValue(v value, text string) {
	if v.isList {
		c.addArgv(v.list, text)
		return
	}
	c.s.add(shellRun(v.s, v.dyn, text))
}

func (c *calls) addArgv(argv []Arg, text string) {
	if r, ok := argvRun(argv, text); ok {
		c.s.add(r)
	}
}

// flatten turns positional arguments into one argument vector: strings are arguments, lists are spread
// (without their first element after the program when argv0 is set), anything else is dynamic.
func (c *calls) flatten(pos [][]token, argv0 bool) []Arg {
	var out []Arg
	for k, a := range pos {
		v := c.eval(a)
		switch {
		case v.isList:
			l := v.list
			if argv0 && k > 0 && len(l) > 0 {
				l = l[1:]
			}
			out = append(out, l...)
		case argv0 && k == 1 && len(out) == 1:
			// exec*l / spawn*l: the argument after the program is argv[0].
		default:
			out = append(out, Arg{Val: v.s, Dyn: v.dyn})
		}
	}
	return out
}
