package spec

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// unknownFields finds every mapping key that the spec types do not have, each at its position with the
// nearest known name when one is close ("unknown field descripton; did you mean description?"). It runs
// before the JSON Schema, so an unknown key is reported alone rather than beside the missing key it was
// meant to be.
func unknownFields(n *yaml.Node, t reflect.Type, path string, errs *Errors) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return // the typed decode reports the wrong type
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Value == "<<" && k.Tag == "!!merge" {
				unknownFields(val, t, path, errs)
				continue
			}
			f, ok := fields[k.Value]
			if !ok {
				names := make([]string, 0, len(fields))
				for name := range fields {
					names = append(names, name)
				}
				msg := "unknown field " + strconv.Quote(k.Value)
				if near := Nearest(k.Value, names); near != "" {
					msg += "; did you mean " + near + "?"
				}
				*errs = append(*errs, &Error{Line: k.Line, Col: k.Column, Field: pointerToField(path), Msg: msg})
				continue
			}
			unknownFields(val, f.Type, path+"/"+escapePointer(k.Value), errs)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, c := range n.Content {
			unknownFields(c, t.Elem(), path+"/"+strconv.Itoa(i), errs)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Tag == "!!null" {
				*errs = append(*errs, &Error{Line: k.Line, Col: k.Column, Field: pointerToField(path),
					Msg: fmt.Sprintf("the key %s is YAML's null, not a string: quote it (%q)", k.Value, k.Value)})
				continue
			}
			unknownFields(n.Content[i+1], t.Elem(), path+"/"+escapePointer(n.Content[i].Value), errs)
		}
	}
}

var unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()

// yamlFields maps a struct's YAML keys to its fields.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if f.IsExported() && name != "" && name != "-" {
			out[name] = f
		}
	}
	return out
}

// Nearest returns the name closest to s by edit distance when it is close enough to be a likely typo (at
// most a third of s's length, and at most 3 edits), else "". Ties go to the name first in sorted order.
func Nearest(s string, names []string) string {
	best, bestD := "", 0
	for _, n := range names {
		d := editDistance(strings.ToLower(s), strings.ToLower(n))
		if d > 3 || d*3 > max(len(s), 3) {
			continue
		}
		if best == "" || d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (optimal string alignment) between two strings.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
