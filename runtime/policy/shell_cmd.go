package policy

import (
	"path"
	"strconv"
	"strings"

	"github.com/agentbash/agentbash/runtime/policy/shellexpand"
	"github.com/agentbash/agentbash/runtime/policy/shellsyntax"
	"github.com/agentbash/agentbash/spec"
	"mvdan.cc/sh/v3/syntax"
)

// callCtx is the statement a command line belongs to.
type callCtx struct {
	stmt *syntax.Stmt
	call *syntax.CallExpr
	prod []*syntax.Stmt // the earlier stages of the statement's pipeline
}

func (sc *scope) segment(cc *callCtx) string {
	if cc.call != nil {
		return sc.Text(cc.call)
	}
	return sc.Text(cc.stmt)
}

// stmt checks one statement: its redirections and, for a simple command, every command line it can be.
func (sc *scope) stmt(si shellsyntax.StmtInfo) {
	st := si.Stmt
	call, _ := st.Cmd.(*syntax.CallExpr)
	var argvs [][]shellexpand.Field
	var one [1][]shellexpand.Field
	if call != nil && len(call.Args) > 0 {
		argv, alts := sc.WordsInto(sc.argvBuf[:0], call.Args)
		if alts == nil {
			sc.argvBuf = argv // keep the grown buffer for the next statement
			one[0] = argv
			alts = one[:]
		}
		argvs = alts
	}
	sc.redirects(st, argvs)
	cc := &callCtx{stmt: st, call: call, prod: si.Prod}
	for _, argv := range argvs {
		if sc.a.found != nil {
			return
		}
		sc.argv(argv, cc)
	}
}

func isOutput(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.DplOut:
		return true
	}
	return false
}

// redirects applies the rules on output redirection targets.
func (sc *scope) redirects(st *syntax.Stmt, argvs [][]shellexpand.Field) {
	if len(st.Redirs) == 0 {
		return
	}
	var nbuf [4]string
	names := nbuf[:0]
	for _, argv := range argvs {
		if len(argv) > 0 {
			if ns, ok := sc.commandNames(argv[0], names); ok {
				names = ns
			}
		}
	}
	for _, r := range st.Redirs {
		if !isOutput(r.Op) || r.Word == nil {
			continue
		}
		for _, alt := range sc.Word(r.Word, shellexpand.MaxAlts) {
			for _, f := range alt {
				if f.Dyn {
					continue
				}
				for _, rule := range sc.a.e.rules {
					if len(rule.redirects) == 0 || (len(rule.cmds) > 0 && !rule.anyName(names)) {
						continue
					}
					for _, re := range rule.redirects {
						if re.MatchString(f.Val) {
							sc.a.find(finding{rule: rule.name, reason: rule.reason, name: f.Val, segment: sc.Text(st)})
							return
						}
					}
				}
			}
		}
	}
}

func (r *shellRule) anyName(names []string) bool {
	for _, n := range names {
		if r.matchName(n) {
			return true
		}
	}
	return false
}

func (r *shellRule) matchName(name string) bool {
	for _, c := range r.cmds {
		if (c.re == nil && c.lit == name) || (c.re != nil && strings.HasPrefix(name, c.lit) && c.re.MatchString(name)) {
			return true
		}
	}
	return false
}

// commandNames reduces a command word to the names it can run: the last path element of its known text;
// for a name with pattern characters, every rule or wrapper name the pattern can expand to. ok is false
// when the name is only known at run time.
func (sc *scope) commandNames(head shellexpand.Field, buf []string) ([]string, bool) {
	if head.Dyn {
		// "$VENV/bin/python": the directory is dynamic, the name is not.
		suf := head.Suffix()
		i := strings.LastIndexByte(suf, '/')
		if i < 0 || i == len(suf)-1 || head.Glob {
			return nil, false
		}
		return append(buf, suf[i+1:]), true
	}
	v := head.Val
	name := v
	if i := strings.LastIndexByte(v, '/'); i >= 0 && i < len(v)-1 {
		name = v[i+1:]
	}
	if !head.Glob {
		return append(buf, name), true
	}
	pat := head.Pattern()
	if i := strings.LastIndexByte(pat, '/'); i >= 0 && i < len(pat)-1 {
		pat = pat[i+1:]
	}
	re, ok := shellexpand.GlobRegexp(pat)
	if !ok {
		return append(buf, name), true
	}
	out := buf
	for _, n := range sc.a.e.names {
		if re.MatchString(n) {
			out = append(out, n)
		}
	}
	if len(out) == len(buf) {
		return append(buf, name), true
	}
	return out, true
}

