package shellexpand

import (
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// Field is one argument after expansion. It is kept small (most fields are plain words); what only
// dynamic, globbed or substituted fields need is in X.
type Field struct {
	Val  string  // the known text; dynamic parts contribute nothing
	Src  string  // the word as written
	Dyn  bool    // some part is only known at run time
	Glob bool    // unquoted pattern characters: pathname expansion applies
	X    *FieldX // nil for most fields
}

// FieldX is the rarely needed part of a field.
type FieldX struct {
	Pre string // dynamic fields: the known text before the first dynamic part
	Suf string // dynamic fields: the known text after the last dynamic part
	// Pat is the pattern form of a glob field: quoted text escaped, unquoted pattern characters kept.
	Pat   string
	Subst []syntax.Node     // command and process substitutions that produced parts
	Proc  *syntax.ProcSubst // the field is exactly one process substitution
}

// Ext is f.X, made when it is nil.
func (f *Field) Ext() *FieldX {
	if f.X == nil {
		f.X = &FieldX{}
	}
	return f.X
}

// Substs are the command and process substitutions that produced parts of the field.
func (f *Field) Substs() []syntax.Node {
	if f.X == nil {
		return nil
	}
	return f.X.Subst
}

// ProcSubst is the process substitution the field is made of, or nil.
func (f *Field) ProcSubst() *syntax.ProcSubst {
	if f.X == nil {
		return nil
	}
	return f.X.Proc
}

// Prefix is the known text before the first dynamic part (all of it for a known field).
func (f *Field) Prefix() string {
	if f.Dyn {
		if f.X == nil {
			return ""
		}
		return f.X.Pre
	}
	return f.Val
}

// Suffix is the known text after the last dynamic part (all of it for a known field).
func (f *Field) Suffix() string {
	if f.Dyn {
		if f.X == nil {
			return ""
		}
		return f.X.Suf
	}
	return f.Val
}

// Pattern is the field as a shell pattern (its known text quoted, unless it is a glob).
func (f *Field) Pattern() string {
	if f.Glob {
		return f.X.Pat
	}
	return pattern.QuoteMeta(f.Val, 0)
}

// Literal is a field of known text written as s.
func Literal(s string) Field {
	return Field{Val: s, Src: s}
}
