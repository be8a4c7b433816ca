package shellsyntax

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// FastParse builds, for the commonest shapes of command, the syntax tree mvdan.cc/sh's bash parser builds,
// without running that parser: simple commands of plain words (globs and tildes included), quoted strings,
// parameters $NAME and ${NAME}, command substitutions $(...) (bare or in double quotes), NAME=value
// assignments before the command name and the redirections > >> < >& <& &> &>> (with a file descriptor
// number), and for NAME in WORDS; do LIST; done loops, joined by &&, || and | and ended by ;. It reports
// false for anything else (other compound commands and expansions, escapes, backquotes, here-documents,
// braces, brackets, parentheses, comments, other reserved words, empty assignments, background jobs,
// newlines, non-ASCII bytes, syntax errors), which is then left to mvdan.cc/sh. TestFastParse and
// FuzzFastParse check that every tree it builds is the one mvdan.cc/sh builds (reflect.DeepEqual).
//
// It exists for speed: mvdan.cc/sh takes 40-120 µs for a 1 KB command here, most of it allocating and
// collecting its nodes; this scanner allocates nothing once its arena has grown.
//
// Its nodes come from the arena (several trees may share one, as nested scripts do), which the caller
// resets once no tree it built is in use any more.
func FastParse(src string, ar *Arena) (*syntax.File, bool) {
	if len(src) > maxFastParse {
		return nil, false
	}
	fp := fastParser{src: src, ar: ar}
	stmts, ok := fp.list(false)
	if !ok || fp.i != len(src) {
		ar.unwind()
		return nil, false
	}
	f := ar.files.Alloc()
	f.Stmts = stmts
	return f, true
}

// list reads statements separated and ended by ;, up to the end (or, in a command substitution, up to
// its closing parenthesis; in a loop's body, up to done). An empty list is left to mvdan.cc/sh.
func (fp *fastParser) list(untilDone bool) ([]*syntax.Stmt, bool) {
	ar := fp.ar
	start := len(ar.stackStmts)
	for {
		fp.skipBlanks()
		if fp.atEnd() || (untilDone && fp.keyword("done")) {
			break
		}
		st, ok := fp.andOr()
		if !ok {
			return nil, false
		}
		fp.skipBlanks()
		if !fp.atEnd() {
			if fp.src[fp.i] != ';' || (fp.i+1 < len(fp.src) && fp.src[fp.i+1] == ';') {
				return nil, false
			}
			st.Semicolon = linePos(fp.i)
			fp.i++
		}
		ar.stackStmts = append(ar.stackStmts, st)
	}
	if len(ar.stackStmts) == start {
		return nil, false
	}
	return pop(&ar.stackStmts, start, &ar.stmtPtrs), true
}

// atEnd reports the end of the list being read: the end of the source, or a ) closing a substitution.
func (fp *fastParser) atEnd() bool {
	return fp.i == len(fp.src) || (fp.depth > 0 && fp.src[fp.i] == ')')
}

// pop moves the items a list pushed on an arena stack, from start on, to the end of an arena buffer, and
// returns them as a slice of it, its capacity capped. Lists (of statements, words, parts...) are collected
// on stacks because the lists nested in them (in command substitutions) are read in the middle of them: a
// nested list is popped before its parent goes on, so a parent's items stay together on the stack.
func pop[T any](stack *[]T, start int, buf *[]T) []T {
	items := (*stack)[start:]
	from := len(*buf)
	*buf = append(*buf, items...)
	clear(items)
	*stack = (*stack)[:start]
	return (*buf)[from:len(*buf):len(*buf)]
}

// maxFastParse keeps positions on one line well inside mvdan.cc/sh's column range.
const maxFastParse = 1 << 14

// fastClass sorts bytes: 0 not handled, 1 blank, 2 word, 3 operator (; & |), 4 quote.
var fastClass = func() (c [256]byte) {
	for _, b := range []byte(" \t") {
		c[b] = 1
	}
	for b := '0'; b <= '9'; b++ {
		c[b] = 2
	}
	for b := 'a'; b <= 'z'; b++ {
		c[b], c[b-'a'+'A'] = 2, 2
	}
	for _, b := range []byte("_./,:@%+=^-*?~") {
		c[b] = 2
	}
	for _, b := range []byte(";&|") {
		c[b] = 3
	}
	c['\''], c['"'] = 4, 4
	return c
}()

