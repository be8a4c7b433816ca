package shellexpand

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentbash/agentbash/runtime/policy/shellsyntax"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

const (
	// MaxAlts is how many alternatives are kept per word or variable: past it, the value is dynamic.
	MaxAlts      = 8
	maxArgvAlts  = 32 // alternatives kept per command line
	maxBraceWord = 64 // words one brace expansion may produce
	maxValueLen  = 4096
)

// Arena holds the bookkeeping of word expansions until its Reset, so that the common word (one state, one
// alternative) allocates nothing. The zero value is ready to use; an Arena is not safe for concurrent use,
// and the fields a Scope returned must not be used after their arena's Reset.
type Arena struct {
	states shellsyntax.Chunked[wstate]
	ones   shellsyntax.Chunked[[1]*wstate]
	outs   shellsyntax.Chunked[[1][]Field]
	fields shellsyntax.Chunked[[2]Field]
	xs     shellsyntax.Chunked[FieldX]
	nodes  shellsyntax.Chunked[[2]syntax.Node]
	lines  shellsyntax.Chunked[[8]Field] // command lines of echo and printf substitutions
	cfg    *expand.Config
}

// oneState is the starting states of a word: one empty state, with room for two fields.
func (ea *Arena) oneState() []*wstate {
	one := ea.ones.Alloc()
	st := ea.states.Alloc()
	fb := ea.fields.Alloc()
	st.fields = fb[:0:len(fb)]
	st.ar = ea
	one[0] = st
	return one[:]
}

// Reset makes the arena's memory available again.
func (ea *Arena) Reset() {
	ea.states.Reset()
	ea.ones.Reset()
	ea.outs.Reset()
	ea.fields.Reset()
	ea.xs.Reset()
	ea.nodes.Reset()
	ea.lines.Reset()
}

// wstate is one alternative of a word being expanded.
type wstate struct {
	fields []Field
	cur    Field
	open   bool // cur has started (a quoted empty string starts a field)
	ar     *Arena
}

func (s *wstate) clone() *wstate {
	c := &wstate{fields: append([]Field(nil), s.fields...), cur: s.cur, open: s.open, ar: s.ar}
	if s.cur.X != nil {
		x := s.ar.xs.Alloc()
		*x = *s.cur.X
		x.Subst = append([]syntax.Node(nil), x.Subst...)
		c.cur.X = x
	}
	return c
}

// ext is the current field's X, made (from the arena) when it is nil.
func (s *wstate) ext() *FieldX {
	if s.cur.X == nil {
		s.cur.X = s.ar.xs.Alloc()
	}
	return s.cur.X
}

func (s *wstate) lit(text string, quoted bool) {
	c := &s.cur
	if len(c.Val) > maxValueLen {
		return
	}
	if !quoted && !c.Glob && strings.ContainsAny(text, "*?[") {
		c.Glob = true
		x := s.ext()
		x.Pat = pattern.QuoteMeta(c.Val, 0)
		if c.Dyn {
			x.Pat = "*" // the dynamic parts so far
		}
	}
	if c.Glob {
		if quoted {
			c.X.Pat += pattern.QuoteMeta(text, 0)
		} else {
			c.X.Pat += text
		}
	}
	c.Val += text
	if c.Dyn {
		c.X.Suf += text
	}
	if quoted || text != "" {
		s.open = true
	}
}

// addSubst records a substitution that produced part of the current field.
func (s *wstate) addSubst(node syntax.Node) {
	s.addNode(s.ext(), node)
}

// addNode appends to x.Subst, whose first two nodes are held in the arena.
func (s *wstate) addNode(x *FieldX, node syntax.Node) {
	if x.Subst == nil {
		x.Subst = s.ar.nodes.Alloc()[:0]
	}
	x.Subst = append(x.Subst, node)
}

func (s *wstate) dynPart(node syntax.Node) {
	c := &s.cur
	x := s.ext()
	if !c.Dyn {
		x.Pre = c.Val
	}
	c.Dyn = true
	x.Suf = ""
	if c.Glob {
		x.Pat += "*"
	}
	s.open = true
	if node != nil {
		s.addNode(x, node)
	}
}

func (s *wstate) endField() {
	if s.open {
		s.fields = append(s.fields, s.cur)
	}
	s.cur = Field{}
	s.open = false
}

