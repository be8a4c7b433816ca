package docs_test

// The examples in docs/spec.md (and any in README.md) are tests:
//
//   - every ```yaml block is marked `yaml spec` (a complete spec; `yaml spec FILE` also names the file it is,
//     for readme_test.go) or `yaml fragment` (a piece of one whose
//     first line says where it goes: `# in: PATH` sets the value at PATH, `# into: PATH` sets each key of
//     the fragment's mapping into the mapping at PATH, `.` being the root); a fragment is embedded into the
//     base spec, the first `yaml spec` block of docs/spec.md's "A complete example". Each spec is loaded with spec.Parse, compiled
//     with runtime.New, as `agentbash spec validate` does, and rendered with gen.Generate, as `agentbash
//     gen` does;
//   - a ```text notes block after a `yaml spec` block is what loading that spec notes on the earlier forms
//     of the language it uses, one note a line (line:col: field: message); a spec without one has none;
//   - a ```json params block (optionally naming a tool: `json params BashOutput`) is a call to the spec of
//     the nearest yaml block above it; the block right after it is what the host receives: ```json result
//     (the result value), ```text result (a text result, without its final newline), ```json error (the
//     raised error, {"type", "message"}) or ```json rpc_error (a JSON-RPC error, {"code", "message"}). Calls run in a fresh workspace holding a directory src and a file
//     notes.txt, and the workspace path is shown as /project;
//   - <!-- fields: TYPE --> tables list exactly the yaml fields of the spec type TYPE, and every struct
//     type of the spec language has one; the <!-- data --> table lists exactly the fields of spec.Data; the
//     <!-- funcs --> table lists exactly spec.Funcs, and each row's example renders to the row's result; the
//     <!-- policy-data --> table lists exactly the fields of policy.Data.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentbash/agentbash/gen"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate"
)

const specDoc = "spec.md"

// docs are the markdown files whose examples are checked, relative to this directory.
var docs = []string{specDoc, "../README.md"}

// block is a fenced code block.
type block struct {
	file string
	line int    // line of the opening fence, 1-based
	info string // the info string after the fence: "yaml spec", "json params Bash"
	text string // the content, each line ending in "\n"
}

func (b block) String() string { return fmt.Sprintf("%s:%d", filepath.Base(b.file), b.line) }

func (b block) words() []string { return strings.Fields(b.info) }

var fence = regexp.MustCompile("^( {0,3})(```+|~~~+)[ \t]*(.*)$")

// readBlocks returns the fenced code blocks of a markdown file.
func readBlocks(t *testing.T, file string) ([]block, []string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []block
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, marker := len(m[1]), m[2]
		b := block{file: file, line: i + 1, info: strings.TrimSpace(m[3])}
		var body strings.Builder
		closed := false
		for i++; i < len(lines); i++ {
			l := lines[i]
			if c := fence.FindStringSubmatch(l); c != nil && c[3] == "" && strings.HasPrefix(c[2], marker[:1]) && len(c[2]) >= len(marker) {
				closed = true
				break
			}
			for k := 0; k < indent && strings.HasPrefix(l, " "); k++ {
				l = l[1:]
			}
			body.WriteString(l)
			body.WriteByte('\n')
		}
		if !closed {
			t.Fatalf("%s: code block is not closed", b)
		}
		b.text = body.String()
		out = append(out, b)
	}
	return out, lines
}

// example is a yaml block with the calls made to its spec.
type example struct {
	block
	calls []call
	// notes is the `text notes` block after the spec: the notes loading it gives on earlier forms of the
	// language, one a line as line:col: field: message.
	notes *block
	// bad marks a yaml block that is not marked spec or fragment: its calls are not run.
	bad bool
}

type call struct {
	params block
	want   block
}