// quotedOK reports a byte allowed inside quotes: printable ASCII. Inside double quotes ` \ and ! are
// left to mvdan.cc/sh too, and $ must start a $NAME or ${NAME}; inside single quotes only ' ends the
// string.
var quotedOK = func() (c [256]bool) {
	for b := 0x20; b < 0x7f; b++ {
		c[b] = true
	}
	return c
}()

// reserved are the first words mvdan.cc/sh's bash parser reads as something other than a simple command.
var reserved = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true, "case": true,
	"esac": true, "while": true, "until": true, "for": true, "in": true, "function": true, "select": true,
	"time": true, "coproc": true, "declare": true, "local": true, "export": true, "readonly": true,
	"typeset": true, "nameref": true, "let": true, "@test": true,
}

type fastParser struct {
	src   string
	i     int
	ar    *Arena
	depth int // command substitutions open at i
}

// Arena holds the nodes of the trees FastParse builds until its Reset, so that parsing allocates nothing
// once the arena has grown to its commands' size. The zero value is ready to use; an Arena is not safe for
// concurrent use. Nodes come from fixed-size chunks (a pointer to
// a node stays valid as the arena grows); slices are cut from shared buffers with their capacity capped
// (a buffer that grows is copied, and the slices already cut keep the old copy).
type Arena struct {
	files   Chunked[syntax.File]
	stmts   Chunked[syntax.Stmt]
	calls   Chunked[syntax.CallExpr]
	bins    Chunked[syntax.BinaryCmd]
	words   Chunked[syntax.Word]
	lits    Chunked[syntax.Lit]
	sqs     Chunked[syntax.SglQuoted]
	dqs     Chunked[syntax.DblQuoted]
	redirs  Chunked[syntax.Redirect]
	params  Chunked[syntax.ParamExp]
	assigns Chunked[syntax.Assign]
	substs  Chunked[syntax.CmdSubst]
	fors    Chunked[syntax.ForClause]
	iters   Chunked[syntax.WordIter]
	// The lists being read, as stacks (see pop).
	stackStmts   []*syntax.Stmt
	stackArgs    []*syntax.Word
	stackAssigns []*syntax.Assign
	stackRedirs  []*syntax.Redirect
	stackParts   []syntax.WordPart
	// The lists read, cut from these.
	stmtPtrs   []*syntax.Stmt
	assignPtrs []*syntax.Assign
	redirPtrs  []*syntax.Redirect
	args       []*syntax.Word
	parts      []syntax.WordPart
}

// unwind empties the stacks after a parse that failed half-way.
func (ar *Arena) unwind() {
	clear(ar.stackStmts)
	clear(ar.stackArgs)
	clear(ar.stackAssigns)
	clear(ar.stackRedirs)
	clear(ar.stackParts)
	ar.stackStmts, ar.stackArgs, ar.stackAssigns = ar.stackStmts[:0], ar.stackArgs[:0], ar.stackAssigns[:0]
	ar.stackRedirs, ar.stackParts = ar.stackRedirs[:0], ar.stackParts[:0]
}

// Reset makes every node available again, clearing what was used so that no tree outlives its use. The
// caller resets once no tree FastParse built from the arena is in use any more.
func (ar *Arena) Reset() {
	ar.unwind()
	ar.files.Reset()
	ar.stmts.Reset()
	ar.calls.Reset()
	ar.bins.Reset()
	ar.words.Reset()
	ar.lits.Reset()
	ar.sqs.Reset()
	ar.dqs.Reset()
	ar.redirs.Reset()
	ar.params.Reset()
	ar.assigns.Reset()
	ar.substs.Reset()
	ar.fors.Reset()
	ar.iters.Reset()
	clear(ar.assignPtrs)
	ar.assignPtrs = ar.assignPtrs[:0]
	clear(ar.redirPtrs)
	ar.redirPtrs = ar.redirPtrs[:0]
	clear(ar.stmtPtrs)
	clear(ar.args)
	clear(ar.parts)
	ar.stmtPtrs, ar.args, ar.parts = ar.stmtPtrs[:0], ar.args[:0], ar.parts[:0]
}

const chunkSize = 64