// argv checks one command line: the rules, then what it runs (wrappers, shells, scripts).
func (sc *scope) argv(args []shellexpand.Field, cc *callCtx) {
	if len(args) == 0 || sc.a.found != nil {
		return
	}
	e := sc.a.e
	head := args[0]
	var nbuf [2]string
	names, ok := sc.commandNames(head, nbuf[:0])
	if !ok {
		if sc.remoteIn(head.Substs()) {
			sc.a.find(finding{rule: "remote", reason: e.reasons.Remote, name: head.Src, segment: sc.segment(cc)})
		} else if e.dynDeny {
			sc.a.find(finding{rule: "dynamic", reason: e.reasons.Dynamic, name: head.Src, segment: sc.segment(cc)})
		}
		return
	}
	cache := &sc.a.args
	cache.reset()
	for _, name := range names {
		for _, i := range e.rulesFor(name) {
			if r := e.rules[i]; r.matchCall(name, args[1:], cache) {
				sc.a.find(finding{rule: r.name, reason: r.reason, name: name, segment: sc.segment(cc)})
				return
			}
		}
	}
	for _, name := range names {
		if e.remoteSink[name] {
			// An interpreter whose code the policy reads reads it from stdin only when no option or operand
			// gives it: its wrapper's code decides (curl ... | python3 -c 'import json' reads data).
			w := e.wrappers[name]
			sc.remoteSink(args, cc, w == nil || w.code == nil || !w.code.stdins)
		}
		if w := e.wrappers[name]; w != nil {
			sc.unwrap(w, args, cc)
		}
		if sc.a.found != nil {
			return
		}
	}
}

// rulesFor lists, in rule order, the command rules that can apply to name.
func (e *shellEngine) rulesFor(name string) []int {
	lit := e.byName[name]
	if len(e.patRules) == 0 {
		return lit
	}
	var out []int
	i := 0
	for _, j := range e.patRules {
		if !e.rules[j].matchName(name) {
			continue
		}
		for i < len(lit) && lit[i] < j {
			out = append(out, lit[i])
			i++
		}
		if i < len(lit) && lit[i] == j {
			i++
		}
		out = append(out, j)
	}
	if out == nil {
		return lit // no pattern rule applies: no copy
	}
	return append(out, lit[i:]...)
}

// remoteSink blocks an interpreter fed by a downloader (curl ... | python, python <(curl ...)); stdin
// says whether its standard input is the code.
func (sc *scope) remoteSink(args []shellexpand.Field, cc *callCtx, stdin bool) {
	for _, f := range args[1:] {
		if sc.remoteIn(f.Substs()) {
			sc.a.find(finding{rule: "remote", reason: sc.a.e.reasons.Remote, name: f.Src, segment: sc.segment(cc)})
			return
		}
	}
	if prod := cc.prod; stdin && len(prod) > 0 && sc.remoteIn(stmtNodes(prod)) {
		sc.a.find(finding{rule: "remote", reason: sc.a.e.reasons.Remote, segment: sc.pipeText(prod, cc)})
	}
}

func stmtNodes(sts []*syntax.Stmt) []syntax.Node {
	out := make([]syntax.Node, len(sts))
	for i, s := range sts {
		out[i] = s
	}
	return out
}

func (sc *scope) pipeText(prod []*syntax.Stmt, cc *callCtx) string {
	src := sc.Src()
	i, j := int(prod[0].Pos().Offset()), int(cc.stmt.End().Offset())
	if i < 0 || j > len(src) || i > j {
		return sc.segment(cc)
	}
	return src[i:j]
}

