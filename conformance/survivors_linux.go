package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// survivors lists the processes (but those excluded) whose working directory is ws or below it, once those that are dying
// have had a moment (up to two seconds) to go: what a call left running in its workspace. A zombie has no
// working directory and does not count.
func survivors(ws string, exclude ...int) []string {
	deadline := time.Now().Add(2 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		left := scanProcs(ws, exclude)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		<-tick.C
	}
}

func scanProcs(ws string, exclude []int) []string {
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		real = ws
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || slices.Contains(exclude, pid) {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil {
			continue
		}
		if !under(cwd, real) && !under(cwd, ws) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cmd := strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))
		out = append(out, fmt.Sprintf("pid %d (%s)", pid, clip(cmd, 80)))
	}
	return out
}

func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// pidsIn lists the processes whose working directory is ws or below it now.
func pidsIn(ws string) []int {
	var pids []int
	for _, p := range scanProcs(ws, nil) {
		var pid int
		if _, err := fmt.Sscanf(p, "pid %d", &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
