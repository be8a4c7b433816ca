package runtime

import (
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
)

func testRedactor(t *testing.T) *redactor {
	t.Helper()
	r, err := newRedactor(&spec.Redact{Rules: []spec.RedactRule{
		{Name: "pem", Pattern: `-----BEGIN KEY-----[\s\S]*?-----END KEY-----`, Open: `-----BEGIN KEY-----`, Close: `-----END KEY-----`, Replace: "[pem]"},
		{Name: "tok", Pattern: `\btok_[a-z]{8,}\b`, Partial: `\btok_[a-z]*`, Replace: "[tok]"},
		{Name: "word", Pattern: `secret`, Replace: "[word]"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRedactPiece: a piece is redacted knowing its edges; what follows a carry starts where the carry ends
// (a match before it is not repeated, one across it is kept whole), and the carry says what the next
// piece continues.
func TestRedactPiece(t *testing.T) {
	r := testRedactor(t)
	for _, c := range []struct {
		name      string
		p         piece
		want      string
		wantCarry string // "" to skip
	}{
		{"whole secrets", piece{text: "a secret tok_abcdefgh -----BEGIN KEY-----x-----END KEY----- b"}, "a [word] [tok] [pem] b", ""},
		{"an open key", piece{text: "a -----BEGIN KEY-----\nxyz"}, "a [pem]", "a -----BEGIN KEY-----\nxyz"},
		{"an open key after a whole one", piece{text: "-----BEGIN KEY-----x-----END KEY----- -----BEGIN KEY-----y"}, "[pem] [pem]", ""},
		{"a token prefix at an open end", piece{text: "a tok_abc", open: true}, "a [tok]", "a tok_abc"},
		{"a token prefix at the end of the output", piece{text: "a tok_abc"}, "a tok_abc", ""},
		{"a whole token at an open end", piece{text: "a tok_abcdefghij", open: true}, "a [tok]", ""},
		{"after a cut: through the first close", piece{text: "xyz\n-----END KEY-----\nb", after: true}, "[pem]\nb", ""},
		{"after a cut: a close an open precedes", piece{text: "b -----BEGIN KEY-----x-----END KEY-----", after: true}, "b [pem]", ""},
		{"a carry the piece ends", piece{carry: "-----BEGIN KEY-----\nab", text: "cd\n-----END KEY-----\nz"}, "[pem]\nz", ""},
		{"a carry the piece goes on", piece{carry: "-----BEGIN KEY-----\nab", text: "cd"}, "[pem]", "-----BEGIN KEY-----\nabcd"},
		{"nothing new after a carry", piece{carry: "-----BEGIN KEY-----\nab", text: "", open: true}, "", "-----BEGIN KEY-----\nab"},
		{"a token split at the carry", piece{carry: "see to", text: "k_abcdefgh done"}, "[tok] done", ""},
		{"a token before the carry ends", piece{carry: "tok_abcdefgh and secret", text: " then secret"}, " then [word]", ""},
		{"a secret spanning the carry", piece{carry: "a sec", text: "ret b"}, "[word] b", ""},
		{"a token prefix carried", piece{carry: "a tok_abc", text: "defghi b"}, "[tok] b", ""},
		{"a short token prefix carried", piece{carry: "a tok_ab", text: " b"}, " b", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, carry := r.piece(c.p)
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if c.wantCarry != "" && carry != c.wantCarry {
				t.Errorf("carry %q, want %q", carry, c.wantCarry)
			}
		})
	}
	// A long open secret is carried by its start and its end, bounded.
	long := "-----BEGIN KEY-----" + strings.Repeat("k", 3*carryMax)
	out, carry := r.piece(piece{text: long, open: true})
	if out != "[pem]" || len(carry) != carryMax+carryContext || !strings.HasPrefix(carry, "-----BEGIN KEY-----") {
		t.Errorf("long open key: %q, carry of %d bytes", out, len(carry))
	}
	if out, _ := r.piece(piece{carry: carry, text: "kk-----END KEY-----\nz"}); out != "[pem]\nz" {
		t.Errorf("its end: %q", out)
	}
}

// BenchmarkRedactPiece is the redaction of a 1 MiB buffer of a running background shell (its end open)
// with the rules of a host that scrubs 13 kinds of secret.
func BenchmarkRedactPiece(b *testing.B) {
	v, err := spec.Load("../variants/codegensandbox/codegensandbox.yaml")
	if err != nil {
		b.Fatal(err)
	}
	r, err := newRedactor(v.Redact)
	if err != nil {
		b.Fatal(err)
	}
	line := "2026-01-01T00:00:00Z INFO request served path=/api/v1/items status=200 bytes=5120 user=bob\n"
	text := strings.Repeat(line, (1<<20)/len(line))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.piece(piece{text: text, open: true})
	}
}
