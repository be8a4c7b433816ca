package spec_test

import (
	"math"
	"testing"
	"time"

	"github.com/agentbash/agentbash/spec"
)

func fp(f float64) *float64 { return &f }

// Resolve applies the timeout rules in their order: fraction, range (fail or clamp, 0 exempt), overflow,
// non-positive.
func TestTimeoutResolve(t *testing.T) {
	for _, tc := range []struct {
		name string
		tm   spec.Timeout
		sent float64
		want spec.ResolvedTimeout
	}{
		{"seconds", spec.Timeout{Unit: spec.Seconds}, 2.5, spec.ResolvedTimeout{Value: 2.5, Duration: 2500 * time.Millisecond}},
		{"milliseconds", spec.Timeout{Unit: spec.Milliseconds}, 1500, spec.ResolvedTimeout{Value: 1500, Duration: 1500 * time.Millisecond}},
		{"fraction dropped", spec.Timeout{Unit: spec.Seconds, TruncateFraction: true}, 2.9, spec.ResolvedTimeout{Value: 2, Duration: 2 * time.Second}},
		{"above max fails", spec.Timeout{Unit: spec.Seconds, Max: fp(10), OutOfRange: spec.OutOfRangeFail}, 11,
			spec.ResolvedTimeout{Value: 11, Ranged: true, OutOfRange: true}},
		{"above max clamped", spec.Timeout{Unit: spec.Seconds, Max: fp(10), OutOfRange: spec.OutOfRangeClamp}, 11,
			spec.ResolvedTimeout{Value: 10, Ranged: true, Duration: 10 * time.Second}},
		{"below min clamped", spec.Timeout{Unit: spec.Seconds, Min: fp(1), Max: fp(10), OutOfRange: spec.OutOfRangeClamp}, 0.5,
			spec.ResolvedTimeout{Value: 1, Ranged: true, Duration: time.Second}},
		{"in range", spec.Timeout{Unit: spec.Seconds, Min: fp(1), Max: fp(10), OutOfRange: spec.OutOfRangeFail}, 5,
			spec.ResolvedTimeout{Value: 5, Ranged: true, Duration: 5 * time.Second}},
		{"zero exempt from the range, expires", spec.Timeout{Unit: spec.Seconds, Min: fp(1), OutOfRange: spec.OutOfRangeFail, RangeSkipsZero: true}, 0,
			spec.ResolvedTimeout{Value: 0, Expire: true}},
		{"zero becomes the default", spec.Timeout{Unit: spec.Seconds, Default: 120, NonPositive: spec.NonPositiveDefault}, 0,
			spec.ResolvedTimeout{Value: 120, Duration: 120 * time.Second}},
		{"negative expires", spec.Timeout{Unit: spec.Seconds, NonPositive: spec.NonPositiveExpire}, -1, spec.ResolvedTimeout{Value: -1, Expire: true}},
		{"overflow", spec.Timeout{Unit: spec.Milliseconds, Overflow: &spec.TimeoutOverflow{Above: 2147483647, Use: 1}}, 3e9,
			spec.ResolvedTimeout{Value: 1, Duration: time.Millisecond}},
		{"longer than any run", spec.Timeout{Unit: spec.Seconds}, 1e300, spec.ResolvedTimeout{Value: 1e300, Unbounded: true}},
	} {
		if got := tc.tm.Resolve(tc.sent); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestTimeoutClampAndUnits(t *testing.T) {
	tm := spec.Timeout{Unit: spec.Milliseconds, Min: fp(250), Max: fp(30000)}
	for sent, want := range map[float64]float64{0: 250, 1000: 1000, 1e9: 30000, math.Inf(1): 30000} {
		if got := tm.Clamp(sent); got != want {
			t.Errorf("Clamp(%v) = %v, want %v", sent, got, want)
		}
	}
	if got := spec.Milliseconds.Of(time.Second); got != 1000 {
		t.Errorf("a second in ms: %v", got)
	}
	if got := spec.Seconds.Of(1500 * time.Millisecond); got != 1.5 {
		t.Errorf("1.5 s in s: %v", got)
	}
	y := spec.Yield{Unit: spec.Milliseconds, Min: fp(250), Max: fp(30000), Empty: &spec.YieldRange{Min: fp(5000), Max: fp(300000)}}
	if got := y.Window(10, false); got != 250*time.Millisecond {
		t.Errorf("window below the range: %v", got)
	}
	if got := y.Window(10, true); got != 5*time.Second {
		t.Errorf("empty write's window: %v", got)
	}
	if got := (&spec.Yield{Unit: spec.Seconds}).Window(1e12, false); got != spec.MaxTimeout {
		t.Errorf("window past the maximum: %v", got)
	}
}
