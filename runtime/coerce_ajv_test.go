package runtime

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// TestAjvCoerce: Ajv's coerceTypes, as JavaScript converts (String(), Number(), "true"/"false").
func TestAjvCoerce(t *testing.T) {
	for _, tc := range []struct {
		typ  spec.Type
		in   any
		want any
		ok   bool
	}{
		{spec.TypeString, json.Number("42"), "42", true},
		{spec.TypeString, json.Number("1.50"), "1.5", true},
		{spec.TypeString, json.Number("1e21"), "1e+21", true},
		{spec.TypeString, json.Number("1e-7"), "1e-7", true},
		{spec.TypeString, true, "true", true},
		{spec.TypeString, nil, "", true},
		{spec.TypeString, []any{"a"}, nil, false},
		{spec.TypeInteger, "10", json.Number("10"), true},
		{spec.TypeInteger, " 0x10 ", json.Number("16"), true},
		{spec.TypeInteger, "1e3", json.Number("1000"), true},
		{spec.TypeInteger, " ", json.Number("0"), true},
		{spec.TypeInteger, "", nil, false},
		{spec.TypeInteger, "1.5", nil, false},
		{spec.TypeInteger, "ten", nil, false},
		{spec.TypeInteger, "1_000", nil, false},
		{spec.TypeInteger, "Infinity", nil, false},
		{spec.TypeNumber, "1.5", json.Number("1.5"), true},
		{spec.TypeInteger, true, json.Number("1"), true},
		{spec.TypeInteger, nil, json.Number("0"), true},
		{spec.TypeBoolean, "true", true, true},
		{spec.TypeBoolean, "false", false, true},
		{spec.TypeBoolean, "yes", nil, false},
		{spec.TypeBoolean, json.Number("1"), true, true},
		{spec.TypeBoolean, json.Number("2"), nil, false},
		{spec.TypeBoolean, nil, false, true},
	} {
		got, ok := ajvCoerce(tc.typ, tc.in)
		if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("ajvCoerce(%s, %#v) = %#v, %v; want %#v, %v", tc.typ, tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
