package gen

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

func TestTagValue(t *testing.T) {
	cases := []struct {
		typ  spec.Type
		v    any
		want string
	}{
		{"integer", 120, "120"},
		{"integer", 30000.0, "30000"},
		{"number", 0.5, "0.5"},
		{"number", 2, "2"},
		{"boolean", true, "true"},
		{"string", "a,b", `a\,b`},
		{"string", "k=v", "k=v"},
	}
	for _, c := range cases {
		if got := tagValue(c.typ, c.v); got != c.want {
			t.Errorf("tagValue(%s, %v) = %q; want %q", c.typ, c.v, got, c.want)
		}
	}
}

func TestWrap(t *testing.T) {
	long := strings.Repeat("word ", 40)
	got := wrap("First line.\n\n" + long + "\nuse ``None`` here")
	lines := strings.Split(got, "\n")
	if lines[0] != "// First line." || lines[1] != "//" {
		t.Errorf("paragraphs: %q", lines[:2])
	}
	for _, l := range lines {
		if len(l) > 103 {
			t.Errorf("line too long (%d): %q", len(l), l)
		}
	}
	if last := lines[len(lines)-1]; last != "// use `None` here" {
		t.Errorf("last line %q", last)
	}
}

func TestSpecOutsideThePackage(t *testing.T) {
	v, err := spec.Load("testdata/golden/text/text.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"../t.yaml", "/abs/t.yaml", ".."} {
		if _, err := Generate(v, Config{SpecFile: file}); err == nil || !strings.Contains(err.Error(), "must be inside the output's directory") {
			t.Errorf("SpecFile %s: %v", file, err)
		}
	}
	if _, err := Generate(v, Config{}); err == nil {
		t.Error("an empty SpecFile was accepted")
	}
}

func TestReadableJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a":1,"b":"x, y: z"}`, `{"a": 1, "b": "x, y: z"}`},
		{`["<",">"]`, `["<", ">"]`},
		{`"s"`, `"s"`},
		{`{"k":"` + strings.Repeat("v", 100) + `","n":{"m":[1,2]}}`, "{\n  \"k\": \"" + strings.Repeat("v", 100) + "\",\n  \"n\": {\"m\": [1, 2]}\n}"},
		{`{"q":"a\\\"b,c"}`, `{"q": "a\\\"b,c"}`},
	}
	for _, c := range cases {
		if got := readableJSON([]byte(c.in)); got != c.want {
			t.Errorf("readableJSON(%s) =\n%s\nwant\n%s", c.in, got, c.want)
		}
	}
}
