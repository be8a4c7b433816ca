package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// markedAnywhere lists the live processes whose environment has an entry starting with prefix.
func markedAnywhere(prefix string) []string {
	var out []string
	eachProc(func(pid int, dir string) {
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil {
			return
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.HasPrefix(kv, []byte(prefix)) {
				out = append(out, describe(pid, dir))
				return
			}
		}
	})
	return out
}

// runningIn lists the live processes whose working directory is dir or below it (or was, and is gone).
func runningIn(dir string) []string {
	var out []string
	eachProc(func(pid int, pdir string) {
		cwd, err := os.Readlink(filepath.Join(pdir, "cwd"))
		if err != nil {
			return
		}
		cwd = strings.TrimSuffix(cwd, " (deleted)")
		if cwd == dir || strings.HasPrefix(cwd, dir+"/") {
			out = append(out, describe(pid, pdir))
		}
	})
	return out
}

func eachProc(f func(pid int, dir string)) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		f(pid, filepath.Join("/proc", e.Name()))
	}
}

func describe(pid int, dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
	cmd := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if len(cmd) > 80 {
		cmd = cmd[:80] + "..."
	}
	return fmt.Sprintf("pid %d (%s)", pid, cmd)
}
