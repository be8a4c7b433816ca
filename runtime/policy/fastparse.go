package policy

import "mvdan.cc/sh/v3/syntax"

// fastParse builds, for the commonest shape of command, the syntax tree mvdan.cc/sh's bash parser builds,
// without running that parser: commands of plain words and quoted strings without expansions, joined by
// &&, || and | and ended by ;. It reports false for anything else (any expansion, escape, redirection,
// pattern, brace, comment, reserved word, assignment, newline, non-ASCII byte or syntax error), which is
// then left to mvdan.cc/sh. FuzzFastParse checks that every tree it builds is the one mvdan.cc/sh builds.
//
// It exists for speed: mvdan.cc/sh reads a script rune by rune through an io.Reader and takes 40-80 µs for
// a 1 KB command here, most of a shell-policy check.
//
// Its nodes come from the arena, which the caller resets once no tree it built is in use any more.
func fastParse(src string, ar *astArena) (*syntax.File, bool) {
	if len(src) > maxFastParse {
		return nil, false
	}
	fp := fastParser{src: src, ar: ar}
	stmts := len(ar.stmtPtrs)
	for {
		fp.skipBlanks()
		if fp.i == len(src) {
			break
		}
		st, ok := fp.andOr()
		if !ok {
			return nil, false
		}
		fp.skipBlanks()
		if fp.i < len(src) {
			if src[fp.i] != ';' || (fp.i+1 < len(src) && src[fp.i+1] == ';') {
				return nil, false
			}
			st.Semicolon = linePos(fp.i)
			fp.i++
		}
		ar.stmtPtrs = append(ar.stmtPtrs, st)
	}
	if len(ar.stmtPtrs) == stmts {
		return nil, false
	}
	f := ar.files.alloc()
	f.Stmts = ar.stmtPtrs[stmts:len(ar.stmtPtrs):len(ar.stmtPtrs)]
	return f, true
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
	for _, b := range []byte("_./,:@%+=^-") {
		c[b] = 2
	}
	for _, b := range []byte(";&|") {
		c[b] = 3
	}
	c['\''], c['"'] = 4, 4
	return c
}()

// quotedOK reports a byte allowed inside quotes: besides word and blank bytes, the punctuation that has no
// meaning there. Inside double quotes $ ` \ ! stay out (they are not handled); inside single quotes only '
// ends the string.
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
	src string
	i   int
	ar  *astArena
}

// astArena holds the nodes of the trees fastParse builds during one check, so that a check allocates
// nothing once the arena has grown to its commands' size. Nodes come from fixed-size chunks (a pointer to
// a node stays valid as the arena grows); slices are cut from shared buffers with their capacity capped
// (a buffer that grows is copied, and the slices already cut keep the old copy).
type astArena struct {
	files    chunked[syntax.File]
	stmts    chunked[syntax.Stmt]
	calls    chunked[syntax.CallExpr]
	bins     chunked[syntax.BinaryCmd]
	words    chunked[syntax.Word]
	lits     chunked[syntax.Lit]
	sqs      chunked[syntax.SglQuoted]
	dqs      chunked[syntax.DblQuoted]
	stmtPtrs []*syntax.Stmt
	args     []*syntax.Word
	parts    []syntax.WordPart
	dqParts  []syntax.WordPart // the one part of each non-empty double-quoted string
}

// reset makes every node available again, clearing what was used so that no tree outlives its check.
func (ar *astArena) reset() {
	ar.files.reset()
	ar.stmts.reset()
	ar.calls.reset()
	ar.bins.reset()
	ar.words.reset()
	ar.lits.reset()
	ar.sqs.reset()
	ar.dqs.reset()
	clear(ar.stmtPtrs)
	clear(ar.args)
	clear(ar.parts)
	clear(ar.dqParts)
	ar.stmtPtrs, ar.args, ar.parts, ar.dqParts = ar.stmtPtrs[:0], ar.args[:0], ar.parts[:0], ar.dqParts[:0]
}

const chunkSize = 64

// chunked hands out zeroed values of T from chunks of chunkSize.
type chunked[T any] struct {
	chunks [][]T
	n      int // values handed out
}

