package textcap_test

import (
	"fmt"
	"strings"

	"github.com/agentbash/agentbash/runtime/textcap"
)

// A rye-style stream: strict decoding with universal newlines, then the first 16 bytes kept (51200 upstream)
// and the rest replaced by a marker giving the total.
func Example() {
	c := textcap.New(textcap.Config{Decode: textcap.Strict, Universal: true, Head: 16})
	c.Write([]byte("line one\r\nline two\r"))
	c.Write([]byte("\nline three: 10 €\r\n")) // the "\r\n" split across writes is one newline
	c.Close()
	s := c.Snapshot()
	text, truncated, err := s.Truncate(textcap.Limit{
		Unit: textcap.Bytes, Limit: 16, Keep: textcap.Head, CutDecode: textcap.Replace,
		Marker: func(total, _, _ int64) string { return fmt.Sprintf("\n... [output truncated, %d bytes total]", total) },
	})
	fmt.Printf("%q %v %v\n", text, truncated, err)
	// Output: "line one\nline tw\n... [output truncated, 37 bytes total]" true <nil>
}

// A tunacode-style result: a template around two captured streams, truncated as a whole in characters.
func ExampleRope() {
	cfg := textcap.Config{Decode: textcap.Replace, Strip: true, Unit: textcap.Chars, Head: 5000, Tail: 5000}
	stdout, stderr := textcap.New(cfg), textcap.New(cfg)
	stdout.Write([]byte(strings.Repeat("x", 6000) + "\n"))
	stderr.Write([]byte("  warning\n"))
	stdout.Close()
	stderr.Close()
	so, se := stdout.Snapshot(), stderr.Snapshot()
	rope := textcap.Rope{{Text: "STDOUT:\n"}, {Snap: &so}, {Text: "\n\nSTDERR:\n"}, {Snap: &se}}
	text, truncated, _ := rope.Truncate(textcap.Limit{
		Unit: textcap.Chars, Limit: 5000, Keep: textcap.HeadTail, Head: 2500, Tail: 1000, TailThreshold: 3500,
		Marker: func(int64, int64, int64) string { return "\n...\n[truncated]\n...\n" },
	})
	fmt.Println(rope.Len(textcap.Chars), len([]rune(text)), truncated, strings.HasSuffix(text, "x\n\nSTDERR:\nwarning"))
	// Output: 6025 3521 true true
}
