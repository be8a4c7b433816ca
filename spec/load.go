package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is one problem in a spec file, at a position.
type Error struct {
	File      string
	Line, Col int
	// Field is the path of the field (tools[0].timeout.max), when known.
	Field string
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one spec, in file order.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Load reads, validates and checks the spec at path.
func Load(path string) (*Variant, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// LoadFS is Load for a file in fsys.
func LoadFS(fsys fs.FS, path string) (*Variant, error) {
	data, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes a spec: YAML syntax, then the JSON Schema (unknown keys, types, enums), then the typed
// decode, then the semantic checks. Every error names file:line:col and the field.
func Parse(file string, data []byte) (*Variant, error) { return parseSpec(file, data, true) }

// ParseEmbedded is Parse for a spec embedded in a program that was validated against the JSON Schema when
// it was embedded (a generated adapter's spec, whose tests and `gen -check` keep it so): it skips the JSON
// Schema, its compilation on first use and the check. The typed decode (unknown fields, types), the
// enumerations and every semantic check still run. (The built-in variants skip all of it: variants.Spec
// returns them compiled, see FromCompiled.)
func ParseEmbedded(file string, data []byte) (*Variant, error) { return parseSpec(file, data, false) }

func parseSpec(file string, data []byte, schema bool) (*Variant, error) {
	if len(data) > MaxSpecBytes {
		return nil, Errors{{File: file, Line: 1, Col: 1, Msg: fmt.Sprintf("the spec is %d bytes; a spec is at most %d", len(data), MaxSpecBytes)}}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, Errors{yamlError(file, err)}
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, Errors{{File: file, Line: 1, Col: 1, Msg: "empty spec"}}
	}
	// Earlier forms of the language are converted first: everything after reads the current form.
	notes, errs := upgrade(file, root.Content[0])
	if len(errs) > 0 {
		return nil, errs
	}
	// The walk bounds what anything after it reads: aliases are followed once per use with a cycle guard,
	// and the values they expand to count against the node budget, so an alias bomb ends here.
	w := &walker{pos: positions{}}
	if !w.walk(root.Content[0], "", 1) {
		w.err.File = file
		return nil, Errors{w.err}
	}
	pos := w.pos

	var unknown Errors
	unknownFields(root.Content[0], reflect.TypeOf(Variant{}), "", &unknown)
	if len(unknown) > 0 {
		for _, e := range unknown {
			e.File = file
		}
		sortErrors(unknown)
		return nil, unknown
	}

	if schema {
		inst, err := nodeToJSON(root.Content[0])
		if err != nil {
			e := yamlError(file, err)
			if e.Line == 0 {
				e.Line, e.Col = 1, 1
			}
			return nil, Errors{e}
		}
		if errs := validateSchema(file, inst, pos); len(errs) > 0 {
			return nil, errs
		}
	}

	// Every key is known (unknownFields): the tree decodes as it is, without a second parse.
	var v Variant
	if err := root.Content[0].Decode(&v); err != nil {
		e := yamlError(file, err)
		if e.Field == "" {
			e.Field = pos.fieldAt(e.Line, e.Col)
		}
		return nil, Errors{e}
	}
	v.File = file
	v.pos = pos.table()
	v.notes = notes
	if err := v.Complete(); err != nil {
		return nil, err
	}
	return &v, nil
}

// Pos returns the line and column of a field path (JSON pointer, /tools/0/name) in the file, or 0, 0.
func (v *Variant) Pos(pointer string) (line, col int) {
	for p := pointer; ; {
		if lc, ok := v.pos.get(p); ok {
			return lc[0], lc[1]
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return 0, 0
		}
		p = p[:i]
	}
}

// ErrorAt is an error about the value at a JSON pointer (/policies/0/rules/3/pattern), with the position
// of that value in the spec file (or of its nearest parent the file holds), for packages that find
// problems the loader cannot (a pattern a policy engine rejects).
func (v *Variant) ErrorAt(pointer, format string, args ...any) *Error {
	line, col := v.Pos(pointer)
	if lc, ok := v.pos.get(pointer + "#value"); ok {
		line, col = lc[0], lc[1]
	}
	return &Error{File: v.File, Line: line, Col: col, Field: pointerToField(pointer), Msg: fmt.Sprintf(format, args...)}
}

// FieldPointer turns a field path (rules[3].pattern) into a JSON pointer (/rules/3/pattern).
func FieldPointer(field string) string {
	if field == "" {
		return ""
	}
	r := strings.NewReplacer("[", "/", "]", "", ".", "/")
	return "/" + strings.TrimPrefix(r.Replace(field), "/")
}

// yamlError turns a yaml.v3 error ("yaml: line 3: ...", or an unmarshal error list) into an Error.
func yamlError(file string, err error) *Error {
	var se *Error
	if errors.As(err, &se) {
		e := *se
		e.File = file
		return &e
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	e := &Error{File: file, Msg: msg}
	if strings.HasPrefix(msg, "line ") {
		rest := msg[len("line "):]
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				e.Line, e.Col = n, 1
				e.Msg = strings.TrimSpace(rest[i+1:])
			}
		}
	}
	e.Msg = strings.Join(strings.Fields(e.Msg), " ") // one line per error
	if strings.Contains(e.Msg, "found character that cannot start any token") || strings.Contains(e.Msg, "found a tab character") {
		e.Msg += " (YAML indents with spaces, never tabs)"
	}
	return e
}

// Bounds on a spec, so that no input can exhaust the loader: each exceeded is an error at its position.
const (
	// MaxSpecBytes is the largest spec file (the built-ins are under 20 KB).
	MaxSpecBytes = 1 << 20
	// MaxDepth is the deepest nesting of mappings and sequences.
	MaxDepth = 64
	// MaxNodes is the most values a spec may hold, aliases expanded.
	MaxNodes = 100_000
)

// walker records the position of every value (and, for mapping keys, of the key) by JSON pointer, following
// aliases, within the bounds above.
type walker struct {
	pos   positions
	nodes int
	path  []*yaml.Node // the nodes being walked, outermost first: an alias to one of them is a cycle
	err   *Error
}

func (w *walker) fail(n *yaml.Node, path, format string, args ...any) bool {
	w.err = &Error{Line: n.Line, Col: n.Column, Field: pointerToField(path), Msg: fmt.Sprintf(format, args...)}
	return false
}

func (w *walker) walk(n *yaml.Node, path string, depth int) bool {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		for _, open := range w.path {
			if open == n.Alias {
				return w.fail(n, path, "alias *%s refers to a value that contains it", n.Value)
			}
		}
		n = n.Alias
	}
	if depth > MaxDepth {
		return w.fail(n, path, "values are nested deeper than %d levels", MaxDepth)
	}
	if w.nodes++; w.nodes > MaxNodes {
		return w.fail(n, path, "the spec holds more than %d values (aliases expanded)", MaxNodes)
	}
	if path == "" {
		w.pos[""] = [2]int{n.Line, n.Column}
	}
	w.path = append(w.path, n)
	defer func() { w.path = w.path[:len(w.path)-1] }()
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			p := path + "/" + escapePointer(k.Value)
			w.pos[p] = [2]int{k.Line, k.Column}
			w.pos[p+"#value"] = [2]int{val.Line, val.Column}
			if !w.walk(val, p, depth+1) {
				return false
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := path + "/" + strconv.Itoa(i)
			w.pos[p] = [2]int{c.Line, c.Column}
			if !w.walk(c, p, depth+1) {
				return false
			}
		}
	}
	return true
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return pointerEscaper.Replace(s)
}

// nodeToJSON converts a YAML document to the JSON value the schema validates.
func nodeToJSON(n *yaml.Node) (any, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	b, err := json.Marshal(normalizeYAML(v))
	if err != nil {
		return nil, fmt.Errorf("spec is not representable as JSON: %v", err)
	}
	var out any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

func normalizeYAML(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = normalizeYAML(x)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			key := fmt.Sprint(k)
			if k == nil {
				key = "null" // a key written null (spec_version 1's timeout null), as an editor reads it
			}
			m[key] = normalizeYAML(x)
		}
		return m
	case []any:
		for i, x := range t {
			t[i] = normalizeYAML(x)
		}
		return t
	}
	return v
}

// pointerToField renders /tools/0/timeout/max as tools[0].timeout.max.
func pointerToField(p string) string {
	if p == "" {
		return ""
	}
	var b strings.Builder
	for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		part = pointerUnescaper.Replace(part)
		if _, err := strconv.Atoi(part); err == nil {
			b.WriteString("[" + part + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(part)
	}
	return b.String()
}

func sortErrors(es Errors) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Line != es[j].Line {
			return es[i].Line < es[j].Line
		}
		return es[i].Col < es[j].Col
	})
}