// splitLit appends the text of an unquoted expansion, splitting it into fields on IFS.
func (s *wstate) splitLit(text, ifs string) {
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if strings.IndexByte(ifs, c) < 0 {
			continue
		}
		s.lit(text[start:i], false)
		if c == ' ' || c == '\t' || c == '\n' {
			s.endField()
		} else {
			s.open = true
			s.endField()
		}
		start = i + 1
	}
	s.lit(text[start:], false)
}

// dynAlt is the one alternative of an expansion only known at run time. It is shared: nothing writes to
// its element, and appending to it copies it (its capacity is its length).
var dynAlt = []alt{{dyn: true}}

// alt is one possible value of an expansion.
type alt struct {
	val string
	dyn bool
	// multi marks "${a[@]}": val holds the elements separated by NUL, each its own field when quoted.
	multi bool
}

// wordCtx says how a word's parts are read.
type wordCtx struct {
	quoted  bool // inside double quotes or a here-document: no splitting, no globbing, "\" escapes only $`"\
	noSplit bool // assignment values and ${x:-word} words: no field splitting
}

// evaluator expands words against a scope's variables.
type evaluator struct {
	sc *Scope
}

// Words expands a command's words: each alternative of its argument list (several when a variable can have
// several values).
func (sc *Scope) Words(words []*syntax.Word) [][]Field { return sc.ev().words(words) }

// WordsInto is Words appending to buf: it returns the one command line, or nil and all the alternatives
// when there are several. A caller that checks one statement at a time can reuse buf.
func (sc *Scope) WordsInto(buf []Field, words []*syntax.Word) ([]Field, [][]Field) {
	return sc.ev().wordsInto(buf, words)
}

// Word expands one word into its alternatives (at most limit), each a list of fields.
func (sc *Scope) Word(w *syntax.Word, limit int) [][]Field { return sc.ev().word(w, limit) }

// Doc expands a word as one string, without field splitting or pathname expansion (a here-string, an
// assignment's value); each alternative is one field.
func (sc *Scope) Doc(w *syntax.Word, limit int) []Field { return sc.ev().doc(w, wordCtx{}, limit) }

// HereDoc expands the body of an unquoted here-document (as inside double quotes): each alternative is one
// field.
func (sc *Scope) HereDoc(w *syntax.Word, limit int) []Field {
	return sc.ev().doc(w, wordCtx{quoted: true}, limit)
}

// StaticOutput is the output of a statement that is a single echo or printf of constant words, one string
// per alternative; ok is false for any other statement.
func (sc *Scope) StaticOutput(st *syntax.Stmt) ([]string, bool) { return sc.ev().staticOutput(st) }

// words expands a command's words: the alternatives of its argument list.
func (ev evaluator) words(words []*syntax.Word) [][]Field {
	argv, alts := ev.wordsInto(make([]Field, 0, len(words)), words)
	if alts == nil {
		return [][]Field{argv}
	}
	return alts
}

// wordsInto is words appending to buf: it returns the one command line, or nil and all the alternatives
// when there are several.
func (ev evaluator) wordsInto(buf []Field, words []*syntax.Word) ([]Field, [][]Field) {
	argv := buf
	var alts [][]Field // nil while there is a single alternative (argv)
	for _, w := range words {
		if f, ok := ev.oneField(w); ok {
			if alts == nil {
				argv = append(argv, f)
			} else {
				for k := range alts {
					alts[k] = append(alts[k], f)
				}
			}
			continue
		}
		wa := ev.word(w, MaxAlts)
		if alts == nil && len(wa) == 1 {
			argv = append(argv, wa[0]...)
			continue
		}
		if alts == nil {
			alts = [][]Field{argv}
		}
		if len(alts)*len(wa) > maxArgvAlts {
			wa = ev.word(w, 1)
		}
		next := make([][]Field, 0, len(alts)*len(wa))
		for _, a := range alts {
			for _, fs := range wa {
				next = append(next, append(append(make([]Field, 0, len(a)+len(fs)+4), a...), fs...))
			}
		}
		alts = next
	}
	if alts == nil {
		return argv, nil
	}
	return nil, alts
}