func (c *chunked[T]) alloc() *T {
	k, i := c.n/chunkSize, c.n%chunkSize
	if k == len(c.chunks) {
		c.chunks = append(c.chunks, make([]T, chunkSize))
	}
	c.n++
	return &c.chunks[k][i]
}

func (c *chunked[T]) reset() {
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
		if fp.i == len(fp.src) || fp.src[fp.i] == ';' {
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
	b := fp.ar.bins.alloc()
	b.OpPos, b.Op, b.X, b.Y = linePos(opPos), op, x, y
	st := fp.ar.stmts.alloc()
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

// command reads a simple command: words up to an operator or the end.
func (fp *fastParser) command() (*syntax.Stmt, bool) {
	start, args := fp.i, len(fp.ar.args)
	for {
		fp.skipBlanks()
		if fp.i == len(fp.src) || fastClass[fp.src[fp.i]] == 3 {
			break
		}
		if fastClass[fp.src[fp.i]] == 0 {
			return nil, false
		}
		w, ok := fp.word()
		if !ok {
			return nil, false
		}
		fp.ar.args = append(fp.ar.args, w)
	}
	if len(fp.ar.args) == args {
		return nil, false
	}
	// A first word that is a reserved word, a declaration or an assignment is not a plain command.
	first := fp.ar.args[args]
	for _, p := range first.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			for k := 0; k < len(l.Value); k++ {
				if l.Value[k] == '=' {
					return nil, false
				}
			}
		}
	}
	if reserved[first.Lit()] {
		return nil, false
	}
	call := fp.ar.calls.alloc()
	call.Args = fp.ar.args[args:len(fp.ar.args):len(fp.ar.args)]
	st := fp.ar.stmts.alloc()
	st.Cmd, st.Position = call, linePos(start)
	return st, true
}

// word reads adjacent plain text and quoted strings.
func (fp *fastParser) word() (*syntax.Word, bool) {
	ar := fp.ar
	parts := len(ar.parts)
	for fp.i < len(fp.src) {
		switch c := fp.src[fp.i]; fastClass[c] {
		case 2:
			j := fp.i
			for j < len(fp.src) && fastClass[fp.src[j]] == 2 {
				j++
			}
			ar.parts = append(ar.parts, fp.lit(fp.i, j))
			fp.i = j
		case 4:
			j := fp.i + 1
			for j < len(fp.src) && fp.src[j] != c {
				if !quotedOK[fp.src[j]] || (c == '"' && (fp.src[j] == '$' || fp.src[j] == '`' || fp.src[j] == '\\' || fp.src[j] == '!')) {
					return nil, false
				}
				j++
			}
			if j == len(fp.src) {
				return nil, false // unterminated: mvdan.cc/sh reports the error
			}
			if c == '\'' {
				sq := ar.sqs.alloc()
				sq.Left, sq.Right, sq.Value = linePos(fp.i), linePos(j), fp.src[fp.i+1:j]
				ar.parts = append(ar.parts, sq)
			} else {
				dq := ar.dqs.alloc()
				dq.Left, dq.Right = linePos(fp.i), linePos(j)
				if j > fp.i+1 {
					n := len(ar.dqParts)
					ar.dqParts = append(ar.dqParts, fp.lit(fp.i+1, j))
					dq.Parts = ar.dqParts[n : n+1 : n+1]
				}
				ar.parts = append(ar.parts, dq)
			}
			fp.i = j + 1
		default:
			return fp.cutWord(parts), true
		}
	}
	return fp.cutWord(parts), true
}

func (fp *fastParser) lit(i, j int) *syntax.Lit {
	l := fp.ar.lits.alloc()
	l.ValuePos, l.ValueEnd, l.Value = linePos(i), linePos(j), fp.src[i:j]
	return l
}

func (fp *fastParser) cutWord(parts int) *syntax.Word {
	w := fp.ar.words.alloc()
	w.Parts = fp.ar.parts[parts:len(fp.ar.parts):len(fp.ar.parts)]
	return w
}
