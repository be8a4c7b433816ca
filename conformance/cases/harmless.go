package cases

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// readOnly are the commands an allowed policy example may run: they print, test or read, and neither
// write, delete, start other programs nor wait for ever (with stdin closed).
var readOnly = map[string]bool{
	"echo": true, "printf": true, "true": true, "false": true, ":": true, "pwd": true, "ls": true,
	"cat": true, "head": true, "wc": true, "grep": true, "basename": true, "dirname": true, "test": true,
	"[": true, "uname": true, "whoami": true, "id": true,
}

// Harmless returns nil when running command in a scratch workspace provably does no harm: it parses as
// shell, every command in it is a read-only command called by its bare name with literal words (no
// expansion, substitution, glob, escape, assignment or redirection other than duplicating stdout or
// stderr), no word names a path outside the workspace, and nothing runs in the background. Otherwise it
// says why not. The allowed examples of a policy are sent to a target only when they are harmless.
func Harmless(command string) error {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return fmt.Errorf("does not parse: %v", err)
	}
	if len(f.Stmts) == 0 {
		return errors.New("no command")
	}
	for _, st := range f.Stmts {
		if err := harmlessStmt(st); err != nil {
			return err
		}
	}
	return nil
}

func harmlessStmt(st *syntax.Stmt) error {
	if st.Background || st.Coprocess || st.Disown {
		return errors.New("runs something in the background")
	}
	for _, r := range st.Redirs {
		// Only 2>&1 and >&2 style duplications.
		if (r.Op != syntax.DplOut && r.Op != syntax.DplIn) || r.Word == nil {
			return errors.New("redirects to a file")
		}
		lit := r.Word.Lit()
		if lit != "1" && lit != "2" {
			return errors.New("redirects to a file")
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return harmlessCall(c)
	case *syntax.BinaryCmd:
		if c.Op != syntax.AndStmt && c.Op != syntax.OrStmt && c.Op != syntax.Pipe {
			return fmt.Errorf("uses %s", c.Op)
		}
		if err := harmlessStmt(c.X); err != nil {
			return err
		}
		return harmlessStmt(c.Y)
	case *syntax.Block:
		for _, s := range c.Stmts {
			if err := harmlessStmt(s); err != nil {
				return err
			}
		}
		return nil
	case *syntax.Subshell:
		for _, s := range c.Stmts {
			if err := harmlessStmt(s); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("uses a compound command (%T)", st.Cmd)
}

func harmlessCall(c *syntax.CallExpr) error {
	if len(c.Assigns) > 0 {
		return errors.New("assigns variables")
	}
	if len(c.Args) == 0 {
		return errors.New("empty command")
	}
	for i, w := range c.Args {
		s, err := literalWord(w)
		if err != nil {
			return err
		}
		if i == 0 && !readOnly[s] {
			return fmt.Errorf("runs %q, which is not one of the read-only commands %s", s,
				strings.Join(slices.Sorted(maps.Keys(readOnly)), " "))
		}
		if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.Contains(s, "..") {
			return fmt.Errorf("names a path outside the workspace: %q", s)
		}
	}
	return nil
}

// literalWord folds a word made only of literal text and quotes without expansions.
func literalWord(w *syntax.Word) (string, error) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, `\*?[]{}~`) {
				return "", fmt.Errorf("word %q has an escape, a glob or a brace", p.Value)
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", errors.New("uses $'...'")
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", errors.New(`uses $"..."`)
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.Contains(l.Value, `\`) {
					return "", errors.New("expands something inside double quotes")
				}
				b.WriteString(l.Value)
			}
		default:
			return "", fmt.Errorf("expands something (%T)", part)
		}
	}
	return b.String(), nil
}
