//go:build !unix

package policy

import "time"

var start = time.Now()

// processCPU stands in for the CPU time where getrusage is not available: the wall time.
func processCPU() time.Duration { return time.Since(start) }