// oneField is the fast path for a word that is one field known without expanding anything: a plain
// literal (no quotes, escapes, braces, patterns or expansions) or a quotedLit.
func (ev evaluator) oneField(w *syntax.Word) (Field, bool) {
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && l.Value != "" && plainText(l.Value) {
			return Field{Val: l.Value, Src: l.Value}, true
		}
	}
	if f, ok := quotedLit(w); ok {
		f.Src = ev.sc.Text(w)
		return f, true
	}
	return Field{}, false
}

// notPlain marks the bytes that make a literal more than its text: escapes, braces and pattern characters.
var notPlain = [256]bool{'\\': true, '{': true, '*': true, '?': true, '[': true}

// plainText reports a literal without escapes, braces or pattern characters.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if notPlain[s[i]] {
			return false
		}
	}
	return true
}

// config is the arena's empty configuration for mvdan.cc/sh/v3/expand: no variables, no command
// substitution. expand fills in a configuration in place on first use, so it is the arena's own (one
// goroutine's), made once: passing nil instead is not safe for concurrent use, expand then filling in a
// package-level configuration (a data race found by TestConcurrentChecks under -race, mvdan.cc/sh v3.14.1).
func (ev evaluator) config() *expand.Config {
	ar := ev.sc.arena
	if ar.cfg == nil {
		ar.cfg = &expand.Config{}
	}
	return ar.cfg
}

// word expands one word into its alternatives, each a list of fields.
func (ev evaluator) word(w *syntax.Word, limit int) [][]Field {
	src := ev.sc.Text(w)
	if f, ok := quotedLit(w); ok {
		f.Src = src
		return [][]Field{{f}}
	}
	states := ev.sc.arena.oneState()
	if braced := ev.braces(w); braced != nil {
		for _, ps := range braced {
			states = ev.parts(states, ps, wordCtx{}, limit)
			for _, s := range states {
				s.endField()
			}
		}
	} else {
		states = ev.parts(states, w.Parts, wordCtx{}, limit)
		for _, s := range states {
			s.endField()
		}
	}
	var out [][]Field
	if len(states) == 1 {
		o := ev.sc.arena.outs.Alloc()
		out = o[:]
	} else {
		out = make([][]Field, len(states))
	}
	for i, s := range states {
		for k := range s.fields {
			s.fields[k].Src = src
		}
		out[i] = s.fields
	}
	return out
}

// quotedLit is the fast path for a word made of plain literals and quoted text without expansions,
// escapes, braces or pattern characters: 'a b', "a b", a"b"'c'.
func quotedLit(w *syntax.Word) (Field, bool) {
	if len(w.Parts) == 1 { // the common "text" and 'text' without a copy
		switch p := w.Parts[0].(type) {
		case *syntax.SglQuoted:
			if !p.Dollar && plainText(p.Value) {
				return Field{Val: p.Value}, true
			}
		case *syntax.DblQuoted:
			if l, ok := oneLit(p.Parts); ok && !p.Dollar && plainText(l) {
				return Field{Val: l}, true
			}
		}
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !plainText(p.Value) {
				return Field{}, false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar || !plainText(p.Value) {
				return Field{}, false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return Field{}, false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || !plainText(l.Value) {
					return Field{}, false
				}
				b.WriteString(l.Value)
			}
		default:
			return Field{}, false
		}
	}
	return Field{Val: b.String()}, true
}

// oneLit is the value of parts that are a single literal (or nothing).
func oneLit(parts []syntax.WordPart) (string, bool) {
	switch len(parts) {
	case 0:
		return "", true
	case 1:
		if l, ok := parts[0].(*syntax.Lit); ok {
			return l.Value, true
		}
	}
	return "", false
}

// braces performs brace expansion ({a,b}, {1..3}); nil when the word has none or it is too large.
func (ev evaluator) braces(w *syntax.Word) [][]syntax.WordPart {
	has := false
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.BraceExp:
			has = true
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '{') >= 0 {
				has = true
			}
		}
	}
	if !has {
		return nil
	}
	return expandBraces(*w)
}

