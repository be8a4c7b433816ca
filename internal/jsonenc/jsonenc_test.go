package jsonenc

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestNoHTMLEscapingNoNewline(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"<a & b>", `"<a & b>"`},
		{map[string]any{"x": "1 > 0"}, `{"x":"1 > 0"}`},
		{[]int{1, 2}, `[1,2]`},
		{"\xff", `"\ufffd"`},
	}
	for _, tt := range tests {
		got, err := Marshal(tt.in)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	if got := String("a<b"); string(got) != `"a<b"` {
		t.Errorf("String = %s", got)
	}
	var b bytes.Buffer
	if err := Encode(&b, "<"); err != nil || b.String() != "\"<\"\n" {
		t.Errorf("Encode = %q, %v", b.String(), err)
	}
	got, err := MarshalIndent(map[string]string{"k": "&"}, "", " ")
	if err != nil || string(got) != "{\n \"k\": \"&\"\n}" {
		t.Errorf("MarshalIndent = %q, %v", got, err)
	}
}

func TestMarshalError(t *testing.T) {
	if _, err := Marshal(make(chan int)); err == nil {
		t.Fatal("Marshal(chan) succeeded")
	}
}

// FuzzAppendString holds AppendString to encoding/json's encoding of a string without HTML escaping.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>", "\"\\\b\f\n\r\t\x00\x1f\x7f", "\u2028\u2029", "\xff\xfe", "é\xc3", "a\xe2\x80", "日本\U0001F600"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		if got := AppendString([]byte("x"), s); string(got[1:]) != string(want) || got[0] != 'x' {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if got := String(s); string(got) != string(want) {
			t.Fatalf("String(%q) = %s, want %s", s, got, want)
		}
	})
}