// Chunked hands out zeroed values of T from fixed-size chunks, so that a pointer it handed out stays valid
// as it grows and a Reset makes every value available again without freeing anything. The zero value is
// ready to use.
type Chunked[T any] struct {
	chunks [][]T
	n      int // values handed out
}

// Alloc returns a zeroed value.
func (c *Chunked[T]) Alloc() *T {
	k, i := c.n/chunkSize, c.n%chunkSize
	if k == len(c.chunks) {
		c.chunks = append(c.chunks, make([]T, chunkSize))
	}
	c.n++
	return &c.chunks[k][i]
}

// Reset zeroes every value handed out and makes them available again.
func (c *Chunked[T]) Reset() {
	for k := 0; k*chunkSize < c.n; k++ {
		clear(c.chunks[k])
	}
	c.n = 0
}

func linePos(offset int) syntax.Pos { return syntax.NewPos(uint(offset), 1, uint(offset)+1) }

func (fp *fastParser) skipBlanks() {
	for fp.i < len(fp.src) && fastClass[fp.src[fp.i]] == 1 {
		fp.i++
	}
}

// op reads a two-byte && or || (ok false for a lone & or for |).
func (fp *fastParser) op() (syntax.BinCmdOperator, bool) {
	if fp.i+1 >= len(fp.src) || fp.src[fp.i+1] != fp.src[fp.i] {
		return 0, false
	}
	switch fp.src[fp.i] {
	case '&':
		return syntax.AndStmt, true
	case '|':
		return syntax.OrStmt, true
	}
	return 0, false
}

// andOr reads pipelines joined by && and ||, nested to the left as mvdan.cc/sh nests them.
func (fp *fastParser) andOr() (*syntax.Stmt, bool) {
	x, ok := fp.pipeline()
	for ok {
		fp.skipBlanks()
		if fp.atEnd() || fp.src[fp.i] == ';' {
			return x, true
		}
		op, isOp := fp.op()
		if !isOp {
			return nil, false
		}
		opPos := fp.i
		fp.i += 2
		fp.skipBlanks()
		var y *syntax.Stmt
		y, ok = fp.pipeline()
		x = fp.binary(op, opPos, x, y)
	}
	return nil, false
}

// binary joins two statements (y is nil after a syntax error: the result is then dropped).
func (fp *fastParser) binary(op syntax.BinCmdOperator, opPos int, x, y *syntax.Stmt) *syntax.Stmt {
	b := fp.ar.bins.Alloc()
	b.OpPos, b.Op, b.X, b.Y = linePos(opPos), op, x, y
	st := fp.ar.stmts.Alloc()
	st.Cmd, st.Position = b, x.Position
	return st
}

// pipeline reads commands joined by |, nested to the left.
func (fp *fastParser) pipeline() (*syntax.Stmt, bool) {
	x, ok := fp.command()
	for ok {
		fp.skipBlanks()
		if fp.i == len(fp.src) || fp.src[fp.i] != '|' || (fp.i+1 < len(fp.src) && fp.src[fp.i+1] == '|') {
			return x, true
		}
		opPos := fp.i
		fp.i++
		fp.skipBlanks()
		var y *syntax.Stmt
		y, ok = fp.command()
		x = fp.binary(syntax.Pipe, opPos, x, y)
	}
	return nil, false
}

// keyword reports the reserved word w at fp.i (false at the end): w, then the end or a byte that cannot
// continue a word.
func (fp *fastParser) keyword(w string) bool {
	if !strings.HasPrefix(fp.src[fp.i:], w) {
		return false
	}
	k := fp.i + len(w)
	return k == len(fp.src) || (fastClass[fp.src[k]] != 2 && fastClass[fp.src[k]] != 4 && fp.src[k] != '$')
}

