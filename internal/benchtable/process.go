package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// result is one process run to its end.
type result struct {
	wall time.Duration
	out  []byte
}

// runProcess runs argv in dir and fails unless it exits 0.
func runProcess(dir string, argv ...string) (result, error) {
	r, _, err := run(false, dir, argv...)
	return r, err
}

// runPeak is runProcess that also returns the process's peak resident set (VmHWM), read every 2 ms
// while it runs. (The rusage of a child started by os/exec cannot say: Go starts it with vfork, so its
// maximum resident set counts the parent's, this program's, from before the exec.)
func runPeak(dir string, argv ...string) (result, int64, error) {
	return run(true, dir, argv...)
}

func run(peak bool, dir string, argv ...string) (result, int64, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{}, 0, err
	}
	var hwm int64
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	if peak {
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		tick := time.NewTicker(2 * time.Millisecond)
	poll:
		for {
			if v := vmHWM(status); v > hwm {
				hwm = v
			}
			select {
			case err = <-done:
				break poll
			case <-tick.C:
			}
		}
		tick.Stop()
	} else {
		err = <-done
	}
	r := result{wall: time.Since(start), out: out.Bytes()}
	if err != nil {
		return r, 0, fmt.Errorf("%q: %v\n%s", argv, err, tail(errb.Bytes()))
	}
	return r, hwm, nil
}

// vmHWM reads the peak resident set from a /proc/PID/status file, in bytes (0 if it cannot).
func vmHWM(status string) int64 {
	data, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// runConcurrently starts n copies of argv at once and returns the wall time until the last has ended.
func runConcurrently(n int, dir string, argv ...string) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := time.Now()
	for i := range n {
		wg.Go(func() { _, errs[i] = runProcess(dir, argv...) })
	}
	wg.Wait()
	d := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return d, err
		}
	}
	return d, nil
}

// interleave runs each of fs once per round, in turn, for rounds rounds, and returns each one's median
// figure: what one slow moment of the machine does to a figure it also does to its baseline.
func interleave(rounds int, fs ...func() (float64, error)) ([]float64, error) {
	all := make([][]float64, len(fs))
	for range rounds {
		for i, f := range fs {
			v, err := f()
			if err != nil {
				return nil, err
			}
			all[i] = append(all[i], v)
		}
	}
	meds := make([]float64, len(fs))
	for i := range all {
		meds[i] = median(all[i])
	}
	return meds, nil
}

// wallOf is a measurement of argv's wall time, in seconds.
func wallOf(dir string, argv ...string) func() (float64, error) {
	return func() (float64, error) {
		r, err := runProcess(dir, argv...)
		return seconds(r.wall), err
	}
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}