// expandBraces works on a copy of the word (SplitBraces replaces its parts, and the tree must stay
// walkable); it is its own function so that the copy is only made for a word that has braces.
func expandBraces(cp syntax.Word) [][]syntax.WordPart {
	if !syntax.SplitBraces(&cp) {
		return nil
	}
	var out [][]syntax.WordPart
	for bw, err := range expand.BracesSeq(nil, &cp) {
		if err != nil || len(out) >= maxBraceWord {
			return nil
		}
		out = append(out, bw.Parts)
	}
	if len(out) <= 1 {
		return nil
	}
	return out
}

// doc expands a word as a single string (assignment values, here-documents, ${x:-word}); ctx.quoted for
// here-documents.
func (ev evaluator) doc(w *syntax.Word, ctx wordCtx, limit int) []Field {
	if w == nil {
		return []Field{Literal("")}
	}
	ctx.noSplit = true
	states := ev.parts(ev.sc.arena.oneState(), w.Parts, ctx, limit)
	var out []Field
	if len(states) == 1 {
		o := ev.sc.arena.fields.Alloc()
		out = o[:1]
	} else {
		out = make([]Field, len(states))
	}
	for i, s := range states {
		s.cur.Src = ev.sc.Text(w)
		out[i] = s.cur
	}
	return out
}

func (ev evaluator) parts(states []*wstate, parts []syntax.WordPart, ctx wordCtx, limit int) []*wstate {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			for _, s := range states {
				litPieces(s, p.Value, ctx.quoted)
			}
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				v, _, _ = expand.Format(ev.config(), v, nil)
				v, _, _ = strings.Cut(v, "\x00")
			}
			for _, s := range states {
				s.lit(v, true)
			}
		case *syntax.DblQuoted:
			for _, s := range states {
				s.open = true
			}
			states = ev.parts(states, p.Parts, wordCtx{quoted: true, noSplit: true}, limit)
		case *syntax.ParamExp:
			states = ev.apply(states, ev.param(p), ctx, nil, limit)
		case *syntax.CmdSubst:
			states = ev.apply(states, ev.cmdSubst(p), ctx, p, limit)
		case *syntax.ArithmExp:
			states = ev.apply(states, ev.arith(p.X), ctx, nil, limit)
		case *syntax.ProcSubst:
			for _, s := range states {
				empty := !s.open && s.cur.Val == ""
				s.lit("/dev/fd/63", true)
				s.addSubst(p)
				if empty {
					s.cur.X.Proc = p
				} else {
					s.cur.X.Proc = nil
				}
			}
		case *syntax.ExtGlob:
			for _, s := range states {
				s.lit(p.Op.String()+p.Pattern.Value+")", ctx.quoted)
			}
		default: // BraceExp left inside quotes, zsh-only parts
			for _, s := range states {
				s.dynPart(nil)
			}
		}
	}
	return states
}

// litPieces appends literal source text, removing backslash escapes.
func litPieces(s *wstate, v string, quoted bool) {
	if strings.IndexByte(v, '\\') < 0 {
		s.lit(v, quoted)
		return
	}
	start := 0
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 >= len(v) {
			continue
		}
		n := v[i+1]
		if quoted && n != '$' && n != '`' && n != '"' && n != '\\' && n != '\n' {
			continue
		}
		s.lit(v[start:i], quoted)
		if n != '\n' {
			_, size := utf8.DecodeRuneInString(v[i+1:])
			s.lit(v[i+1:i+1+size], true)
			i += size
		} else {
			i++
		}
		start = i + 1
	}
	s.lit(v[start:], quoted)
}

// apply adds one expansion's alternatives to every state, forking states per alternative.
func (ev evaluator) apply(states []*wstate, alts []alt, ctx wordCtx, node syntax.Node, limit int) []*wstate {
	if len(alts) == 0 {
		alts = dynAlt
	}
	if len(states)*len(alts) > limit && len(alts) > 1 {
		alts = dynAlt
	}
	ifs := ""
	if !ctx.quoted && !ctx.noSplit {
		ifs = ev.sc.ifs()
	}
	var out []*wstate
	if len(states) == 1 && len(alts) == 1 {
		out = states[:0] // the one state is extended in place
	} else {
		out = make([]*wstate, 0, len(states)*len(alts))
	}
	for _, s := range states {
		for k, a := range alts {
			t := s
			if k < len(alts)-1 {
				t = s.clone()
			}
			switch {
			case a.dyn:
				t.dynPart(node)
			case a.multi:
				for i, el := range strings.Split(a.val, "\x00") {
					if i > 0 {
						if ctx.quoted {
							t.open = true
						}
						t.endField()
					}
					if ctx.quoted || ctx.noSplit {
						t.lit(el, ctx.quoted)
					} else {
						t.splitLit(el, ifs)
					}
				}
			case ctx.quoted || ctx.noSplit:
				t.lit(a.val, ctx.quoted)
				if node != nil {
					t.addSubst(node)
				}
			default:
				if node != nil {
					t.addSubst(node)
				}
				t.splitLit(a.val, ifs)
			}
			out = append(out, t)
		}
	}
	return out
}

