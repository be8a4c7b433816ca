package policy

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/agentbash/agentbash/runtime/policy/inlinecode"
	"github.com/agentbash/agentbash/runtime/policy/shellexpand"
	"github.com/agentbash/agentbash/spec"
)

// Programs that run a command given to them as data: options whose value is a command (option commands),
// inline code in another language (inlinecode), and commands run once per input (parallel).

// optCommand is a compiled spec.ShellOptionCommand.
type optCommand struct {
	keys        []*regexp.Regexp // nil: the value itself holds the command
	prefix      string
	subcommands map[string]bool
}

func (oc *optCommand) matchKey(key string) bool {
	key = strings.ToLower(key)
	for _, re := range oc.keys {
		if re.MatchString(key) {
			return true
		}
	}
	return false
}

// codeSpec is a compiled spec.ShellCode.
type codeSpec struct {
	lang                  inlinecode.Language
	opts, fileOpts        map[string]bool
	operand, plus, stdins bool
}

// fieldError is a compile error at a field of a wrapper.
type fieldError struct {
	field string
	err   error
}

// compileReach compiles a checked wrapper's option commands, code and input separators.
func compileReach(cw *wrapper, w spec.ShellWrapper, field string) *fieldError {
	for i, oc := range w.OptionCommands {
		c := &optCommand{prefix: oc.Prefix, subcommands: set(oc.Subcommands)}
		for _, k := range oc.Keys {
			re, ok := shellexpand.GlobRegexp(strings.ToLower(k))
			if !ok {
				return &fieldError{fmt.Sprintf("%s.option_commands[%d].keys", field, i), fmt.Errorf("key pattern %q does not compile", k)}
			}
			c.keys = append(c.keys, re)
		}
		if cw.optCmds == nil {
			cw.optCmds = map[string][]*optCommand{}
		}
		for _, o := range oc.Options {
			cw.optCmds[o] = append(cw.optCmds[o], c)
		}
		if len(oc.Subcommands) > 0 {
			cw.subCmds = append(cw.subCmds, c)
		}
	}
	if c := w.Code; c != nil {
		cw.code = &codeSpec{lang: inlinecode.Language(c.Language), opts: set(c.Options), fileOpts: set(c.FileOptions),
			operand: c.Operand, plus: c.PlusOperands, stdins: c.Stdin}
	}
	if len(w.InputSeparators) > 0 {
		cw.inputSeps = set(w.InputSeparators)
	}
	cw.readsOptions = cw.runs == spec.RunsNone && (len(cw.scriptOpts)+len(cw.splitOpts)+len(cw.optCmds) > 0 || cw.code != nil)
	return nil
}

// reader is what a program does with text it is given or reads: a shell runs it as a script (lang ""),
// an interpreter as code in its language.
type reader struct {
	lang inlinecode.Language
}

func (sc *scope) read(rd reader, f shellexpand.Field, cc *callCtx) {
	if rd.lang == "" {
		sc.scriptField(f, cc, sc.Vars())
		return
	}
	sc.runCode(rd.lang, f, cc)
}

// none follows a wrapper that runs none of its operands as a command: every option before `--` (script,
// split, code and option-command options, anywhere among the operands, as GNU programs read them), then
// the code in its operands or on its standard input, and the KEY VALUE operands of its option commands'
// subcommands.
func (sc *scope) none(w *wrapper, rest []shellexpand.Field, cc *callCtx) {
	if !w.readsOptions {
		return
	}
	var st optState
	var buf [8]shellexpand.Field
	ops := buf[:0]
	for i := 0; i < len(rest) && sc.a.found == nil; i++ {
		t := rest[i]
		switch {
		case t.Dyn || len(t.Val) < 2 || t.Val[0] != '-':
			ops = append(ops, t)
		case t.Val == "--":
			ops = append(ops, rest[i+1:]...)
			i = len(rest)
		default:
			n, ok := sc.option(w, rest, i, cc, &st)
			if !ok {
				return
			}
			i += n
		}
	}
	if sc.a.found != nil {
		return
	}
	if c := w.code; c != nil {
		given := st.code || st.file
		switch {
		case c.operand && !given && len(ops) > 0:
			sc.runCode(c.lang, ops[0], cc)
			ops = ops[1:]
		case c.stdins && !given && len(ops) == 0:
			sc.stdin(cc, 0, reader{c.lang})
		case c.stdins && !given:
			if !ops[0].Dyn && ops[0].Val == "-" {
				sc.stdin(cc, 0, reader{c.lang})
			} else {
				sc.scriptFile(ops[0], cc, reader{c.lang})
			}
		}
		if c.plus {
			for _, op := range ops {
				if !op.Dyn && strings.HasPrefix(op.Val, "+") {
					sc.runCode(c.lang, shellexpand.Literal(op.Val[1:]), cc)
				}
			}
		}
	}
	for _, oc := range w.subCmds {
		if len(ops) == 0 || ops[0].Dyn || !oc.subcommands[ops[0].Val] {
			continue
		}
		for j := 1; j+1 < len(ops); j++ {
			if ops[j].Dyn || oc.matchKey(ops[j].Val) {
				v := ops[j+1]
				if ops[j].Dyn {
					v.Dyn = true
				}
				sc.commandValue(oc, v, cc)
				j++
			}
		}
	}
}

