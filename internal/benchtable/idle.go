package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
)

// idleShellBytes bounds what one idle background shell costs its host.
const idleShellBytes = 40 << 10

// idleShells starts 1,000 background shells running `sleep` through the runtime (the idleshells program,
// its own process) and reports what each costs once idle: the host's resident memory and its Go memory
// (heap objects and goroutine stacks) per shell, and the host's OS threads. Targets: at most 40 KiB each,
// and no OS thread per shell (a process is waited for through a pidfd in the netpoller).
func idleShells(e *env) ([]*row, error) {
	n := 1000
	if e.quick {
		n = 200
	}
	out, err := exec.Command(e.idleshells, "-n", strconv.Itoa(n), "-workspace", e.workspace).Output()
	if err != nil {
		return nil, fmt.Errorf("idleshells: %v", err)
	}
	var r struct {
		Shells        int     `json:"shells"`
		RSS           float64 `json:"rss_bytes_per_shell"`
		Go            float64 `json:"go_bytes_per_shell"`
		ThreadsBefore int     `json:"threads_before"`
		ThreadsIdle   int     `json:"threads_idle"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("idleshells: %v: %s", err, out)
	}
	kib := func(b float64) string { return fmt.Sprintf("%.1f KiB", b/1024) }
	target := limit{max: idleShellBytes, text: "≤ 40 KiB", memory: true}
	return []*row{
		(&row{measure: fmt.Sprintf("resident memory per idle background shell (%d `sleep`, the host's RSS)", r.Shells),
			figure: kib(r.RSS)}).judge(r.RSS, target),
		(&row{measure: "Go memory per idle background shell (heap objects and goroutine stacks)", figure: kib(r.Go)}).
			judge(r.Go, target),
		(&row{measure: fmt.Sprintf("OS threads of the host with %d idle background shells", r.Shells),
			figure: strconv.Itoa(r.ThreadsIdle), baseline: fmt.Sprintf("%d before", r.ThreadsBefore)}).
			judge(float64(r.ThreadsIdle-r.ThreadsBefore), limit{max: 8, text: "≤ 8 more", memory: true}),
	}, nil
}
