package spec_test

import (
	"testing"

	"github.com/agentbash/agentbash/spec"
)

// TestHumanSize: sizes as Claude Code writes them (1024 per step, toFixed(1) rounding on the exact value,
// ".0" dropped).
func TestHumanSize(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"}, {1023, "1023 bytes"}, {1024, "1KB"}, {1075, "1KB"}, {1076, "1.1KB"}, {2000, "2KB"},
		{40038, "39.1KB"}, {108894, "106.3KB"}, {51200, "50KB"}, {1048575, "1024KB"}, {1048576, "1MB"},
		{1572864, "1.5MB"}, {67108864, "64MB"}, {1 << 30, "1GB"}, {5 << 30, "5GB"},
	} {
		if got := spec.HumanSize(c.n); got != c.want {
			t.Errorf("HumanSize(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// TestHumanDuration: durations as Claude Code's formatDuration writes them.
func TestHumanDuration(t *testing.T) {
	for _, c := range []struct {
		ms   float64
		want string
	}{
		{0, "0s"}, {0.5, "0.0s"}, {999, "0s"}, {1000, "1s"}, {1999, "1s"}, {59999, "59s"}, {60000, "1m 0s"},
		{120000, "2m 0s"}, {119999.6, "2m 0s"}, {61500, "1m 2s"}, {3600000, "1h 0m 0s"}, {3661000, "1h 1m 1s"},
		{86400000, "1d 0h 0m"}, {90061000, "1d 1h 1m"},
	} {
		if got := spec.HumanDuration(c.ms); got != c.want {
			t.Errorf("HumanDuration(%v) = %q, want %q", c.ms, got, c.want)
		}
	}
}
