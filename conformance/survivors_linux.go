package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// survivors lists the processes (but those excluded) whose working directory is ws or below it, once those that are dying
// have had a moment (up to two seconds) to go: what a call left running in its workspace. A zombie has no
// working directory and does not count.
func survivors(ws string, exclude ...int) []string {
	return describe(lingering(ws, exclude))
}

// lingering is survivors' list of processes.
func lingering(ws string, exclude []int) []wsProc {
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

// killSurvivors kills what survivors finds and waits (up to two seconds) for it to be gone: the suite
// leaves nothing of a case behind. It returns the processes it found.
func killSurvivors(ws string, exclude ...int) []string {
	left := lingering(ws, exclude)
	for _, p := range left {
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(2 * time.Second)
	for _, p := range left {
		for alive(p.pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	return describe(left)
}

// alive reports a process that is neither gone nor a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

type wsProc struct {
	pid int
	cmd string
}

func describe(ps []wsProc) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("pid %d (%s)", p.pid, clip(p.cmd, 80)))
	}
	return out
}

func scanProcs(ws string, exclude []int) []wsProc {
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		real = ws
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []wsProc
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
		out = append(out, wsProc{pid: pid, cmd: strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))})
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
		pids = append(pids, p.pid)
	}
	return pids
}
