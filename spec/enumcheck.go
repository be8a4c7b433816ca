package spec

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// enums checks every field with an enumeration (its jsonschema enum tag, the one the JSON Schema is
// reflected from) against that enumeration: ParseEmbedded skips the JSON Schema, and a Variant built in Go
// never saw it.
func (c *checker) enums(v reflect.Value, ptr string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			c.enums(v.Elem(), ptr)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			c.enums(v.Index(i), ptr+"/"+strconv.Itoa(i))
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			c.enums(iter.Value(), ptr+"/"+escapePointer(iter.Key().String()))
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			fv := v.Field(i)
			if fv.Kind() == reflect.String && fv.String() != "" {
				if allowed := enumOf(f.Tag.Get("jsonschema")); allowed != nil && !slices.Contains(allowed, fv.String()) {
					c.errf(ptr+"/"+name, "%q is not one of %s", fv.String(), strings.Join(allowed, ", "))
				}
				continue
			}
			if fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String {
				if allowed := enumOf(f.Tag.Get("jsonschema")); allowed != nil {
					for j := 0; j < fv.Len(); j++ {
						if s := fv.Index(j).String(); !slices.Contains(allowed, s) {
							c.errf(ptr+"/"+name+"/"+strconv.Itoa(j), "%q is not one of %s", s, strings.Join(allowed, ", "))
						}
					}
					continue
				}
			}
			c.enums(fv, ptr+"/"+name)
		}
	}
}

// enumOf reads the values of a jsonschema tag's enum=... entries, or nil.
func enumOf(tag string) []string {
	var out []string
	for _, part := range strings.Split(tag, ",") {
		if v, ok := strings.CutPrefix(part, "enum="); ok {
			out = append(out, v)
		}
	}
	return out
}
