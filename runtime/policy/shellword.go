package policy

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// Static expansion of shell words: what a word can expand to, computed without running anything. Quotes
// and escapes are removed ('r''m', r\m and $'\x72m' are all "rm"), brace expansion is done, parameters
// assigned in the same script are substituted (including ${IFS} and its field splitting, slices,
// replacements, defaults and case changes), and a command substitution that only echoes or printfs
// constant text is replaced by that text. What cannot be known (an unassigned variable, another command's
// output, $1) is marked dynamic, and the known text around it is kept.

const (
	maxAlts      = 8  // alternatives kept per word or variable
	maxArgvAlts  = 32 // alternatives kept per command line
	maxBraceWord = 64 // words one brace expansion may produce
	maxValueLen  = 4096
)

// field is one argument after expansion. It is kept small (most fields are plain words); what only
// dynamic, globbed or substituted fields need is in x.
type field struct {
	val  string // the known text; dynamic parts contribute nothing
	src  string // the word as written
	dyn  bool   // some part is only known at run time
	glob bool   // unquoted pattern characters: pathname expansion applies
	x    *fieldX
}

// fieldX is the rarely needed part of a field.
type fieldX struct {
	pre string // dynamic fields: the known text before the first dynamic part
	suf string // dynamic fields: the known text after the last dynamic part
	// pat is the pattern form of a glob field: quoted text escaped, unquoted pattern characters kept.
	pat   string
	subst []syntax.Node     // command and process substitutions that produced parts
	proc  *syntax.ProcSubst // the field is exactly one process substitution
}

func (f *field) ext() *fieldX {
	if f.x == nil {
		f.x = &fieldX{}
	}
	return f.x
}

// substs are the command and process substitutions that produced parts of the field.
func (f *field) substs() []syntax.Node {
	if f.x == nil {
		return nil
	}
	return f.x.subst
}

// procSubst is the process substitution the field is made of, or nil.
func (f *field) procSubst() *syntax.ProcSubst {
	if f.x == nil {
		return nil
	}
	return f.x.proc
}

// prefix is the known text before the first dynamic part (all of it for a known field).
func (f *field) prefix() string {
	if f.dyn {
		if f.x == nil {
			return ""
		}
		return f.x.pre
	}
	return f.val
}

// suffix is the known text after the last dynamic part (all of it for a known field).
func (f *field) suffix() string {
	if f.dyn {
		if f.x == nil {
			return ""
		}
		return f.x.suf
	}
	return f.val
}

// pattern is the field as a shell pattern.
func (f *field) pattern() string {
	if f.glob {
		return f.x.pat
	}
	return pattern.QuoteMeta(f.val, 0)
}

func litField(s string) field {
	return field{val: s, src: s}
}

// evalArena holds what expanding words needs during one check, so that the common word (one state, one
// alternative) allocates nothing for its bookkeeping; it is reset with the check.
type evalArena struct {
	states chunked[wstate]
	ones   chunked[[1]*wstate]
	outs   chunked[[1][]field]
	fields chunked[[2]field]
}

// oneState is the starting states of a word: one empty state, with room for two fields.
func (ea *evalArena) oneState() []*wstate {
	one := ea.ones.alloc()
	st := ea.states.alloc()
	fb := ea.fields.alloc()
	st.fields = fb[:0:len(fb)]
	one[0] = st
	return one[:]
}

func (ea *evalArena) reset() {
	ea.states.reset()
	ea.ones.reset()
	ea.outs.reset()
	ea.fields.reset()
}

// wstate is one alternative of a word being expanded.
type wstate struct {
	fields []field
	cur    field
	open   bool // cur has started (a quoted empty string starts a field)
}

func (s *wstate) clone() *wstate {
	c := &wstate{fields: append([]field(nil), s.fields...), cur: s.cur, open: s.open}
	if s.cur.x != nil {
		x := *s.cur.x
		x.subst = append([]syntax.Node(nil), x.subst...)
		c.cur.x = &x
	}
	return c
}

func (s *wstate) lit(text string, quoted bool) {
	c := &s.cur
	if len(c.val) > maxValueLen {
		return
	}
	if !quoted && !c.glob && strings.ContainsAny(text, "*?[") {
		c.glob = true
		x := c.ext()
		x.pat = pattern.QuoteMeta(c.val, 0)
		if c.dyn {
			x.pat = "*" // the dynamic parts so far
		}
	}
	if c.glob {
		if quoted {
			c.x.pat += pattern.QuoteMeta(text, 0)
		} else {
			c.x.pat += text
		}
	}
	c.val += text
	if c.dyn {
		c.x.suf += text
	}
	if quoted || text != "" {
		s.open = true
	}
}

