//go:build unix

package policy

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the process has used, all threads included.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