// remoteIn reports a downloader among the commands of nodes (substitutions, pipeline stages).
func (sc *scope) remoteIn(nodes []syntax.Node) bool {
	if len(sc.a.e.remoteSrc) == 0 || len(nodes) == 0 {
		return false
	}
	found := false
	for _, n := range nodes {
		syntax.Walk(n, func(m syntax.Node) bool {
			call, ok := m.(*syntax.CallExpr)
			if !ok || found {
				return !found
			}
			for _, argv := range sc.Words(call.Args) {
				for _, f := range argv {
					if f.Dyn {
						continue
					}
					if sc.a.e.remoteSrc[path.Base(f.Val)] {
						found = true
					}
				}
			}
			return !found
		})
	}
	return found
}

// unwrap follows what a wrapper runs.
func (sc *scope) unwrap(w *wrapper, args []shellexpand.Field, cc *callCtx) {
	rest := args[1:]
	if len(w.execOpts) > 0 {
		sc.execOptions(w, rest, cc)
	}
	switch w.runs {
	case spec.RunsCommand:
		sc.unwrapCommand(w, rest, cc)
	case spec.RunsScript, spec.RunsFirstScript:
		ops, ok := sc.wrapperOperands(w, rest, cc)
		if !ok || len(ops) == 0 {
			return
		}
		if len(w.inputSeps) > 0 {
			sc.perInput(w, ops, cc)
			return
		}
		if w.runs == spec.RunsFirstScript {
			ops = ops[:1]
		}
		joined := shellexpand.Literal("")
		for i, f := range ops {
			if i > 0 {
				joined.Val += " "
			}
			joined.Val += f.Val
			joined.Dyn = joined.Dyn || f.Dyn
			if subs := f.Substs(); len(subs) > 0 {
				joined.Ext().Subst = append(joined.Ext().Subst, subs...)
			}
		}
		joined.Src = ops[0].Src
		sc.scriptField(joined, cc, sc.Vars())
	case spec.RunsAlias:
		ops, _ := sc.wrapperOperands(w, rest, cc)
		for _, f := range ops {
			if _, val, ok := strings.Cut(f.Val, "="); ok {
				v := shellexpand.Literal(val)
				v.Dyn, v.Src = f.Dyn, f.Src
				if f.X != nil {
					x := *f.X
					x.Suf, x.Pre = "", ""
					v.X = &x
				}
				sc.scriptField(v, cc, sc.Vars())
			}
		}
	case spec.RunsSource:
		ops, _ := sc.wrapperOperands(w, rest, cc)
		if len(ops) > 0 {
			sc.scriptFile(ops[0], cc, reader{})
		}
	case spec.RunsShell:
		sc.shell(w, rest, cc)
	case spec.RunsStdin:
		if _, ok := sc.wrapperOperands(w, rest, cc); ok {
			sc.stdin(cc, 0, reader{})
		}
	case spec.RunsNone:
		sc.none(w, rest, cc)
	}
}

// optState is what a wrapper's options said: the replacement string (xargs -I R), and whether an option
// gave the code a program runs (python -c) or a file that holds it (awk -f).
type optState struct {
	repl       string
	code, file bool
}

