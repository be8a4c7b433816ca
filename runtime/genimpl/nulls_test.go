package genimpl

import "testing"

func TestSetNulls(t *testing.T) {
	for _, tc := range []struct {
		in    string
		names []string
		want  string // "" means an error
	}{
		{`{}`, []string{"timeout"}, `{"timeout":null}`},
		{`{"command":"ls"}`, []string{"timeout"}, `{"command":"ls","timeout":null}`},
		{`{"command":"ls"}`, []string{"timeout", "cwd"}, `{"command":"ls","timeout":null,"cwd":null}`},
		{` {"command":"ls"} `, nil, ` {"command":"ls"} `},
		{`{"command":"ls","timeout":5}`, []string{"timeout"}, ""},
		{`[1]`, []string{"timeout"}, ""},
		{`{"a":}`, []string{"timeout"}, ""},
		{`{}`, []string{`we"ird`}, `{"we\"ird":null}`},
	} {
		got, err := SetNulls([]byte(tc.in), tc.names...)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s %v: %s, want an error", tc.in, tc.names, got)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%s %v: %s, %v; want %s", tc.in, tc.names, got, err, tc.want)
		}
	}
}