// collect sorts a file's blocks into examples and checks that every yaml and json block is one the test
// understands.
func collect(t *testing.T, blocks []block) []*example {
	t.Helper()
	var out []*example
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		w := b.words()
		if len(w) == 0 {
			continue
		}
		switch w[0] {
		case "yaml", "yml":
			bad := (len(w) != 2 || (w[1] != "spec" && w[1] != "fragment")) && (len(w) != 3 || w[1] != "spec")
			if bad {
				t.Errorf("%s: a yaml block is marked `yaml spec [FILE]` or `yaml fragment`, not %q", b, b.info)
			}
			out = append(out, &example{block: b, bad: bad})
		case "json":
			if fileBlock(b) != "" {
				continue // a file of README.md's conventions (readme_test.go)
			}
			if len(w) < 2 || w[1] != "params" || len(w) > 3 {
				t.Errorf("%s: a json block is `json params [TOOL]` followed by its result or error, not %q", b, b.info)
				continue
			}
			if len(out) == 0 {
				t.Errorf("%s: a call needs a yaml block above it", b)
				continue
			}
			if i+1 == len(blocks) {
				t.Errorf("%s: a call needs a result or error block after it", b)
				continue
			}
			next := blocks[i+1]
			switch next.info {
			case "json result", "json error", "json rpc_error", "text result":
			default:
				t.Errorf("%s: the block after a call is `json result`, `json error` or `text result`, not %q", next, next.info)
				continue
			}
			ex := out[len(out)-1]
			ex.calls = append(ex.calls, call{params: b, want: next})
			i++
		case "text":
			switch {
			case len(w) == 2 && w[1] == "notes":
				if len(out) == 0 || out[len(out)-1].bad || out[len(out)-1].words()[1] != "spec" || out[len(out)-1].notes != nil {
					t.Errorf("%s: the notes follow a `yaml spec` block, once", b)
					continue
				}
				out[len(out)-1].notes = &blocks[i]
			case len(w) > 1:
				t.Errorf("%s: a text result follows a `json params` block", b)
			}
		}
	}
	return out
}

func TestExamples(t *testing.T) {
	var base *example
	type fileExamples struct {
		file string
		exs  []*example
	}
	var all []fileExamples
	for _, f := range docs {
		if _, err := os.Stat(f); errors.Is(err, os.ErrNotExist) && f != specDoc {
			continue
		}
		blocks, lines := readBlocks(t, f)
		exs := collect(t, blocks)
		all = append(all, fileExamples{f, exs})
		if f == specDoc {
			// The base is the spec of "A complete example" (the first spec, in "Your first spec", is a file
			// of examples/).
			at := 0
			for i, l := range lines {
				if l == "## A complete example" {
					at = i + 1
				}
			}
			for _, ex := range exs {
				if !ex.bad && ex.words()[1] == "spec" && ex.line > at {
					base = ex
					break
				}
			}
		}
	}
	if base == nil {
		t.Fatal("docs/spec.md has no complete spec example (```yaml spec) to embed fragments into")
	}
	n := 0
	for _, fe := range all {
		for _, ex := range fe.exs {
			if ex.bad {
				continue
			}
			n++
			t.Run(ex.String(), func(t *testing.T) {
				t.Parallel()
				runExample(t, ex, base)
			})
		}
	}
	if n < 20 {
		t.Errorf("only %d yaml examples: every construct of the spec language needs one", n)
	}
}

func runExample(t *testing.T, ex *example, base *example) {
	var data []byte
	name := ex.String()
	if ex.words()[1] == "spec" {
		data = []byte(ex.text)
	} else {
		var where string
		var err error
		data, where, err = embed([]byte(base.text), ex.text)
		if err != nil {
			t.Fatalf("%s: fragment: %v", ex, err)
		}
		name = fmt.Sprintf("%s (fragment %s, embedded in the spec at %s)", ex, where, base)
	}
	v, err := spec.Parse(name, data)
	if err != nil {
		var errs spec.Errors
		if ex.words()[1] == "spec" && errors.As(err, &errs) {
			// Point at the markdown line: the spec starts on the line after the fence.
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, fmt.Sprintf("%s:%d: %s: %s", filepath.Base(ex.file), ex.line+e.Line, e.Field, e.Msg))
			}
			t.Fatalf("example does not load:\n%s", strings.Join(msgs, "\n"))
		}
		t.Fatalf("example does not load:\n%v", err)
	}
	var notes strings.Builder
	for _, n := range v.Notes() {
		fmt.Fprintf(&notes, "%d:%d: %s: %s\n", n.Line, n.Col, n.Field, n.Msg)
	}
	if ex.notes != nil && notes.String() != ex.notes.text || ex.notes == nil && notes.Len() > 0 {
		t.Errorf("%s: loading notes\n%sthe docs say\n%v", name, notes.String(), ex.notes)
	}
	if _, err := gen.Generate(v, gen.Config{SpecFile: v.ID + ".yaml"}); err != nil {
		t.Errorf("%s: example loads but the generator rejects it: %v", name, err)
	}
	ws := workspace(t)
	eng, err := runtime.New(v, runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatalf("%s: example loads but does not compile: %v", name, err)
	}
	defer eng.Close()
	for _, c := range ex.calls {
		runCall(t, eng, v, ws, c)
	}
}

