package target

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// markedProcesses lists the processes whose environment holds marker (NAME=VALUE), from /proc: every
// process an MCP stdio server started, wherever it went (a new session, a double fork, another working
// directory), unless it cleared or rewrote its environment. A zombie has no environment and is not listed.
func markedProcesses(marker string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(marker)
	self := os.Getpid()
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// describeProcess is "pid N (command line)".
func describeProcess(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return fmt.Sprintf("pid %d (%s)", pid, clip(strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " ")), 80))
}

// terminate sends SIGTERM to the process pid (an MCP server the suite started), as the MCP lifecycle has a
// client do when a stdio server does not exit at EOF.
func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