// addSubst records a substitution that produced part of the current field.
func (s *wstate) addSubst(node syntax.Node) {
	x := s.cur.ext()
	x.subst = append(x.subst, node)
}

func (s *wstate) dynPart(node syntax.Node) {
	c := &s.cur
	x := c.ext()
	if !c.dyn {
		x.pre = c.val
	}
	c.dyn = true
	x.suf = ""
	if c.glob {
		x.pat += "*"
	}
	s.open = true
	if node != nil {
		x.subst = append(x.subst, node)
	}
}

func (s *wstate) endField() {
	if s.open {
		s.fields = append(s.fields, s.cur)
	}
	s.cur = field{}
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
	sc *scope
}

// words expands a command's words: the alternatives of its argument list.
func (ev evaluator) words(words []*syntax.Word) [][]field {
	argv, alts := ev.wordsInto(make([]field, 0, len(words)), words)
	if alts == nil {
		return [][]field{argv}
	}
	return alts
}

// wordsInto is words appending to buf: it returns the one command line, or nil and all the alternatives
// when there are several.
func (ev evaluator) wordsInto(buf []field, words []*syntax.Word) ([]field, [][]field) {
	argv := buf
	var alts [][]field // nil while there is a single alternative (argv)
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
		wa := ev.word(w, maxAlts)
		if alts == nil && len(wa) == 1 {
			argv = append(argv, wa[0]...)
			continue
		}
		if alts == nil {
			alts = [][]field{argv}
		}
		if len(alts)*len(wa) > maxArgvAlts {
			wa = ev.word(w, 1)
		}
		next := make([][]field, 0, len(alts)*len(wa))
		for _, a := range alts {
			for _, fs := range wa {
				next = append(next, append(append(make([]field, 0, len(a)+len(fs)+4), a...), fs...))
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
func (ev evaluator) oneField(w *syntax.Word) (field, bool) {
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && l.Value != "" && plainText(l.Value) {
			return field{val: l.Value, src: l.Value}, true
		}
	}
	if f, ok := quotedLit(w); ok {
		f.src = ev.sc.text(w)
		return f, true
	}
	return field{}, false
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

// expandConfig is an empty configuration for mvdan.cc/sh/v3/expand: no variables, no command substitution.
// Passing nil instead is not safe for concurrent use: expand then fills in a package-level configuration
// in place (a data race found by TestConcurrentChecks under -race, mvdan.cc/sh v3.14.1).
func expandConfig() *expand.Config { return &expand.Config{} }

// word expands one word into its alternatives, each a list of fields.
func (ev evaluator) word(w *syntax.Word, limit int) [][]field {
	src := ev.sc.text(w)
	if f, ok := quotedLit(w); ok {
		f.src = src
		return [][]field{{f}}
	}
	states := ev.sc.a.eval.oneState()
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
	var out [][]field
	if len(states) == 1 {
		o := ev.sc.a.eval.outs.alloc()
		out = o[:]
	} else {
		out = make([][]field, len(states))
	}
	for i, s := range states {
		for k := range s.fields {
			s.fields[k].src = src
		}
		out[i] = s.fields
	}
	return out
}

// quotedLit is the fast path for a word made of plain literals and quoted text without expansions,
// escapes, braces or pattern characters: 'a b', "a b", a"b"'c'.
func quotedLit(w *syntax.Word) (field, bool) {
	if len(w.Parts) == 1 { // the common "text" and 'text' without a copy
		switch p := w.Parts[0].(type) {
		case *syntax.SglQuoted:
			if !p.Dollar && plainText(p.Value) {
				return field{val: p.Value}, true
			}
		case *syntax.DblQuoted:
			if l, ok := oneLit(p.Parts); ok && !p.Dollar && plainText(l) {
				return field{val: l}, true
			}
		}
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !plainText(p.Value) {
				return field{}, false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar || !plainText(p.Value) {
				return field{}, false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return field{}, false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || !plainText(l.Value) {
					return field{}, false
				}
				b.WriteString(l.Value)
			}
		default:
			return field{}, false
		}
	}
	return field{val: b.String()}, true
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
func (ev evaluator) doc(w *syntax.Word, ctx wordCtx, limit int) []field {
	if w == nil {
		return []field{litField("")}
	}
	ctx.noSplit = true
	states := ev.parts(ev.sc.a.eval.oneState(), w.Parts, ctx, limit)
	var out []field
	if len(states) == 1 {
		o := ev.sc.a.eval.fields.alloc()
		out = o[:1]
	} else {
		out = make([]field, len(states))
	}
	for i, s := range states {
		s.cur.src = ev.sc.text(w)
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
				v, _, _ = expand.Format(expandConfig(), v, nil)
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
				empty := !s.open && s.cur.val == ""
				s.lit("/dev/fd/63", true)
				s.addSubst(p)
				if empty {
					s.cur.x.proc = p
				} else {
					s.cur.x.proc = nil
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
		alts = []alt{{dyn: true}}
	}
	if len(states)*len(alts) > limit && len(alts) > 1 {
		alts = []alt{{dyn: true}}
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
		return []alt{{dyn: true}}
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
		if len(base) > maxAlts {
			return []alt{{dyn: true}}
		}
		return base
	}
	var out []alt
	for _, b := range base {
		out = append(out, ev.paramOp(pe, b)...)
	}
	out = dedupe(out)
	if len(out) > maxAlts {
		return []alt{{dyn: true}}
	}
	return out
}

func (ev evaluator) paramOp(pe *syntax.ParamExp, b alt) []alt {
	dyn := []alt{{dyn: true}}
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
				if o.dyn || w.dyn {
					return dyn
				}
				v, ok := replacePattern(b.val, o.pattern(), w.val, pe.Repl.All)
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
	dyn := []alt{{dyn: true}}
	word := func() []alt {
		var out []alt
		for _, f := range ev.doc(x.Word, wordCtx{}, maxAlts) {
			out = append(out, alt{val: f.val, dyn: f.dyn})
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
			if f.dyn {
				return dyn
			}
			v, ok := removePattern(b.val, f.pattern(), x.Op)
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
			v, _, _ := expand.Format(expandConfig(), b.val, nil)
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

func globRegexp(pat string) (*regexp.Regexp, bool) {
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
	re, ok := globRegexp(pat)
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
	re, ok := globRegexp(pat)
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
		return []alt{{dyn: true}}
	}
	out, ok := ev.staticOutput(cs.Stmts[0])
	if !ok {
		return []alt{{dyn: true}}
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
	var outs []string
	for _, argv := range ev.words(call.Args) {
		if len(argv) == 0 {
			return nil, false
		}
		vals := make([]string, len(argv))
		for i, f := range argv {
			if f.dyn {
				return nil, false
			}
			vals[i] = f.val
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
				s, n, err := expand.Format(expandConfig(), format, args)
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
	return []alt{{dyn: true}}
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
	n, err := expand.Arithm(expandConfig(), x)
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

// varTable is what a script assigns to its variables, flow-insensitively: every value any assignment can
// give, in any order, and whether some assignment gives a value that is not known.
type varTable struct {
	vals    map[string][]string
	arrays  map[string][][]string
	unknown map[string]bool
	parent  *varTable
}

func newVarTable(parent *varTable) *varTable {
	return &varTable{parent: parent}
}

func (t *varTable) get(name string) (vals []string, arrays [][]string, unknown, assigned bool) {
	for x := t; x != nil; x = x.parent {
		if v, ok := x.vals[name]; ok {
			vals, assigned = append(vals, v...), true
		}
		if a, ok := x.arrays[name]; ok {
			arrays, assigned = append(arrays, a...), true
		}
		if x.unknown[name] {
			unknown, assigned = true, true
		}
	}
	return vals, arrays, unknown, assigned
}

// add records an assigned value; it reports whether the table changed.
func (t *varTable) add(name string, f field) bool {
	if f.dyn {
		return t.markUnknown(name)
	}
	if t.vals == nil {
		t.vals = map[string][]string{}
	}
	for _, v := range t.vals[name] {
		if v == f.val {
			return false
		}
	}
	if len(t.vals[name]) >= maxAlts {
		return t.markUnknown(name)
	}
	t.vals[name] = append(t.vals[name], f.val)
	return true
}

func (t *varTable) addArray(name string, elems []string) bool {
	if t.arrays == nil {
		t.arrays = map[string][][]string{}
	}
	if len(t.arrays[name]) >= maxAlts {
		return false
	}
	for _, a := range t.arrays[name] {
		if strings.Join(a, "\x00") == strings.Join(elems, "\x00") {
			return false
		}
	}
	t.arrays[name] = append(t.arrays[name], elems)
	return true
}

func (t *varTable) markUnknown(name string) bool {
	if t.unknown[name] {
		return false
	}
	if t.unknown == nil {
		t.unknown = map[string]bool{}
	}
	t.unknown[name] = true
	return true
}