// workspace makes the workspace calls run in, named project (the name a single workspace goes by): a
// directory src and a file notes.txt.
func workspace(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "project")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runCall(t *testing.T, eng *runtime.Engine, v *spec.Variant, ws string, c call) {
	t.Helper()
	tool := v.Tools[0].Name
	if w := c.params.words(); len(w) == 3 {
		tool = w[2]
	}
	params := json.RawMessage(c.params.text)
	if !json.Valid(params) {
		t.Errorf("%s: params are not JSON", c.params)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := eng.Call(ctx, tool, params)
	var got string
	var te *runtime.ToolError
	var rpc *runtime.RPCError
	switch {
	case err == nil:
		if c.want.info == "text result" {
			var s string
			if uerr := json.Unmarshal(res, &s); uerr != nil {
				t.Errorf("%s: the result is not a text: %s", c.params, res)
				return
			}
			got = s
		} else {
			got = string(res)
		}
	case errors.As(err, &te):
		b, _ := json.Marshal(te)
		got = string(b)
	case errors.As(err, &rpc):
		b, _ := json.Marshal(map[string]any{"code": rpc.Code, "message": rpc.Message})
		got = string(b)
	default:
		t.Errorf("%s: call failed: %v", c.params, err)
		return
	}
	got = strings.ReplaceAll(got, ws, "/project")
	switch c.want.info {
	case "text result":
		want := strings.TrimSuffix(c.want.text, "\n")
		if err != nil {
			t.Errorf("%s: raised %s, the docs say it returns the text\n%s", c.params, got, want)
		} else if got != want {
			t.Errorf("%s: the result is\n%s\nthe docs say\n%s\n(as JSON: got %s, docs %s)", c.params, got, want, quote(got), quote(want))
		}
	case "json result", "json error", "json rpc_error":
		if (c.want.info != "json result") != (err != nil) || (c.want.info == "json rpc_error") != (rpc != nil) {
			t.Errorf("%s: got %s, the docs say (%s)\n%s", c.params, got, c.want.info, c.want.text)
			return
		}
		var g, w any
		if err := json.Unmarshal([]byte(c.want.text), &w); err != nil {
			t.Errorf("%s: not JSON: %v", c.want, err)
			return
		}
		if err := json.Unmarshal([]byte(got), &g); err != nil {
			t.Errorf("%s: the result is not JSON: %s", c.params, got)
			return
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: got\n%s\nthe docs say\n%s", c.want, got, strings.TrimSpace(c.want.text))
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// embed places a fragment into the base spec where its first line says: `# in: PATH` sets the value at
// PATH (a new key of a mapping, a replaced one, or a sequence index up to its length), `# into: PATH` sets
// each key of the fragment's mapping into the mapping at PATH (`.` is the root).
func embed(base []byte, frag string) ([]byte, string, error) {
	first, _, _ := strings.Cut(frag, "\n")
	var mode, path string
	for _, m := range []string{"in", "into"} {
		if p, ok := strings.CutPrefix(first, "# "+m+": "); ok {
			mode, path = m, strings.TrimSpace(p)
		}
	}
	if mode == "" {
		return nil, "", fmt.Errorf("the first line is not `# in: PATH` or `# into: PATH`: %q", first)
	}
	where := mode + " " + path
	var doc, fdoc yaml.Node
	if err := yaml.Unmarshal(base, &doc); err != nil {
		return nil, where, fmt.Errorf("base: %v", err)
	}
	if err := yaml.Unmarshal([]byte(frag), &fdoc); err != nil {
		return nil, where, err
	}
	if len(fdoc.Content) == 0 {
		return nil, where, errors.New("the fragment is empty")
	}
	root, value := doc.Content[0], fdoc.Content[0]
	value.HeadComment = ""
	steps, err := parsePath(path)
	if err != nil {
		return nil, where, err
	}
	if mode == "into" {
		target, err := walk(root, steps)
		if err != nil {
			return nil, where, err
		}
		if target.Kind != yaml.MappingNode || value.Kind != yaml.MappingNode {
			return nil, where, fmt.Errorf("into needs a mapping fragment and a mapping at %s", path)
		}
		for i := 0; i+1 < len(value.Content); i += 2 {
			setKey(target, value.Content[i], value.Content[i+1])
		}
	} else {
		if len(steps) == 0 {
			return nil, where, errors.New("`# in:` needs a path below the root (use `# into: .`)")
		}
		parent, err := walk(root, steps[:len(steps)-1])
		if err != nil {
			return nil, where, err
		}
		last := steps[len(steps)-1]
		switch {
		case last.index >= 0 && parent.Kind == yaml.SequenceNode:
			switch {
			case last.index < len(parent.Content):
				parent.Content[last.index] = value
			case last.index == len(parent.Content):
				parent.Content = append(parent.Content, value)
			default:
				return nil, where, fmt.Errorf("index %d is past the end of a sequence of %d", last.index, len(parent.Content))
			}
		case last.index < 0 && parent.Kind == yaml.MappingNode:
			setKey(parent, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last.key}, value)
		default:
			return nil, where, fmt.Errorf("%s does not lead to a mapping key or a sequence index", path)
		}
	}
	out, err := yaml.Marshal(&doc)
	return out, where, err
}

type step struct {
	key   string
	index int // -1 for a key
}

var pathStep = regexp.MustCompile(`^(?:\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\])`)

func parsePath(p string) ([]step, error) {
	if p == "." {
		return nil, nil
	}
	var out []step
	for rest := p; rest != ""; {
		m := pathStep.FindStringSubmatch(rest)
		if m == nil {
			return nil, fmt.Errorf("bad path %q at %q", p, rest)
		}
		if m[1] != "" {
			out = append(out, step{key: m[1], index: -1})
		} else {
			n, _ := strconv.Atoi(m[2])
			out = append(out, step{index: n})
		}
		rest = rest[len(m[0]):]
	}
	return out, nil
}

func walk(n *yaml.Node, steps []step) (*yaml.Node, error) {
	for _, s := range steps {
		switch {
		case s.index >= 0 && n.Kind == yaml.SequenceNode && s.index < len(n.Content):
			n = n.Content[s.index]
		case s.index < 0 && n.Kind == yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == s.key {
					next = n.Content[i+1]
				}
			}
			if next == nil {
				return nil, fmt.Errorf("the base spec has no key %q here", s.key)
			}
			n = next
		default:
			return nil, fmt.Errorf("the base spec has no %v here", s)
		}
	}
	return n, nil
}

func setKey(m, key, value *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key.Value {
			m.Content[i+1] = value
			return
		}
	}
	m.Content = append(m.Content, key, value)
}

// table returns the rows of the markdown table that follows the marker comment, as cells.
func table(t *testing.T, lines []string, marker string) [][]string {
	t.Helper()
	at := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == marker {
			if at >= 0 {
				t.Fatalf("%s:%d: %s appears twice", specDoc, i+1, marker)
			}
			at = i
		}
	}
	if at < 0 {
		return nil
	}
	i := at + 1
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	var rows [][]string
	for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
		rows = append(rows, splitRow(lines[i]))
	}
	if len(rows) < 3 {
		t.Fatalf("%s:%d: %s is not followed by a table with a header and rows", specDoc, at+1, marker)
	}
	return rows[2:] // header and delimiter row
}

