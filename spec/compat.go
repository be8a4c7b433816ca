package spec

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// The spec language is a public interface: a spec written against an earlier version keeps loading. Each
// change that would make a valid spec invalid (a key renamed, a value that changed shape) makes a new
// version of the language; the loader reads the earlier forms and converts them, before the JSON Schema
// and the typed decode, to the current form, with a note each that says how to update the spec
// (Variant.Notes, printed by `agentbash spec validate`). The JSON Schema (spec/schema.json) accepts the
// earlier forms too, marked deprecated, so that an editor does not flag a spec that loads. A spec may
// declare its version (spec_version); spec/testdata/compat/v<N> holds specs written against each version,
// which a test loads.
//
// Versions:
//
//	1: the first form (22 to 24 November 2026): disagreements and deviations as lists of strings; in the
//	   very first release, a timeout's on_null was spelt null.
//	2: disagreements and deviations as mappings (Disagreement, Deviation); on_null.

// SpecVersion is the current version of the spec language: what Variant.SpecVersion may be at most.
const SpecVersion = 2

// oldForm is a construct of an earlier version that the loader converts to the current form.
type oldForm struct {
	// last is the last version whose specs may use it.
	last int
	// find calls use for each use of the form in the document root (a mapping), with the node that holds
	// it, the node to report (its key, for a key) and its JSON pointer.
	find func(root *yaml.Node, use func(n, at *yaml.Node, ptr string))
	// convert rewrites one use in place (keeping positions) and returns the note that says how to update
	// it, or an error.
	convert func(n *yaml.Node) (note string, err error)
	// current says what to write instead (the error for a spec that declares a later version).
	current string
}

var oldForms = []oldForm{
	{
		last: 1,
		find: func(root *yaml.Node, use func(n, at *yaml.Node, ptr string)) {
			listStrings(root, "deviations", use)
		},
		convert: func(n *yaml.Node) (string, error) {
			toMapping(n, "topic", n.Value, "upstream", "", "ours", "", "why", "")
			return "a deviation written as a string is the spec_version 1 form: write it as a mapping " +
				"{topic, upstream, ours, why} (the text is read as its topic, the other keys empty)", nil
		},
		current: "write a deviation as a mapping {topic, upstream, ours, why}",
	},
	{
		last: 1,
		find: func(root *yaml.Node, use func(n, at *yaml.Node, ptr string)) {
			listStrings(root, "disagreements", use)
		},
		convert: func(n *yaml.Node) (string, error) {
			toMapping(n, "topic", n.Value, "upstream", "", "follow", "upstream")
			return "a disagreement written as a string is the spec_version 1 form: write it as a mapping " +
				"{topic, seed, upstream, follow, note} (the text is read as its topic, following upstream)", nil
		},
		current: "write a disagreement as a mapping {topic, seed, upstream, follow, note}",
	},
	{
		last: 1,
		find: func(root *yaml.Node, use func(n, at *yaml.Node, ptr string)) {
			tools := child(root, "tools")
			if tools == nil || tools.Kind != yaml.SequenceNode {
				return
			}
			for i, t := range tools.Content {
				if tm := child(resolveAlias(t), "timeout"); tm != nil && tm.Kind == yaml.MappingNode && keyNode(tm, "null") != nil {
					use(tm, keyNode(tm, "null"), "/tools/"+strconv.Itoa(i)+"/timeout/null")
				}
			}
		},
		convert: func(tm *yaml.Node) (string, error) {
			if keyNode(tm, "on_null") != nil {
				return "", fmt.Errorf("null is the spec_version 1 name of on_null: write on_null only")
			}
			k := keyNode(tm, "null")
			k.Value, k.Tag, k.Style = "on_null", "!!str", 0
			return "null is the spec_version 1 name of on_null: rename it", nil
		},
		current: "write on_null",
	},
}

// upgrade reads the spec_version a spec declares and converts the earlier forms it uses to the current
// form, in place: each conversion is a note; a form the declared version does not have is an error, and
// so is a version this package does not read. Positions are the original ones.
func upgrade(file string, root *yaml.Node) (notes, errs Errors) {
	if root.Kind != yaml.MappingNode {
		return nil, nil
	}
	declared := 0
	if n := child(root, "spec_version"); n != nil && n.Kind == yaml.ScalarNode {
		if v, err := strconv.Atoi(n.Value); err == nil {
			if v < 1 || v > SpecVersion {
				return nil, Errors{{File: file, Line: n.Line, Col: n.Column, Field: "spec_version",
					Msg: fmt.Sprintf("%d is not a version of the spec language that this agentbash reads (1 to %d; a later one needs a later agentbash)", v, SpecVersion)}}
			}
			declared = v
		}
	}
	for _, f := range oldForms {
		f.find(root, func(n, pos *yaml.Node, ptr string) {
			at := func(msg string) *Error {
				return &Error{File: file, Line: pos.Line, Col: pos.Column, Field: pointerToField(ptr), Msg: msg}
			}
			if declared > f.last {
				errs = append(errs, at(fmt.Sprintf("this is the spec_version %d form, and the spec declares spec_version %d: %s", f.last, declared, f.current)))
				return
			}
			note, err := f.convert(n)
			if err != nil {
				errs = append(errs, at(err.Error()))
				return
			}
			notes = append(notes, at(note))
		})
	}
	sortErrors(notes)
	sortErrors(errs)
	return notes, errs
}

// listStrings finds the scalar items of the list under key.
func listStrings(root *yaml.Node, key string, use func(n, at *yaml.Node, ptr string)) {
	list := child(root, key)
	if list == nil || list.Kind != yaml.SequenceNode {
		return
	}
	for i, item := range list.Content {
		if item = resolveAlias(item); item.Kind == yaml.ScalarNode && item.Tag == "!!str" {
			use(item, item, "/"+key+"/"+strconv.Itoa(i))
		}
	}
}

// toMapping turns a scalar node into a mapping of the given keys and string values, at its position.
func toMapping(n *yaml.Node, kv ...string) {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	for _, s := range kv {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Line: n.Line, Column: n.Column})
	}
	*n = *m
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// child is the value of key in a mapping node, or nil.
func child(m *yaml.Node, key string) *yaml.Node {
	m = resolveAlias(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return resolveAlias(m.Content[i+1])
		}
	}
	return nil
}

// keyNode is the key node of key in a mapping node, or nil.
func keyNode(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return nil
}

// Notes are what loading the spec said besides errors: each earlier form of the language it read,
// converted, with how to write it today (see SpecVersion).
func (v *Variant) Notes() Errors { return v.notes }
