package spec

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// The policy library: policies that ship with agentbash and that a spec uses by name (`- use: NAME` under
// policies). Each is one file of spec/library, named after the policy, holding one Policy in YAML.

//go:embed library/*.yaml
var libraryFS embed.FS

// LibraryEntry describes a library policy.
type LibraryEntry struct {
	Name    string
	Kind    PolicyKind
	Summary string
}

var library struct {
	once    sync.Once
	raw     map[string][]byte
	entries []LibraryEntry
	err     error
}

func loadLibrary() {
	library.raw = map[string][]byte{}
	files, err := libraryFS.ReadDir("library")
	if err != nil {
		library.err = err
		return
	}
	for _, f := range files {
		data, err := libraryFS.ReadFile(path.Join("library", f.Name()))
		if err != nil {
			library.err = err
			return
		}
		name := strings.TrimSuffix(f.Name(), ".yaml")
		p, err := decodeLibraryPolicy(name, data)
		if err != nil {
			library.err = err
			return
		}
		library.raw[name] = data
		library.entries = append(library.entries, LibraryEntry{Name: name, Kind: p.Kind, Summary: p.Summary})
	}
	sort.Slice(library.entries, func(i, j int) bool { return library.entries[i].Name < library.entries[j].Name })
}

func decodeLibraryPolicy(name string, data []byte) (Policy, error) {
	var p Policy
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return Policy{}, fmt.Errorf("library policy %s: %v", name, err)
	}
	if p.Name != name || p.Use != "" {
		return Policy{}, fmt.Errorf("library policy %s: its name is %q and it uses %q (want its own name, no use)", name, p.Name, p.Use)
	}
	return p, nil
}

// Library lists the library policies, by name. It panics if the embedded library does not decode, which
// a test of this package rules out.
func Library() []LibraryEntry {
	library.once.Do(loadLibrary)
	if library.err != nil {
		panic(library.err)
	}
	return append([]LibraryEntry(nil), library.entries...)
}

// LibraryPolicy returns a copy of the library policy name (its own: changing it changes nothing else) as
// a spec that names it alone (`- use: NAME`) gets it: with its defaults filled (but Fail, which a
// variant fills).
func LibraryPolicy(name string) (Policy, bool) {
	p, ok := rawLibraryPolicy(name)
	if ok {
		p.fillDefaults()
	}
	return p, ok
}

// rawLibraryPolicy is the library policy as written: what a use adjusts before Complete fills it.
func rawLibraryPolicy(name string) (Policy, bool) {
	library.once.Do(loadLibrary)
	data, ok := library.raw[name]
	if !ok || library.err != nil {
		return Policy{}, false
	}
	p, err := decodeLibraryPolicy(name, data)
	return p, err == nil
}

// ResolvePolicy returns p itself when it uses no library policy, else the library policy it names adjusted
// by p's fields as Policy.Use says. The error names an unknown policy (with the nearest name) or a kind
// that differs from the library policy's.
func ResolvePolicy(p Policy) (Policy, error) {
	if p.Use == "" {
		return p, nil
	}
	lib, ok := rawLibraryPolicy(p.Use)
	if !ok {
		return Policy{}, unknownLibraryPolicy(p.Use)
	}
	if p.Kind != "" && p.Kind != lib.Kind {
		return Policy{}, fmt.Errorf("library policy %s is of kind %s, not %s", p.Use, lib.Kind, p.Kind)
	}
	var libWrappers int
	if lib.Shell != nil {
		libWrappers = len(lib.Shell.Wrappers)
	}
	over := p
	over.Use = ""
	overlay(reflect.ValueOf(&lib).Elem(), reflect.ValueOf(over))
	if lib.Shell != nil && p.Shell != nil && len(p.Shell.Wrappers) > 0 {
		lib.Shell.Wrappers = replaceWrappers(lib.Shell.Wrappers, libWrappers)
	}
	return lib, nil
}

// overlay sets the fields src gives on dst: a value replaces, a list is appended, a struct (or a pointer
// to one) is overlaid field by field.
func overlay(dst, src reflect.Value) {
	for i := 0; i < src.NumField(); i++ {
		d, s := dst.Field(i), src.Field(i)
		if !d.CanSet() || s.IsZero() {
			continue
		}
		switch s.Kind() {
		case reflect.Slice:
			d.Set(reflect.AppendSlice(d, s))
		case reflect.Pointer:
			if d.IsNil() || s.Elem().Kind() != reflect.Struct {
				d.Set(s)
				continue
			}
			overlay(d.Elem(), s.Elem())
		case reflect.Struct:
			overlay(d, s)
		default:
			d.Set(s)
		}
	}
}

// replaceWrappers drops, from the first n (the library's), the names that a later wrapper (the spec's)
// describes, and the wrappers left with no name.
func replaceWrappers(ws []ShellWrapper, n int) []ShellWrapper {
	given := map[string]bool{}
	for _, w := range ws[n:] {
		for _, name := range w.Names {
			given[name] = true
		}
	}
	var out []ShellWrapper
	for i, w := range ws {
		if i < n {
			var names []string
			for _, name := range w.Names {
				if !given[name] {
					names = append(names, name)
				}
			}
			if len(names) == 0 {
				continue
			}
			w.Names = names
		}
		out = append(out, w)
	}
	return out
}

func unknownLibraryPolicy(name string) error {
	var names []string
	for _, e := range Library() {
		names = append(names, e.Name)
	}
	msg := fmt.Sprintf("no library policy %q", name)
	if near := Nearest(name, names); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return errors.New(msg + "; the library has " + strings.Join(names, ", "))
}

// resolveLibrary resolves the policies of v that use a library policy, in place, and checks that every
// other policy has a name and a kind. Errors are positioned at the field at fault.
func (v *Variant) resolveLibrary() Errors {
	var errs Errors
	at := func(pointer, format string, args ...any) {
		errs = append(errs, v.ErrorAt(pointer, format, args...))
	}
	for i := range v.Policies {
		p := &v.Policies[i]
		ptr := "/policies/" + strconv.Itoa(i)
		if p.Use == "" {
			if p.Name == "" {
				at(ptr, "a policy needs a name (or use, to take a library policy's)")
			}
			if p.Kind == "" {
				at(ptr, "a policy needs a kind (or use, to take a library policy's)")
			}
			continue
		}
		r, err := ResolvePolicy(*p)
		if err != nil {
			if p.Kind != "" && strings.Contains(err.Error(), "of kind") {
				at(ptr+"/kind", "%v", err)
			} else {
				at(ptr+"/use", "%v", err)
			}
			continue
		}
		*p = r
	}
	return errs
}
