package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A mutant that breaks process cleanup leaves processes behind (a test's escaped `sleep`). They are
// descendants of the `go test` this program started: each carries runMarker in its environment, or (if it
// cleared its environment) still works in the copy of the tree. reapLeftovers finds them by pid in /proc
// and SIGKILLs each through a pidfd, after checking again that it is one of ours.

// runMarker is set in the environment of every `go test` this program runs.
var runMarker = "AGENTBASH_MUTATE_RUN=" + strconv.Itoa(os.Getpid())

// ours reports whether pid is a leftover of this run in the copy dir.
func ours(pid int, dir string) bool {
	if cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd"); err == nil {
		if cwd == dir || strings.HasPrefix(cwd, dir+"/") {
			return true
		}
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && bytes.Contains(append([]byte{0}, env...), []byte("\x00"+runMarker+"\x00"))
}

// reapLeftovers kills the leftovers of this run and returns how many it killed.
func reapLeftovers(dir string) int {
	killed := 0
	for range 10 { // rounds: a leftover may fork while it is being killed
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return killed
		}
		found := 0
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() || !ours(pid, dir) {
				continue
			}
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue
			}
			if ours(pid, dir) { // the pidfd pins the process: the check is about this one
				if unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil {
					found++
				}
			}
			_ = unix.Close(fd)
		}
		killed += found
		if found == 0 {
			break
		}
	}
	return killed
}
