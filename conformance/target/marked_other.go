//go:build !linux

package target

import (
	"errors"
	"fmt"
)

// markedProcesses needs /proc: elsewhere it finds none (the process group is still killed).
func markedProcesses(string) []int { return nil }

func describeProcess(pid int) string { return fmt.Sprintf("pid %d", pid) }

// terminate sends SIGTERM: not done here (the server is killed instead).
func terminate(int) error { return errors.ErrUnsupported }