// optionCommand checks the command in an option's value: KEY=VALUE (or KEY VALUE) with a key that holds a
// command, or the value itself.
func (sc *scope) optionCommand(oc *optCommand, f shellexpand.Field, cc *callCtx) {
	if oc.keys == nil {
		sc.commandValue(oc, f, cc)
		return
	}
	known := f.Prefix()
	i := strings.IndexAny(known, "= \t")
	if i < 0 {
		if f.Dyn { // the key is only known at run time
			sc.dynamic(f.Src, cc)
		}
		return // a boolean key
	}
	if !oc.matchKey(known[:i]) {
		return
	}
	if f.Dyn {
		sc.dynamic(f.Src, cc)
		return
	}
	v := shellexpand.Literal(strings.TrimLeft(f.Val[i:], "= \t"))
	v.Src = f.Src
	sc.commandValue(oc, v, cc)
}

// commandValue checks a command value, after the option command's prefix (a value without it runs nothing).
func (sc *scope) commandValue(oc *optCommand, f shellexpand.Field, cc *callCtx) {
	if oc.prefix != "" {
		known := f.Prefix()
		switch {
		case strings.HasPrefix(known, oc.prefix) && !f.Dyn:
			v := shellexpand.Literal(f.Val[len(oc.prefix):])
			v.Src = f.Src
			f = v
		case strings.HasPrefix(known, oc.prefix) || f.Dyn && strings.HasPrefix(oc.prefix, known):
			sc.dynamic(f.Src, cc) // the prefix is there, or may be, and the command is not known
			return
		default:
			return
		}
	}
	sc.scriptField(f, cc, sc.Vars())
}

// dynamic reports a command or script only known at run time (under dynamic: deny).
func (sc *scope) dynamic(name string, cc *callCtx) {
	if e := sc.a.e; e.dynDeny {
		sc.a.find(finding{rule: "dynamic", reason: e.reasons.Dynamic, name: name, segment: sc.segment(cc)})
	}
}

// runCode checks the commands that code in lang runs (inlinecode.Scan): shell source is a nested script,
// an argument vector a command line, a command built at run time dynamic.
func (sc *scope) runCode(lang inlinecode.Language, f shellexpand.Field, cc *callCtx) {
	a, e := sc.a, sc.a.e
	if a.found != nil {
		return
	}
	if f.Dyn {
		switch {
		case sc.remoteIn(f.Substs()):
			a.find(finding{rule: "remote", reason: e.reasons.Remote, name: f.Src, segment: sc.segment(cc)})
			return
		case e.dynDeny:
			a.find(finding{rule: "dynamic", reason: e.reasons.Dynamic, name: f.Src, segment: sc.segment(cc)})
			return
		}
	}
	if sc.depth+a.code >= e.maxDepth {
		a.find(finding{rule: "too_deep", reason: e.reasons.TooDeep, segment: f.Val})
		return
	}
	a.code++
	defer func() { a.code-- }()
	for _, r := range a.inline.Scan(lang, f.Val) {
		if a.found != nil {
			return
		}
		switch {
		case r.Dynamic:
			sc.dynamic(r.Code, cc)
		case r.Argv != nil:
			args := make([]shellexpand.Field, len(r.Argv))
			for i, x := range r.Argv {
				args[i] = shellexpand.Literal(x.Val)
				if x.Dyn {
					args[i] = shellexpand.Field{Dyn: true, Src: r.Code}
				}
			}
			sc.argv(args, cc)
		default:
			a.script(r.Shell, sc.depth+1, sc.Vars())
		}
	}
}

// replacement finds GNU parallel's replacement strings: {}, {.}, {/}, {//}, {/.}, {#}, {%}, {1}, {2.} ...
var replacement = regexp.MustCompile(`\{[0-9]*(?:\.|/|//|/\.|#|%)?\}`)

// perInput follows a wrapper that runs its command once per input (parallel CMD ::: A B): the command words
// are shell source with each input put in place of the replacement strings (quoted, as parallel quotes
// it), or appended; inputs read at run time (no separator, or :::: files) are a variable only known then.
// Without a command, the inputs are the commands.
func (sc *scope) perInput(w *wrapper, ops []shellexpand.Field, cc *callCtx) {
	k := 0
	for k < len(ops) && (ops[k].Dyn || !w.inputSeps[ops[k].Val]) {
		k++
	}
	cmd := ops[:k]
	var inputs []shellexpand.Field
	runtime := k == len(ops)
	for i := k; i < len(ops); i++ {
		switch {
		case !ops[i].Dyn && w.inputSeps[ops[i].Val]:
			if strings.HasPrefix(ops[i].Val, "::::") {
				runtime = true // inputs read from files
			}
		default:
			inputs = append(inputs, ops[i])
		}
	}
	if len(cmd) == 0 {
		for _, in := range inputs {
			sc.scriptField(in, cc, sc.Vars())
		}
		return
	}
	var b strings.Builder
	for i, f := range cmd {
		if f.Dyn {
			sc.dynScript(f, cc)
			return
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f.Val)
	}
	tmpl := b.String()
	with := func(v string) string {
		if replacement.MatchString(tmpl) {
			return replacement.ReplaceAllLiteralString(tmpl, v)
		}
		return tmpl + " " + v
	}
	if runtime {
		sc.a.script(with(`"${__input_read_at_run_time}"`), sc.depth+1, sc.Vars())
	}
	for _, in := range inputs {
		if sc.a.found != nil {
			return
		}
		if in.Dyn {
			sc.a.script(with(`"${__input_read_at_run_time}"`), sc.depth+1, sc.Vars())
			continue
		}
		sc.a.script(with(shellQuote(in.Val)), sc.depth+1, sc.Vars())
	}
}

// shellQuote quotes s for the shell as one word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