// forClause reads for NAME in WORDS; do LIST; done.
func (fp *fastParser) forClause() (*syntax.Stmt, bool) {
	ar := fp.ar
	forPos := fp.i
	fp.i += len("for")
	fp.skipBlanks()
	k, ok := fp.nameEnd()
	if !ok {
		return nil, false
	}
	name := fp.lit(fp.i, k)
	fp.i = k
	fp.skipBlanks()
	if !fp.keyword("in") {
		return nil, false // for NAME; do (the positional parameters) is left to mvdan.cc/sh
	}
	inPos := fp.i
	fp.i += len("in")
	items := len(ar.stackArgs)
	for {
		fp.skipBlanks()
		if fp.i == len(fp.src) || fp.src[fp.i] == ';' {
			break
		}
		if !fp.wordStart() {
			return nil, false
		}
		w, ok := fp.word()
		if !ok {
			return nil, false
		}
		ar.stackArgs = append(ar.stackArgs, w)
	}
	if len(ar.stackArgs) == items || fp.i == len(fp.src) || (fp.i+1 < len(fp.src) && fp.src[fp.i+1] == ';') {
		return nil, false
	}
	fp.i++ // the ; before do
	fp.skipBlanks()
	if !fp.keyword("do") {
		return nil, false
	}
	doPos := fp.i
	fp.i += len("do")
	do, ok := fp.list(true)
	if !ok || !fp.keyword("done") {
		return nil, false
	}
	wi := ar.iters.Alloc()
	wi.Name, wi.InPos, wi.Items = name, linePos(inPos), pop(&ar.stackArgs, items, &ar.args)
	fc := ar.fors.Alloc()
	fc.ForPos, fc.DoPos, fc.DonePos, fc.Loop, fc.Do = linePos(forPos), linePos(doPos), linePos(fp.i), wi, do
	fp.i += len("done")
	st := ar.stmts.Alloc()
	st.Cmd, st.Position = fc, linePos(forPos)
	return st, true
}

// nameEnd reports the end of a valid name at fp.i.
func (fp *fastParser) nameEnd() (int, bool) {
	k := nameEnd(fp.src, fp.i)
	return k, k > fp.i
}

// nameEnd is the end of the longest valid name (a letter or _, then letters, digits and _) at src[start:].
func nameEnd(src string, start int) int {
	k := start
	for k < len(src) && (src[k] == '_' || src[k]|0x20 >= 'a' && src[k]|0x20 <= 'z' || (k > start && src[k] >= '0' && src[k] <= '9')) {
		k++
	}
	return k
}

// command reads a simple command (assignments, words and redirections up to an operator or the end) or a
// for loop.
func (fp *fastParser) command() (*syntax.Stmt, bool) {
	ar := fp.ar
	if fp.keyword("for") {
		return fp.forClause()
	}
	start := fp.i
	args, assigns, redirs := len(ar.stackArgs), len(ar.stackAssigns), len(ar.stackRedirs)
	for {
		fp.skipBlanks()
		if fp.atEnd() {
			break
		}
		c := fp.src[fp.i]
		if c == '<' || c == '>' || (c == '&' && fp.i+1 < len(fp.src) && fp.src[fp.i+1] == '>') {
			r, ok := fp.redirect(-1)
			if !ok {
				return nil, false
			}
			ar.stackRedirs = append(ar.stackRedirs, r)
			continue
		}
		if fastClass[c] == 3 {
			break
		}
		if !fp.wordStart() {
			return nil, false
		}
		// A file descriptor number right before a redirection operator (2>&1) is the redirection's.
		j := fp.i
		for j < len(fp.src) && fp.src[j] >= '0' && fp.src[j] <= '9' {
			j++
		}
		if j > fp.i && j < len(fp.src) && (fp.src[j] == '<' || fp.src[j] == '>') {
			n := fp.i
			fp.i = j
			r, ok := fp.redirect(n)
			if !ok {
				return nil, false
			}
			ar.stackRedirs = append(ar.stackRedirs, r)
			continue
		}
		if len(ar.stackArgs) == args {
			// Before the command name, NAME=value is an assignment.
			if k, ok := fp.assignName(); ok {
				name := fp.i
				fp.i = k + 1
				if !fp.wordStart() {
					return nil, false // an empty value is left to mvdan.cc/sh
				}
				as := ar.assigns.Alloc()
				as.Name = fp.lit(name, k)
				if as.Value, ok = fp.word(); !ok {
					return nil, false
				}
				ar.stackAssigns = append(ar.stackAssigns, as)
				continue
			}
		}
		w, ok := fp.word()
		if !ok {
			return nil, false
		}
		ar.stackArgs = append(ar.stackArgs, w)
	}
	if len(ar.stackArgs) == args && len(ar.stackAssigns) == assigns {
		return nil, false // no command (a lone redirection is left to mvdan.cc/sh)
	}
	if len(ar.stackArgs) > args {
		// A command name that is a reserved word or a declaration, or has = in it, is not a plain command.
		name := ar.stackArgs[args]
		for _, p := range name.Parts {
			if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '=') >= 0 {
				return nil, false
			}
		}
		if reserved[name.Lit()] {
			return nil, false
		}
	}
	call := ar.calls.Alloc()
	if len(ar.stackArgs) > args {
		call.Args = pop(&ar.stackArgs, args, &ar.args)
	}
	if len(ar.stackAssigns) > assigns {
		call.Assigns = pop(&ar.stackAssigns, assigns, &ar.assignPtrs)
	}
	st := ar.stmts.Alloc()
	st.Cmd, st.Position = call, linePos(start)
	if len(ar.stackRedirs) > redirs {
		st.Redirs = pop(&ar.stackRedirs, redirs, &ar.redirPtrs)
	}
	return st, true
}

