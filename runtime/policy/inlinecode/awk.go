package inlinecode

// awk finds the commands an awk program runs: system(CMD), print ... | CMD (and |& CMD, gawk's
// coprocess), and CMD | getline (and CMD |& getline). A command that is not a string literal (or
// literals side by side) is dynamic.
func (s *scanner) awk(src string, toks []token) {
	c := &calls{s: s, lang: Awk, src: src, toks: toks, tab: &table{juxtapose: true}}
	for i, t := range toks {
		switch {
		case t.k == kIdent && t.s == "system" && c.is(i+1, "(") && !c.is(i-1, "function"):
			args, end := c.args(i+2, ")")
			if len(args) > 0 {
				c.addValue(c.str(args[0]), c.text(i, end))
			}
		case t.k == kPunct && (t.s == "|" || t.s == "|&"):
			if c.ident(i+1) && toks[i+1].s == "getline" {
				k := i
				for k > 0 && !awkBoundary(toks[k-1]) {
					k--
				}
				c.addValue(c.str(toks[k:i]), c.text(k, i+2))
				continue
			}
			k := i + 1
			for k < len(toks) && !awkBoundary(toks[k]) {
				k++
			}
			c.addValue(c.str(toks[i+1:k]), c.text(i, k))
		}
	}
}

// awkBoundary reports a token that ends the expression of a pipe's command.
func awkBoundary(t token) bool {
	if t.k != kPunct {
		return t.k == kIdent && (t.s == "print" || t.s == "printf")
	}
	switch t.s {
	case ";", "{", "}", "\n", "(", ")", ",", "||", "&&", ">", ">>":
		return true
	}
	return false
}
