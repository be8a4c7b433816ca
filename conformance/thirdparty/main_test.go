package main

import (
	"slices"
	"testing"
)

// A variable set over the inherited environment replaces it: a server must not read the machine's HOME
// or SHELL when its own are set.
func TestLastWins(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"HOME=/root", "SHELL=/bin/bash", "HOME=/tmp/h", "SHELL=/bin/sh"}, []string{"HOME=/tmp/h", "SHELL=/bin/sh"}},
		{[]string{"A=1", "B=2"}, []string{"A=1", "B=2"}},
		{[]string{"A=1", "A=", "B"}, []string{"A=", "B"}},
		{nil, nil},
	} {
		if got := lastWins(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("lastWins(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