// param expands ${...}.
func (ev evaluator) param(pe *syntax.ParamExp) []alt {
	if pe.Param == nil || pe.Names != 0 || pe.Width || pe.IsSet || len(pe.Modifiers) > 0 || pe.NestedParam != nil {
		return dynAlt
	}
	var base []alt
	if pe.Excl && pe.Index == nil {
		for _, a := range ev.sc.lookup(pe.Param.Value, nil) {
			if a.dyn || !syntax.ValidName(a.val) {
				base = append(base, alt{dyn: true})
				continue
			}
			base = append(base, ev.sc.lookup(a.val, nil)...)
		}
	} else {
		base = ev.sc.lookup(pe.Param.Value, pe.Index)
	}
	base = dedupe(base)
	if !pe.Length && pe.Slice == nil && pe.Repl == nil && pe.Exp == nil {
		// No operator: every value as it is (paramOp would return each unchanged).
		if len(base) > MaxAlts {
			return dynAlt
		}
		return base
	}
	var out []alt
	for _, b := range base {
		out = append(out, ev.paramOp(pe, b)...)
	}
	out = dedupe(out)
	if len(out) > MaxAlts {
		return dynAlt
	}
	return out
}

func (ev evaluator) paramOp(pe *syntax.ParamExp, b alt) []alt {
	dyn := dynAlt[:1:1]
	if b.multi {
		if !pe.Length && pe.Slice == nil && pe.Repl == nil && pe.Exp == nil {
			return []alt{b}
		}
		b = alt{val: strings.ReplaceAll(b.val, "\x00", " ")}
	}
	switch {
	case pe.Length:
		if b.dyn {
			return dyn
		}
		return []alt{{val: strconv.Itoa(utf8.RuneCountInString(b.val))}}
	case pe.Slice != nil:
		if b.dyn {
			return dyn
		}
		off, ok := ev.arithInt(pe.Slice.Offset)
		if !ok {
			return dyn
		}
		r := []rune(b.val)
		n := len(r)
		if off < 0 {
			off += n
		}
		if off < 0 || off > n {
			return []alt{{val: ""}}
		}
		end := n
		if pe.Slice.Length != nil {
			l, ok := ev.arithInt(pe.Slice.Length)
			if !ok {
				return dyn
			}
			if l < 0 {
				end = n + l
			} else {
				end = off + l
			}
		}
		end = min(end, n)
		if end < off {
			return []alt{{val: ""}}
		}
		return []alt{{val: string(r[off:end])}}
	case pe.Repl != nil:
		if b.dyn {
			return dyn
		}
		var out []alt
		for _, o := range ev.doc(pe.Repl.Orig, wordCtx{}, 2) {
			for _, w := range ev.doc(pe.Repl.With, wordCtx{}, 2) {
				if o.Dyn || w.Dyn {
					return dyn
				}
				v, ok := replacePattern(b.val, o.Pattern(), w.Val, pe.Repl.All)
				if !ok {
					return dyn
				}
				out = append(out, alt{val: v})
			}
		}
		return out
	case pe.Exp != nil:
		return ev.paramExp(pe.Exp, b)
	}
	return []alt{b}
}