// wordStart reports a word at fp.i: plain text, a quote or a $.
func (fp *fastParser) wordStart() bool {
	if fp.i == len(fp.src) {
		return false
	}
	c := fp.src[fp.i]
	return fastClass[c] == 2 || fastClass[c] == 4 || c == '$'
}

// assignName reports the offset of the = after a valid name at fp.i (NAME=...).
func (fp *fastParser) assignName() (int, bool) {
	k, ok := fp.nameEnd()
	return k, ok && k < len(fp.src) && fp.src[k] == '='
}

// redirect reads a redirection at fp.i (n is the offset of its file descriptor number, or -1): one of
// > >> < >& <& &> &>> and its word. Here-documents, here-strings, <>, >| and process substitutions are left
// to mvdan.cc/sh.
func (fp *fastParser) redirect(n int) (*syntax.Redirect, bool) {
	src, i := fp.src, fp.i
	at := func(k int) byte {
		if k < len(src) {
			return src[k]
		}
		return 0
	}
	var op syntax.RedirOperator
	size := 1
	switch {
	case src[i] == '&' && at(i+2) == '>':
		op, size = syntax.AppAll, 3
	case src[i] == '&':
		op, size = syntax.RdrAll, 2
	case src[i] == '>' && at(i+1) == '>':
		op, size = syntax.AppOut, 2
	case src[i] == '>' && at(i+1) == '&':
		op, size = syntax.DplOut, 2
	case src[i] == '>' && at(i+1) == '|':
		return nil, false
	case src[i] == '>':
		op = syntax.RdrOut
	case src[i] == '<' && (at(i+1) == '<' || at(i+1) == '>'):
		return nil, false
	case src[i] == '<' && at(i+1) == '&':
		op, size = syntax.DplIn, 2
	default:
		op = syntax.RdrIn
	}
	if n >= 0 && op != syntax.RdrOut && op != syntax.AppOut && op != syntax.RdrIn && op != syntax.DplOut && op != syntax.DplIn {
		return nil, false
	}
	fp.i += size
	fp.skipBlanks()
	if !fp.wordStart() {
		return nil, false
	}
	w, ok := fp.word()
	if !ok {
		return nil, false
	}
	r := fp.ar.redirs.Alloc()
	r.OpPos, r.Op, r.Word = linePos(i), op, w
	if n >= 0 {
		r.N = fp.lit(n, i)
	}
	return r, true
}

// word reads adjacent plain text, quoted strings, parameters and command substitutions.
func (fp *fastParser) word() (*syntax.Word, bool) {
	ar := fp.ar
	parts := len(ar.stackParts)
	for fp.i < len(fp.src) {
		c := fp.src[fp.i]
		switch {
		case c == '$':
			p, ok := fp.dollar()
			if !ok {
				return nil, false
			}
			ar.stackParts = append(ar.stackParts, p)
		case fastClass[c] == 2:
			j := fp.i
			for j < len(fp.src) && fastClass[fp.src[j]] == 2 {
				j++
			}
			ar.stackParts = append(ar.stackParts, fp.lit(fp.i, j))
			fp.i = j
		case c == '\'':
			j := fp.i + 1
			for j < len(fp.src) && fp.src[j] != c {
				if !quotedOK[fp.src[j]] {
					return nil, false
				}
				j++
			}
			if j == len(fp.src) {
				return nil, false // unterminated: mvdan.cc/sh reports the error
			}
			sq := ar.sqs.Alloc()
			sq.Left, sq.Right, sq.Value = linePos(fp.i), linePos(j), fp.src[fp.i+1:j]
			ar.stackParts = append(ar.stackParts, sq)
			fp.i = j + 1
		case c == '"':
			dq, ok := fp.dblQuoted()
			if !ok {
				return nil, false
			}
			ar.stackParts = append(ar.stackParts, dq)
		default:
			return fp.cutWord(parts), true
		}
	}
	return fp.cutWord(parts), true
}

