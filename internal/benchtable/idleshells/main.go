// Command idleshells is the idle-shell memory row of `make bench`: it starts N background shells running
// `sleep` through the runtime (one engine, a spec with a background registry) and prints, as one JSON
// object, what they cost this process once idle: resident memory and Go memory per shell, and the OS
// threads before and after. It then closes the engine, which kills and reaps them all.
//
//	go run ./internal/benchtable/idleshells -n 1000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	_ "github.com/agentbash/agentbash/spec/validate"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// bgSpec is a tool that starts a command in the background and a poll tool (a registry needs one).
const bgSpec = `
id: idle
title: idle background shells
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c], grace: 200ms}
background:
  ids: uuid
  stream_limit: 1048576
  poll: all
  max_live: 4096
  retain: 3
  limit_error: {type: ToolError, message: "too many shells (max {{.Max}})"}
  unknown_id: {type: ToolError, message: "unknown shell_id: {{.ID}}"}
tools:
  - name: run
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: bg, type: boolean, role: background}
    results:
      format: text
      cases:
        exit: {text: "{{.Output}}"}
        background: {text: "{{.ShellID}}"}
    output: {capture: combined, decode: raw, sanitize: per_byte}
  - name: poll
    description: d
    kind: poll
    params:
      - {name: shell_id, type: string, required: true, role: shell_id}
    results:
      format: text
      cases:
        ok: {text: "{{if .Running}}running{{else}}exit {{.ExitCode}}{{end}}"}
`

// Result is what the program prints.
type Result struct {
	Shells         int     `json:"shells"`
	RSSPerShell    float64 `json:"rss_bytes_per_shell"`
	GoPerShell     float64 `json:"go_bytes_per_shell"`
	ThreadsBefore  int     `json:"threads_before"`
	ThreadsIdle    int     `json:"threads_idle"`
	StartSeconds   float64 `json:"start_seconds"`
	MachineProcess int     `json:"machine_processes"`
}

func main() {
	n := flag.Int("n", 1000, "background shells")
	ws := flag.String("workspace", "", "workspace (default: a new temporary directory)")
	heap := flag.String("heapprofile", "", "write a heap profile of the idle shells to this file")
	flag.Parse()
	if err := run(*n, *ws, *heap); err != nil {
		fmt.Fprintln(os.Stderr, "idleshells:", err)
		os.Exit(1)
	}
}

func run(n int, ws, heap string) error {
	if ws == "" {
		dir, err := os.MkdirTemp("", "idleshells-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		ws = dir
	}
	v, err := spec.Parse("idle.yaml", []byte(bgSpec))
	if err != nil {
		return err
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(ws), runtime.WithEnv([]string{"PATH=/usr/local/bin:/usr/bin:/bin"}))
	if err != nil {
		return err
	}
	defer eng.Close()
	ctx := context.Background()
	call := func(command string) error {
		params, _ := json.Marshal(map[string]any{"command": command, "bg": true})
		_, err := eng.Call(ctx, "run", params)
		return err
	}
	// Warm up: one shell started and ended, so that what every run shares (the netpoller, the pools) is
	// in the baseline.
	if err := call("true"); err != nil {
		return err
	}
	settle()
	r := Result{Shells: n, ThreadsBefore: threads(), MachineProcess: processes()}
	rss0, go0 := rss(), goMem()
	start := time.Now()
	// A duration that names this run's sleeps (and that no other process has).
	sleep := fmt.Sprintf("sleep 1000.%d", os.Getpid())
	for range n {
		if err := call(sleep); err != nil {
			return err
		}
	}
	r.StartSeconds = time.Since(start).Seconds()
	settle()
	r.ThreadsIdle = threads()
	r.RSSPerShell = float64(rss()-rss0) / float64(n)
	r.GoPerShell = float64(goMem()-go0) / float64(n)
	if shells := eng.Shells(); len(shells) != n+1 {
		return fmt.Errorf("%d shells registered, want %d", len(shells), n+1)
	}
	if heap != "" {
		f, err := os.Create(heap)
		if err != nil {
			return err
		}
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
	return nil
}

// settle collects garbage and lets the idle goroutines park.
func settle() {
	for range 3 {
		goruntime.GC()
		time.Sleep(50 * time.Millisecond)
	}
}

// goMem is the memory the Go runtime holds for live objects and goroutine stacks.
func goMem() uint64 {
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

func status(field string) int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	return 0
}

func rss() int64   { return status("VmRSS") << 10 }
func threads() int { return int(status("Threads")) }

// processes counts the processes of the machine (as /proc shows them).
func processes() int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			n++
		}
	}
	return n
}