func (ev evaluator) paramExp(x *syntax.Expansion, b alt) []alt {
	dyn := dynAlt[:1:1]
	word := func() []alt {
		var out []alt
		for _, f := range ev.doc(x.Word, wordCtx{}, MaxAlts) {
			out = append(out, alt{val: f.Val, dyn: f.Dyn})
		}
		return out
	}
	switch x.Op {
	case syntax.DefaultUnset, syntax.AssignUnset:
		if b.dyn {
			return append(dyn, word()...)
		}
		return []alt{b}
	case syntax.DefaultUnsetOrNull, syntax.AssignUnsetOrNull:
		if b.dyn {
			return append(dyn, word()...)
		}
		if b.val == "" {
			return word()
		}
		return []alt{b}
	case syntax.AlternateUnset:
		if b.dyn {
			return append(append(dyn, alt{}), word()...)
		}
		return word()
	case syntax.AlternateUnsetOrNull:
		if b.dyn {
			return append(append(dyn, alt{}), word()...)
		}
		if b.val == "" {
			return []alt{{}}
		}
		return word()
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return []alt{b}
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		if b.dyn {
			return dyn
		}
		var out []alt
		for _, f := range ev.doc(x.Word, wordCtx{}, 2) {
			if f.Dyn {
				return dyn
			}
			v, ok := removePattern(b.val, f.Pattern(), x.Op)
			if !ok {
				return dyn
			}
			out = append(out, alt{val: v})
		}
		return out
	case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		if b.dyn || (x.Word != nil && len(x.Word.Parts) > 0) {
			return dyn
		}
		return []alt{{val: changeCase(b.val, x.Op)}}
	case syntax.OtherParamOps:
		if b.dyn || x.Word == nil {
			return dyn
		}
		switch x.Word.Lit() {
		case "U":
			return []alt{{val: strings.ToUpper(b.val)}}
		case "L":
			return []alt{{val: strings.ToLower(b.val)}}
		case "u":
			return []alt{{val: changeCase(b.val, syntax.UpperFirst)}}
		case "E":
			v, _, _ := expand.Format(ev.config(), b.val, nil)
			v, _, _ = strings.Cut(v, "\x00")
			return []alt{{val: v}}
		}
	}
	return dyn
}

func changeCase(v string, op syntax.ParExpOperator) string {
	switch op {
	case syntax.UpperAll:
		return strings.ToUpper(v)
	case syntax.LowerAll:
		return strings.ToLower(v)
	}
	r, size := utf8.DecodeRuneInString(v)
	if size == 0 {
		return v
	}
	first := string(r)
	if op == syntax.UpperFirst {
		first = strings.ToUpper(first)
	} else {
		first = strings.ToLower(first)
	}
	return first + v[size:]
}

func GlobRegexp(pat string) (*regexp.Regexp, bool) {
	src, err := pattern.Regexp(pat, pattern.EntireString|pattern.ExtendedOperators)
	if err != nil {
		return nil, false
	}
	re, err := regexp.Compile(src)
	return re, err == nil
}

// removePattern is ${v#p}, ${v##p}, ${v%p}, ${v%%p}.
func removePattern(v, pat string, op syntax.ParExpOperator) (string, bool) {
	if len(v) > 256 {
		return "", false
	}
	re, ok := GlobRegexp(pat)
	if !ok {
		return "", false
	}
	n := len(v)
	switch op {
	case syntax.RemSmallPrefix:
		for i := 0; i <= n; i++ {
			if re.MatchString(v[:i]) {
				return v[i:], true
			}
		}
	case syntax.RemLargePrefix:
		for i := n; i >= 0; i-- {
			if re.MatchString(v[:i]) {
				return v[i:], true
			}
		}
	case syntax.RemSmallSuffix:
		for i := n; i >= 0; i-- {
			if re.MatchString(v[i:]) {
				return v[:i], true
			}
		}
	case syntax.RemLargeSuffix:
		for i := 0; i <= n; i++ {
			if re.MatchString(v[i:]) {
				return v[:i], true
			}
		}
	}
	return v, true
}