// splitRow splits a table row on the pipes outside code spans.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(strings.TrimSuffix(l, "|"), "|")
	var cells []string
	var cur strings.Builder
	code := false
	for _, r := range l {
		switch {
		case r == '`':
			code = !code
		case r == '|' && !code:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteRune(r)
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

func spans(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

func docLines(t *testing.T) []string {
	t.Helper()
	_, lines := readBlocks(t, specDoc)
	return lines
}

// specTypes returns every struct type of the spec language, reached from spec.Variant, by name.
func specTypes() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var visit func(reflect.Type)
	visit = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || ty.PkgPath() != reflect.TypeFor[spec.Variant]().PkgPath() {
			return
		}
		if _, seen := out[ty.Name()]; seen {
			return
		}
		out[ty.Name()] = ty
		for i := 0; i < ty.NumField(); i++ {
			if f := ty.Field(i); f.IsExported() {
				visit(f.Type)
			}
		}
	}
	visit(reflect.TypeFor[spec.Variant]())
	return out
}

func yamlFields(ty reflect.Type) []string {
	var out []string
	for i := 0; i < ty.NumField(); i++ {
		f := ty.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, name)
	}
	return out
}

// compare reports the names missing from and extra in a documented list.
func compare(t *testing.T, what string, want, documented []string) {
	t.Helper()
	have := map[string]bool{}
	for _, n := range documented {
		if have[n] {
			t.Errorf("%s: %s is documented twice", what, n)
		}
		have[n] = true
	}
	for _, n := range want {
		if !have[n] {
			t.Errorf("%s: %s is not documented", what, n)
		}
		delete(have, n)
	}
	var extra []string
	for n := range have {
		extra = append(extra, n)
	}
	sort.Strings(extra)
	for _, n := range extra {
		t.Errorf("%s: %s is documented but does not exist", what, n)
	}
}