// option handles one option token of a wrapper; it returns how many extra tokens it consumed, and false
// when the wrapper runs nothing (a no-exec option). What the options say is stored in st (when not nil).
func (sc *scope) option(w *wrapper, rest []shellexpand.Field, i int, cc *callCtx, st *optState) (int, bool) {
	v := rest[i].Val
	// handle acts on an option's value (has is false when an optional value is absent).
	handle := func(opt string, f shellexpand.Field, has bool) {
		switch {
		case w.splitOpts[opt], w.scriptOpts[opt]:
			sc.scriptField(f, cc, sc.Vars())
		case w.replaceOpts[opt] && st != nil:
			switch {
			case !has:
				st.repl = "{}"
			case f.Dyn || f.Val == "":
				st.repl = unknownRepl
			default:
				st.repl = f.Val
			}
		case w.optCmds[opt] != nil:
			for _, oc := range w.optCmds[opt] {
				sc.optionCommand(oc, f, cc)
			}
		case w.code != nil && w.code.opts[opt]:
			if st != nil {
				st.code = true
			}
			sc.runCode(w.code.lang, f, cc)
		case w.code != nil && w.code.fileOpts[opt]:
			if st != nil {
				st.file = true
			}
		}
	}
	// value is a required value: attached (inline), else the next argument.
	value := func(opt, inline string, attached bool) int {
		if attached {
			handle(opt, shellexpand.Literal(inline), true)
			return 0
		}
		if i+1 < len(rest) {
			handle(opt, rest[i+1], true)
			return 1
		}
		return 0
	}
	required := func(opt string) bool {
		return w.valueOpts[opt] || w.splitOpts[opt] || w.scriptOpts[opt] || w.optCmds[opt] != nil ||
			w.code != nil && (w.code.opts[opt] || w.code.fileOpts[opt])
	}
	if strings.HasPrefix(v, "--") {
		name, inline, has := strings.Cut(v, "=")
		switch {
		case w.noExecOpts[name]:
			return 0, false
		case required(name):
			return value(name, inline, has), true
		case w.optOpts[name]:
			handle(name, shellexpand.Literal(inline), has)
		}
		return 0, true
	}
	if w.noExecOpts[v] {
		return 0, false
	}
	if required(v) { // -word options (find style) and -x
		return value(v, "", false), true
	}
	for k := 1; k < len(v); k++ {
		o := "-" + v[k:k+1]
		switch {
		case w.noExecOpts[o]:
			return 0, false
		case required(o):
			return value(o, v[k+1:], k+1 < len(v)), true
		case w.optOpts[o]:
			handle(o, shellexpand.Literal(v[k+1:]), k+1 < len(v))
			return 0, true
		}
	}
	return 0, true
}

// unknownRepl stands for a replacement string only known at run time.
const unknownRepl = "\x00"

// wrapperOperands skips a wrapper's options; ok is false when it runs nothing.
func (sc *scope) wrapperOperands(w *wrapper, rest []shellexpand.Field, cc *callCtx) ([]shellexpand.Field, bool) {
	for i := 0; i < len(rest); i++ {
		t := rest[i]
		if t.Dyn {
			return rest[i:], true
		}
		if t.Val == "--" {
			return rest[i+1:], true
		}
		if len(t.Val) > 1 && t.Val[0] == '-' {
			n, ok := sc.option(w, rest, i, cc, nil)
			if !ok {
				return nil, false
			}
			i += n
			continue
		}
		return rest[i:], true
	}
	return nil, true
}

func (sc *scope) unwrapCommand(w *wrapper, rest []shellexpand.Field, cc *callCtx) {
	pos := w.positionals
	i := 0
	var st optState
loop:
	for i < len(rest) {
		t := rest[i]
		switch {
		case t.Dyn:
			break loop
		case t.Val == "--":
			i++
			break loop
		case len(t.Val) > 1 && t.Val[0] == '-':
			n, ok := sc.option(w, rest, i, cc, &st)
			if !ok || sc.a.found != nil {
				return
			}
			i += n + 1
		case w.assignments && isAssignment(t.Val):
			i++
		case pos > 0:
			pos--
			i++
		default:
			break loop
		}
	}
	inner := rest[i:]
	if len(inner) == 0 {
		return
	}
	switch {
	case st.repl != "":
		inner = replaced(inner, st.repl)
	case w.appends:
		extra := shellexpand.Field{Dyn: true, Src: "(operands read at run time)"}
		inner = append(append([]shellexpand.Field(nil), inner...), extra)
	}
	sc.argv(inner, cc)
}

// replaced is a command line whose arguments containing repl get text read at run time in its place
// (xargs -I): each such argument becomes dynamic, keeping the known text before and after.
func replaced(args []shellexpand.Field, repl string) []shellexpand.Field {
	out := make([]shellexpand.Field, len(args))
	for k, f := range args {
		out[k] = f
		if repl == unknownRepl {
			out[k] = shellexpand.Field{Dyn: true, Src: f.Src}
			continue
		}
		if f.Dyn || !strings.Contains(f.Val, repl) {
			continue
		}
		i, j := strings.Index(f.Val, repl), strings.LastIndex(f.Val, repl)+len(repl)
		out[k] = shellexpand.Field{Val: strings.ReplaceAll(f.Val, repl, ""), Src: f.Src, Dyn: true,
			X: &shellexpand.FieldX{Pre: f.Val[:i], Suf: f.Val[j:], Subst: f.Substs()}}
	}
	return out
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && syntax.ValidName(name)
}