// replacePattern is ${v/p/w} and ${v//p/w}, with # and % anchors.
func replacePattern(v, pat, with string, all bool) (string, bool) {
	if len(v) > 256 {
		return "", false
	}
	anchorStart, anchorEnd := false, false
	if strings.HasPrefix(pat, "#") {
		anchorStart, pat = true, pat[1:]
	} else if strings.HasPrefix(pat, "%") {
		anchorEnd, pat = true, pat[1:]
	}
	if pat == "" {
		return v, true
	}
	re, ok := GlobRegexp(pat)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(v); {
		matched := -1
		if !anchorStart || i == 0 {
			for j := len(v); j > i; j-- {
				if anchorEnd && j != len(v) {
					break
				}
				if re.MatchString(v[i:j]) {
					matched = j
					break
				}
			}
		}
		if matched > i {
			b.WriteString(with)
			i = matched
			if !all {
				b.WriteString(v[i:])
				return b.String(), true
			}
			continue
		}
		_, size := utf8.DecodeRuneInString(v[i:])
		b.WriteString(v[i : i+size])
		i += size
	}
	return b.String(), true
}

// cmdSubst expands $(...) when it only echoes or printfs constant text.
func (ev evaluator) cmdSubst(cs *syntax.CmdSubst) []alt {
	if len(cs.Stmts) != 1 {
		return dynAlt
	}
	out, ok := ev.staticOutput(cs.Stmts[0])
	if !ok {
		return dynAlt
	}
	var alts []alt
	for _, o := range out {
		alts = append(alts, alt{val: strings.TrimRight(o, "\n")})
	}
	return alts
}

// staticOutput is the output of a statement that is a single echo or printf of constant words.
func (ev evaluator) staticOutput(st *syntax.Stmt) ([]string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || st.Background || len(st.Redirs) > 0 || st.Negated {
		return nil, false
	}
	if f, ok := ev.oneField(call.Args[0]); ok && f.Val != "echo" && f.Val != "printf" {
		return nil, false // a command named in plain text: no need to expand its arguments
	}
	var outs []string
	var vbuf [8]string
	one, alts := ev.wordsInto(ev.sc.arena.lines.Alloc()[:0], call.Args)
	n := len(alts)
	if alts == nil {
		n = 1
	}
	for k := range n {
		argv := one
		if alts != nil {
			argv = alts[k]
		}
		if len(argv) == 0 {
			return nil, false
		}
		vals := vbuf[:0]
		if len(argv) > len(vbuf) {
			vals = make([]string, len(argv))
		}
		vals = vals[:len(argv)]
		for i, f := range argv {
			if f.Dyn {
				return nil, false
			}
			vals[i] = f.Val
		}
		switch vals[0] {
		case "echo":
			args := vals[1:]
			nl := "\n"
			for len(args) > 0 && strings.HasPrefix(args[0], "-") && strings.Trim(args[0][1:], "neE") == "" && len(args[0]) > 1 {
				if strings.ContainsRune(args[0], 'e') {
					return nil, false
				}
				if strings.ContainsRune(args[0], 'n') {
					nl = ""
				}
				args = args[1:]
			}
			outs = append(outs, strings.Join(args, " ")+nl)
		case "printf":
			if len(vals) < 2 || strings.HasPrefix(vals[1], "-") {
				return nil, false
			}
			format, args := vals[1], vals[2:]
			var b strings.Builder
			for {
				s, n, err := expand.Format(ev.config(), format, args)
				if err != nil {
					return nil, false
				}
				b.WriteString(s)
				if n == 0 || n >= len(args) {
					break
				}
				args = args[n:]
			}
			s, _, _ := strings.Cut(b.String(), "\x00")
			outs = append(outs, s)
		default:
			return nil, false
		}
	}
	return outs, true
}

// arith expands $((...)) when it is made of constants only.
func (ev evaluator) arith(x syntax.ArithmExpr) []alt {
	if n, ok := ev.arithInt(x); ok {
		return []alt{{val: strconv.Itoa(n)}}
	}
	return dynAlt
}

func (ev evaluator) arithInt(x syntax.ArithmExpr) (int, bool) {
	if x == nil {
		return 0, true
	}
	constant := true
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst:
			constant = false
		case *syntax.Lit:
			for i := 0; i < len(n.Value); i++ {
				if c := n.Value[i]; c < '0' || c > '9' {
					constant = false
				}
			}
		}
		return constant
	})
	if !constant {
		return 0, false
	}
	n, err := expand.Arithm(ev.config(), x)
	return n, err == nil
}

func dedupe(as []alt) []alt {
	if len(as) < 2 {
		return as
	}
	out := as[:0:0]
	seen := map[alt]bool{}
	for _, a := range as {
		if a.dyn {
			a.val = ""
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
