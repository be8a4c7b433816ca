package policy

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentbash/agentbash/runtime/policy/shellsyntax"
)

// bashParser parses a command line as bash for the engines that list its commands (permission
// subcommands, wildcard tables): shellsyntax.FastParse for the shapes it reads (the tree mvdan.cc/sh
// builds, without allocating once its arena has grown), else mvdan.cc/sh. Take one with getBashParser and
// give it back with put once no node of its tree is in use (strings cut from the command stay valid).
type bashParser struct {
	arena shellsyntax.Arena
	p     *syntax.Parser
}

var bashParsers = sync.Pool{New: func() any { return &bashParser{p: syntax.NewParser(syntax.Variant(syntax.LangBash))} }}

func getBashParser() *bashParser { return bashParsers.Get().(*bashParser) }

func (b *bashParser) parse(src string) (*syntax.File, error) {
	if f, ok := shellsyntax.FastParse(src, &b.arena); ok {
		return f, nil
	}
	return b.p.Parse(strings.NewReader(src), "")
}

func (b *bashParser) put() {
	b.arena.Reset()
	bashParsers.Put(b)
}