// TestFieldsDocumented: every yaml field of every spec type is in its type's table in docs/spec.md.
func TestFieldsDocumented(t *testing.T) {
	lines := docLines(t)
	types := specTypes()
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		marker := "<!-- fields: " + n + " -->"
		rows := table(t, lines, marker)
		if rows == nil {
			t.Errorf("spec.%s has no field table (%s) in %s", n, marker, specDoc)
			continue
		}
		var documented []string
		for _, r := range rows {
			documented = append(documented, spans(r[0])...)
		}
		compare(t, "spec."+n, yamlFields(types[n]), documented)
	}
	// A table for a type that no longer exists.
	for i, l := range lines {
		if m := regexp.MustCompile(`^<!-- fields: (\w+) -->$`).FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			if _, ok := types[m[1]]; !ok {
				t.Errorf("%s:%d: spec.%s is not a type of the spec language", specDoc, i+1, m[1])
			}
		}
	}
}

// TestTemplateDataDocumented: the data table lists exactly the fields of spec.Data.
func TestTemplateDataDocumented(t *testing.T) {
	dataTable(t, "<!-- data -->", reflect.TypeFor[spec.Data]())
}

// TestPolicyDataDocumented: the policy data table lists exactly the fields of policy.Data.
func TestPolicyDataDocumented(t *testing.T) {
	dataTable(t, "<!-- policy-data -->", reflect.TypeFor[policy.Data]())
}

// dataTable checks that the table after marker lists exactly the fields of a template data type, as .Name.
func dataTable(t *testing.T, marker string, ty reflect.Type) {
	t.Helper()
	rows := table(t, docLines(t), marker)
	if rows == nil {
		t.Fatalf("%s has no %s table", specDoc, marker)
	}
	var documented []string
	for _, r := range rows {
		for _, s := range spans(r[0]) {
			documented = append(documented, strings.TrimPrefix(s, "."))
		}
	}
	var want []string
	for i := 0; i < ty.NumField(); i++ {
		if ty.Field(i).IsExported() {
			want = append(want, ty.Field(i).Name)
		}
	}
	compare(t, ty.String(), want, documented)
}

// TestTemplateFuncsDocumented: the funcs table lists exactly spec.Funcs, each with an example that renders
// to the documented result.
func TestTemplateFuncsDocumented(t *testing.T) {
	rows := table(t, docLines(t), "<!-- funcs -->")
	if rows == nil {
		t.Fatalf("%s has no <!-- funcs --> table", specDoc)
	}
	var documented []string
	for _, r := range rows {
		if len(r) != 4 {
			t.Errorf("funcs row %q: want 4 cells (name, meaning, example, result)", r)
			continue
		}
		names := spans(r[0])
		documented = append(documented, names...)
		ex, res := spans(r[2]), spans(r[3])
		if len(ex) != len(res) || len(ex) == 0 {
			t.Errorf("funcs row %v: every example needs its result", names)
			continue
		}
		for i := range ex {
			tmpl, err := spec.ParseTemplate("doc", ex[i])
			if err != nil {
				t.Errorf("%s: %v", ex[i], err)
				continue
			}
			var b bytes.Buffer
			if err := tmpl.Execute(&b, spec.Data{}); err != nil {
				t.Errorf("%s: %v", ex[i], err)
				continue
			}
			if b.String() != res[i] {
				t.Errorf("%s renders %q, the docs say %q", ex[i], b.String(), res[i])
			}
		}
	}
	var want []string
	for n := range spec.Funcs {
		want = append(want, n)
	}
	compare(t, "spec.Funcs", want, documented)
}
