package runtime

import "testing"

// pageCount counts the lines pageLines makes, for every shape of log.
func TestPageCount(t *testing.T) {
	for _, text := range []string{"", "a", "\n", "a\n", "a\nb", "a\nb\n", "\n\n", "a\n\nb\n\n"} {
		for _, dropped := range []bool{false, true} {
			want := int64(len(pageLines(text, dropped)))
			if got := pageCount([]byte(text), dropped); got != want {
				t.Errorf("pageCount(%q, %v) = %d, pageLines makes %d", text, dropped, got, want)
			}
		}
	}
}
