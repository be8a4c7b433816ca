package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// idleShellBytes bounds what one idle background shell costs its host.
const idleShellBytes = 40 << 10

// idleResult is what the idleshells program prints.
type idleResult struct {
	Shells        int     `json:"shells"`
	RSS           float64 `json:"rss_bytes_per_shell"`
	Go            float64 `json:"go_bytes_per_shell"`
	ThreadsBefore int     `json:"threads_before"`
	ThreadsIdle   int     `json:"threads_idle"`
}

// idleRun runs the idleshells program with n and its other arguments.
func idleRun(e *env, n int, args ...string) (idleResult, error) {
	var r idleResult
	out, err := exec.Command(e.idleshells, append([]string{"-n", strconv.Itoa(n), "-workspace", e.workspace}, args...)...).Output()
	if err != nil {
		return r, fmt.Errorf("idleshells %s: %v", strings.Join(args, " "), err)
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return r, fmt.Errorf("idleshells: %v: %s", err, out)
	}
	return r, nil
}

// idleShells starts 1,000 background shells running `sleep` through the runtime (the idleshells program,
// its own process), then 1,000 interactive sessions of `sleep` with their stdin open, on pipes and then on
// terminals, and reports what each costs once idle: the host's resident memory and its Go memory (heap
// objects and goroutine stacks) per shell or session, and the host's OS threads. Targets: at most 40 KiB
// each, and no OS thread per shell or session (a process is waited for through a pidfd in the netpoller).
func idleShells(e *env) ([]*row, error) {
	n := 1000
	if e.quick {
		n = 200
	}
	kib := func(b float64) string { return fmt.Sprintf("%.1f KiB", b/1024) }
	target := limit{max: idleShellBytes, text: "≤ 40 KiB", memory: true}
	var rows []*row
	for _, k := range []struct {
		what, whats, each string
		args              []string
	}{
		{"background shell", "background shells", "`sleep`", nil},
		{"session", "sessions", "sessions of `sleep`, stdin open on a pipe", []string{"-sessions"}},
		{"session on a terminal", "sessions on a terminal", "sessions of `sleep` on a terminal", []string{"-sessions", "-tty"}},
	} {
		r, err := idleRun(e, n, k.args...)
		if err != nil {
			return nil, err
		}
		rows = append(rows,
			(&row{measure: fmt.Sprintf("resident memory per idle %s (%d %s, the host's RSS)", k.what, r.Shells, k.each),
				figure: kib(r.RSS)}).judge(r.RSS, target),
			(&row{measure: "Go memory per idle " + k.what + " (heap objects and goroutine stacks)", figure: kib(r.Go)}).
				judge(r.Go, target),
			(&row{measure: fmt.Sprintf("OS threads of the host with %d idle %s", r.Shells, k.whats),
				figure: strconv.Itoa(r.ThreadsIdle), baseline: fmt.Sprintf("%d before", r.ThreadsBefore)}).
				judge(float64(r.ThreadsIdle-r.ThreadsBefore), limit{max: 8, text: "≤ 8 more", memory: true}),
		)
	}
	return rows, nil
}
