// Command idleshells is the idle-shell and idle-session memory rows of `make bench`: it starts N background
// shells running `sleep` through the runtime (one engine, a spec with a background registry), or with
// -sessions N interactive sessions of `sleep` with their stdin open (a spec with sessions; -tty on a
// terminal each), and prints, as one JSON object, what they cost this process once idle: resident memory
// and Go memory per shell or session, and the OS threads before and after. It then closes the engine,
// which kills and reaps them all.
//
//	go run ./internal/benchtable/idleshells -n 1000
//	go run ./internal/benchtable/idleshells -n 1000 -sessions -tty
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate" // spec.Parse and Load check YAML specs against the JSON Schema
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

// sessionSpec is a tool that starts an interactive session (stdin open, a terminal when tty is sent) and
// returns once the session has yielded, after 1 ms.
const sessionSpec = `
id: idlesessions
title: idle sessions
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c], grace: 200ms}
sessions:
  ids: sequential
  first_id: 1
  max_live: 4096
  limit_error: {type: SessionError, message: "at most {{.Max}} sessions"}
  unknown_id: {type: SessionError, message: "no session {{.ID}}"}
  stdin_closed: {type: SessionError, message: "session {{.ID}} has no stdin"}
tools:
  - name: start
    description: d
    kind: session_start
    params:
      - {name: command, type: string, required: true, role: command}
      - {name: tty, type: boolean, role: tty}
    session:
      yield: {unit: ms, default: 1, min: 1, max: 1}
      stdin: open
    results:
      format: text
      cases:
        running: {text: "{{.SessionID}}"}
        exit: {text: "exit {{.ExitCode}}: {{.Output}}"}
        spawn_error: {text: "spawn error: {{.Message}}"}
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
	sessions := flag.Bool("sessions", false, "start interactive sessions (stdin open) instead of background shells")
	tty := flag.Bool("tty", false, "with -sessions: on a terminal each")
	flag.Parse()
	if err := run(*n, *ws, *heap, *sessions, *tty); err != nil {
		fmt.Fprintln(os.Stderr, "idleshells:", err)
		os.Exit(1)
	}
}

func run(n int, ws, heap string, sessions, tty bool) error {
	if ws == "" {
		dir, err := os.MkdirTemp("", "idleshells-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		ws = dir
	}
	doc, tool := bgSpec, "run"
	if sessions {
		doc, tool = sessionSpec, "start"
	}
	v, err := spec.Parse("idle.yaml", []byte(doc))
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
		p := map[string]any{"command": command, "bg": true}
		if sessions {
			p = map[string]any{"command": command, "tty": tty}
		}
		params, _ := json.Marshal(p)
		out, err := eng.Call(ctx, tool, params)
		if err == nil && sessions && command != "true" {
			var id string
			if jerr := json.Unmarshal(out, &id); jerr != nil || strings.Trim(id, "0123456789") != "" || id == "" {
				err = fmt.Errorf("a session did not stay running: %s", out)
			}
		}
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
	// One at a time: a burst of starts in parallel would leave the OS threads its blocking system calls
	// took (the Go runtime keeps them), which the idle shells or sessions do not need.
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
	if shells := eng.Shells(); !sessions && len(shells) != n+1 {
		return fmt.Errorf("%d shells registered, want %d", len(shells), n+1)
	}
	if live := eng.Sessions(); sessions && len(live) < n {
		return fmt.Errorf("%d sessions registered, want %d", len(live), n)
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
