// Package simulate holds the sandbox mechanisms a test marks missing (sandboxtest.Simulate), which the
// sandbox's Check reports as absent. Nothing outside tests sets a mark.
package simulate

import "sync"

var marks struct {
	sync.Mutex
	missing map[string]string
}

// Set marks mechanism m missing with reason until restore is called.
func Set(m, reason string) (restore func()) {
	marks.Lock()
	defer marks.Unlock()
	if marks.missing == nil {
		marks.missing = map[string]string{}
	}
	old, had := marks.missing[m]
	marks.missing[m] = reason
	return func() {
		marks.Lock()
		defer marks.Unlock()
		if had {
			marks.missing[m] = old
		} else {
			delete(marks.missing, m)
		}
	}
}

// Missing returns the marks in force (nil when none): mechanism to reason.
func Missing() map[string]string {
	marks.Lock()
	defer marks.Unlock()
	if len(marks.missing) == 0 {
		return nil
	}
	out := make(map[string]string, len(marks.missing))
	for m, r := range marks.missing {
		out[m] = r
	}
	return out
}
