package jsonenc

import (
	"bytes"
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