// execOptions checks the commands embedded after find's -exec style options, up to ";" or "+"; "{}"
// becomes each starting point (the shallowest path find hands over).
func (sc *scope) execOptions(w *wrapper, rest []shellexpand.Field, cc *callCtx) {
	var starts []string
	for _, f := range rest {
		if f.Dyn || strings.HasPrefix(f.Val, "-") || f.Val == "(" || f.Val == "!" {
			break
		}
		starts = append(starts, f.Val)
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	for i := 0; i < len(rest); i++ {
		if rest[i].Dyn || !w.execOpts[rest[i].Val] {
			continue
		}
		j := i + 1
		for j < len(rest) && !(rest[j].Val == ";" || rest[j].Val == "+") {
			j++
		}
		for _, start := range starts {
			emb := make([]shellexpand.Field, 0, j-i-1)
			for _, f := range rest[i+1 : j] {
				if !f.Dyn && strings.Contains(f.Val, "{}") {
					g := shellexpand.Literal(strings.ReplaceAll(f.Val, "{}", start))
					g.Src = f.Src
					f = g
				}
				emb = append(emb, f)
			}
			sc.argv(emb, cc)
			if sc.a.found != nil {
				return
			}
		}
		i = j
	}
}

// shell follows a shell: -c SCRIPT, a script file, or a script read from standard input.
func (sc *scope) shell(w *wrapper, rest []shellexpand.Field, cc *callCtx) {
	hasC, stdin := false, false
	i := 0
loop:
	for i < len(rest) {
		t := rest[i]
		v := t.Val
		switch {
		case t.Dyn:
			break loop
		case v == "-":
			i++
			stdin = true // the script is read from standard input, the operands are its arguments
			break loop
		case v == "--":
			i++
			break loop
		case strings.HasPrefix(v, "--"):
			name, _, has := strings.Cut(v, "=")
			if w.valueOpts[name] && !has {
				i++
			}
			i++
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			for k := 1; k < len(v); k++ {
				c := v[k]
				if v[0] == '-' && c == 'c' {
					hasC = true
					continue
				}
				if v[0] == '-' && c == 's' {
					stdin = true
				}
				if w.valueOpts[string(v[0])+string(c)] {
					if k == len(v)-1 {
						i++
					}
					break
				}
			}
			i++
		default:
			break loop
		}
	}
	ops := rest[i:]
	switch {
	case hasC:
		if len(ops) > 0 {
			sc.scriptField(ops[0], cc, sc.Vars())
		}
	case len(ops) > 0 && !stdin:
		sc.scriptFile(ops[0], cc, reader{})
	default:
		sc.stdin(cc, 0, reader{})
	}
}

// scriptField checks shell source given as an argument.
func (sc *scope) scriptField(f shellexpand.Field, cc *callCtx, vars *shellexpand.Vars) {
	if sc.a.found != nil {
		return
	}
	if f.Dyn {
		sc.dynScript(f, cc)
		return
	}
	sc.a.script(f.Val, sc.depth+1, vars)
}

func (sc *scope) dynScript(f shellexpand.Field, cc *callCtx) {
	e := sc.a.e
	switch {
	case sc.remoteIn(f.Substs()):
		sc.a.find(finding{rule: "remote", reason: e.reasons.Remote, name: f.Src, segment: sc.segment(cc)})
	case e.dynDeny:
		sc.a.find(finding{rule: "dynamic", reason: e.reasons.Dynamic, name: f.Src, segment: sc.segment(cc)})
	default:
		// Check what is known of the script.
		sc.a.script(f.Val, sc.depth+1, sc.Vars())
	}
}

// scriptFile follows a script file operand: a process substitution is a script made by its commands;
// /dev/stdin, /dev/fd/N and /proc/self/fd/N are what is on that descriptor; a file on disk is not known
// here and is allowed.
func (sc *scope) scriptFile(f shellexpand.Field, cc *callCtx, rd reader) {
	switch {
	case f.ProcSubst() != nil:
		sc.producedScript(f.ProcSubst().Stmts, f.Src, cc, false, rd)
	case !f.Dyn && descriptorPath(f.Val) >= 0:
		if sc.a.hops < maxHops { // < /dev/stdin on /dev/stdin ... goes round
			sc.a.hops++
			sc.stdin(cc, descriptorPath(f.Val), rd)
			sc.a.hops--
		}
	case f.Dyn && sc.remoteIn(f.Substs()):
		sc.a.find(finding{rule: "remote", reason: sc.a.e.reasons.Remote, name: f.Src, segment: sc.segment(cc)})
	}
}

// maxHops bounds how many descriptors a script read from a descriptor is followed through.
const maxHops = 4

// descriptorPath is the file descriptor a path names (/dev/stdin, /dev/fd/N, /proc/self/fd/N), or -1.
func descriptorPath(p string) int {
	p = path.Clean(p)
	if p == "/dev/stdin" {
		return 0
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if n, ok := strings.CutPrefix(p, dir); ok {
			if fd, err := strconv.Atoi(n); err == nil && fd >= 0 && fd < 1<<16 {
				return fd
			}
		}
	}
	return -1
}

// producedScript checks a script that is the output of stmts (a pipeline's earlier stages, or a process
// substitution): a downloader is a remote script; a constant echo or printf is read as the script (or the
// code); anything else is dynamic.
func (sc *scope) producedScript(stmts []*syntax.Stmt, name string, cc *callCtx, piped bool, rd reader) {
	e := sc.a.e
	segment := sc.segment(cc)
	if piped {
		segment = sc.pipeText(stmts, cc)
	}
	if sc.remoteIn(stmtNodes(stmts)) {
		sc.a.find(finding{rule: "remote", reason: e.reasons.Remote, name: name, segment: segment})
		return
	}
	if len(stmts) >= 1 {
		if outs, ok := sc.StaticOutput(stmts[len(stmts)-1]); ok {
			for _, o := range outs {
				sc.read(rd, shellexpand.Literal(o), cc)
			}
			return
		}
	}
	if e.dynDeny {
		sc.a.find(finding{rule: "dynamic", reason: e.reasons.Dynamic, name: name, segment: segment})
	}
}

// stdin checks what a program reads from file descriptor fd (0: standard input) as a script or code: the
// last here-string, here-document or redirected file for that descriptor, else, for standard input, the
// earlier stages of its pipeline.
func (sc *scope) stdin(cc *callCtx, fd int, rd reader) {
	var last *syntax.Redirect
	for _, r := range cc.stmt.Redirs {
		if n, ok := redirectFd(r); ok && n == fd {
			last = r
		}
	}
	if last != nil {
		switch last.Op {
		case syntax.WordHdoc:
			for _, f := range sc.Doc(last.Word, shellexpand.MaxAlts) {
				sc.read(rd, f, cc)
			}
		case syntax.Hdoc, syntax.DashHdoc:
			for _, f := range sc.HereDoc(last.Hdoc, shellexpand.MaxAlts) {
				sc.read(rd, f, cc)
			}
		case syntax.RdrIn, syntax.RdrInOut:
			fs := sc.Word(last.Word, 1)
			if len(fs) > 0 && len(fs[0]) > 0 {
				sc.scriptFile(fs[0][0], cc, rd)
			}
		}
		return
	}
	if prod := cc.prod; fd == 0 && len(prod) > 0 {
		sc.producedScript(prod, "", cc, true, rd)
	}
}

// redirectFd is the descriptor an input redirection opens (its number, else 0); ok is false for output.
func redirectFd(r *syntax.Redirect) (int, bool) {
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
	default:
		return 0, false
	}
	if r.N == nil {
		return 0, true
	}
	n, err := strconv.Atoi(r.N.Value)
	return n, err == nil
}