// dblQuoted reads a double-quoted string of text, parameters and command substitutions.
func (fp *fastParser) dblQuoted() (*syntax.DblQuoted, bool) {
	ar, src := fp.ar, fp.src
	dq := ar.dqs.Alloc()
	dq.Left = linePos(fp.i)
	parts := len(ar.stackParts)
	k := fp.i + 1
	text := k
	for {
		if k == len(src) {
			return nil, false // unterminated: mvdan.cc/sh reports the error
		}
		b := src[k]
		if b == '"' {
			break
		}
		if b == '$' {
			if k > text {
				ar.stackParts = append(ar.stackParts, fp.lit(text, k))
			}
			fp.i = k
			p, ok := fp.dollar()
			if !ok {
				return nil, false
			}
			ar.stackParts = append(ar.stackParts, p)
			k, text = fp.i, fp.i
			continue
		}
		if !quotedOK[b] || b == '`' || b == '\\' || b == '!' {
			return nil, false
		}
		k++
	}
	if k > text {
		ar.stackParts = append(ar.stackParts, fp.lit(text, k))
	}
	dq.Right = linePos(k)
	if len(ar.stackParts) > parts {
		dq.Parts = pop(&ar.stackParts, parts, &ar.parts)
	}
	fp.i = k + 1
	return dq, true
}

// dollar reads what a $ starts: a parameter or a command substitution.
func (fp *fastParser) dollar() (syntax.WordPart, bool) {
	if fp.i+1 < len(fp.src) && fp.src[fp.i+1] == '(' {
		return fp.cmdSubst()
	}
	return fp.param()
}

// cmdSubst reads $(list); $((arithmetic)) and an empty $() are left to mvdan.cc/sh.
func (fp *fastParser) cmdSubst() (*syntax.CmdSubst, bool) {
	left := fp.i
	if fp.i+2 < len(fp.src) && fp.src[fp.i+2] == '(' {
		return nil, false
	}
	fp.i += 2
	fp.depth++
	stmts, ok := fp.list(false)
	fp.depth--
	if !ok || fp.i == len(fp.src) || fp.src[fp.i] != ')' {
		return nil, false
	}
	cs := fp.ar.substs.Alloc()
	cs.Left, cs.Right, cs.Stmts = linePos(left), linePos(fp.i), stmts
	fp.i++
	return cs, true
}

// param reads $NAME or ${NAME} at fp.i; anything else after $ (special parameters, operators,
// substitutions) is left to mvdan.cc/sh.
func (fp *fastParser) param() (*syntax.ParamExp, bool) {
	src, i := fp.src, fp.i
	braced := i+1 < len(src) && src[i+1] == '{'
	start := i + 1
	if braced {
		start++
	}
	k := nameEnd(src, start)
	if k == start {
		return nil, false
	}
	pe := fp.ar.params.Alloc()
	pe.Dollar, pe.Param = linePos(i), fp.lit(start, k)
	if braced {
		if k == len(src) || src[k] != '}' {
			return nil, false
		}
		pe.Rbrace = linePos(k)
		fp.i = k + 1
		return pe, true
	}
	pe.Short = true
	fp.i = k
	return pe, true
}

func (fp *fastParser) lit(i, j int) *syntax.Lit {
	l := fp.ar.lits.Alloc()
	l.ValuePos, l.ValueEnd, l.Value = linePos(i), linePos(j), fp.src[i:j]
	return l
}

func (fp *fastParser) cutWord(parts int) *syntax.Word {
	w := fp.ar.words.Alloc()
	w.Parts = pop(&fp.ar.stackParts, parts, &fp.ar.parts)
	return w
}
