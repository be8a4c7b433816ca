package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentbash/agentbash/internal/jsonenc"
)

// maxDiffs bounds the differences listed for one case.
const maxDiffs = 12

// Compare compares two masked answers, want (the reference's) and got (the target's): JSON structurally
// (key order ignored, numbers by value), texts byte-exact. It returns "" when they agree, otherwise a
// readable description of every difference (at most a dozen).
func Compare(want, got Masked) string {
	full, _ := compare(want, got)
	return full
}

// compare is Compare, and the first difference on one line (`$.stdout: want "a\n" got "b\n"`).
func compare(want, got Masked) (string, string) {
	var d differ
	switch {
	case got.Invalid != "":
		d.add("$", "the result is not valid JSON: "+clip(got.Invalid, 200))
	case want.Error != nil && got.Error != nil:
		if want.Error.Type != got.Error.Type {
			d.add("error.type", fmt.Sprintf("want %q, got %q", want.Error.Type, got.Error.Type))
		}
		if want.Error.Message != got.Error.Message {
			d.add("error.message", textDiff(want.Error.Message, got.Error.Message), want.Error.Message, got.Error.Message)
		}
	case want.Error != nil:
		d.add("$", fmt.Sprintf("want the error %s: %s\ngot the result %s", want.Error.Type,
			clip(want.Error.Message, 300), clip(show(got.Result), 300)))
	case got.Error != nil:
		d.add("$", fmt.Sprintf("want the result %s\ngot the error %s: %s", clip(show(want.Result), 300),
			got.Error.Type, clip(got.Error.Message, 300)))
	case want.HasResult != got.HasResult:
		d.add("$", fmt.Sprintf("want %s, got %s", clip(show(want.Result), 300), clip(show(got.Result), 300)))
	default:
		d.value("$", want.Result, got.Result)
	}
	return d.String(), d.first
}

type differ struct {
	lines []string
	more  int
	first string // the first difference, on one line
}

// headline is a difference on one line: the path and, for two texts, the first line where they differ.
func headline(path, what string, texts ...string) string {
	if len(texts) == 2 {
		w, g := texts[0], texts[1]
		wl, gl := splitLines(w), splitLines(g)
		i := 0
		for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
			i++
		}
		line := func(ls []string) string {
			if i < len(ls) {
				return strconv.Quote(clip(ls[i], 120))
			}
			return "(nothing)"
		}
		return fmt.Sprintf("%s: want %s got %s", path, line(wl), line(gl))
	}
	first, _, _ := strings.Cut(what, "\n")
	return path + ": " + first
}

func (d *differ) add(path, what string, texts ...string) {
	if d.first == "" {
		d.first = headline(path, what, texts...)
	}
	if len(d.lines) >= maxDiffs {
		d.more++
		return
	}
	if strings.Contains(what, "\n") {
		d.lines = append(d.lines, path+":\n"+indent(what, "    "))
		return
	}
	d.lines = append(d.lines, path+": "+what)
}

func (d *differ) String() string {
	if len(d.lines) == 0 {
		return ""
	}
	s := strings.Join(d.lines, "\n")
	if d.more > 0 {
		s += fmt.Sprintf("\n(%d more differences)", d.more)
	}
	return s
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// show renders a masked JSON value on one line.
func show(v any) string {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func (d *differ) value(path string, want, got any) {
	if kind(want) != kind(got) {
		d.add(path, fmt.Sprintf("want %s %s, got %s %s", kind(want), clip(show(want), 200), kind(got), clip(show(got), 200)))
		return
	}
	switch w := want.(type) {
	case string:
		if g := got.(string); w != g {
			d.add(path, textDiff(w, g), w, g)
		}
	case json.Number:
		if g := got.(json.Number); !sameNumber(w, g) {
			d.add(path, fmt.Sprintf("want %s, got %s", w, g))
		}
	case bool:
		if g := got.(bool); w != g {
			d.add(path, fmt.Sprintf("want %t, got %t", w, g))
		}
	case []any:
		g := got.([]any)
		if len(w) != len(g) {
			d.add(path, fmt.Sprintf("want %d elements, got %d", len(w), len(g)))
		}
		for i := range min(len(w), len(g)) {
			d.value(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])
		}
	case map[string]any:
		g := got.(map[string]any)
		keys := slices.Sorted(maps.Keys(w))
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				d.add(path+"."+k, fmt.Sprintf("missing (want %s)", clip(show(w[k]), 200)))
				continue
			}
			d.value(path+"."+k, w[k], gv)
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[k]; !ok {
				d.add(path+"."+k, fmt.Sprintf("unexpected (got %s)", clip(show(g[k]), 200)))
			}
		}
	}
}

// sameNumber compares two JSON numbers by value (1 and 1.0 agree; 1 and 1.5 do not).
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, ok1 := new(big.Rat).SetString(string(a))
	y, ok2 := new(big.Rat).SetString(string(b))
	return ok1 && ok2 && x.Cmp(y) == 0
}

// textDiff describes how got differs from want: sizes, the first difference, and a line diff for texts of
// a reasonable size.
func textDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	line := strings.Count(want[:i], "\n") + 1
	col := i - strings.LastIndex(want[:i], "\n")
	head := fmt.Sprintf("texts differ at byte %d (line %d, column %d); want %d bytes, got %d bytes", i, line, col, len(want), len(got))
	wl, gl := splitLines(want), splitLines(got)
	if len(wl) <= 400 && len(gl) <= 400 && len(want) <= 64<<10 && len(got) <= 64<<10 {
		return head + "\n" + lineDiff(wl, gl)
	}
	lo := max(0, i-60)
	return fmt.Sprintf("%s\n- ...%s...\n+ ...%s...", head, showLine(want[lo:min(len(want), i+60)]),
		showLine(got[lo:min(len(got), i+60)]))
}

// splitLines cuts a text after each newline; a text ending in one has no empty last line.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineDiff is a unified-style diff ("-" want, "+" got) with two lines of context.
func lineDiff(a, b []string) string {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte
		text string
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i]})
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	keep := make([]bool, len(ops))
	for k, o := range ops {
		if o.kind != ' ' {
			for c := max(0, k-2); c <= min(len(ops)-1, k+2); c++ {
				keep[c] = true
			}
		}
	}
	var out []string
	skipped := false
	for k, o := range ops {
		if !keep[k] {
			skipped = true
			continue
		}
		if skipped && len(out) > 0 {
			out = append(out, "  ...")
		}
		skipped = false
		out = append(out, string(o.kind)+" "+showLine(o.text))
		if len(out) > 60 {
			out = append(out, "  (diff cut)")
			break
		}
	}
	return strings.Join(out, "\n")
}

// showLine shows one line of text: as is when it is plain, quoted when it has control characters,
// invalid UTF-8 or white space at an end, cut when it is long.
func showLine(s string) string {
	body := strings.TrimSuffix(s, "\n")
	plain := utf8.ValidString(body) && strings.TrimSpace(body) == body
	for _, r := range body {
		if unicode.IsControl(r) || r == utf8.RuneError {
			plain = false
		}
	}
	if len(body) > 160 {
		body, plain = body[:160]+"...", false
	}
	if plain {
		return body
	}
	return strconv.Quote(body)
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
