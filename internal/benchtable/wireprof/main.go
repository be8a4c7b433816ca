// Command wireprof profiles the wire server's CPU: it serves rye with runtime/serve (as `agentbash serve
// rye -transport wire` does, watchdog included) in this process, sends it calls of `true` with N in flight
// through a pipe, and writes a CPU profile of the whole run (read it with `go tool pprof -top`).
//
//	go run ./internal/benchtable/wireprof -n 32 -calls 3000 -cpuprofile cpu.prof
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/agentbash/agentbash/runtime/serve"
	"github.com/agentbash/agentbash/variants"
)

func main() {
	n := flag.Int("n", 32, "calls in flight")
	calls := flag.Int("calls", 3000, "calls in all")
	profile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if err := run(*n, *calls, *profile); err != nil {
		fmt.Fprintln(os.Stderr, "wireprof:", err)
		os.Exit(1)
	}
}

func run(n, calls int, profile string) error {
	v, err := variants.Spec("rye")
	if err != nil {
		return err
	}
	ws, err := os.MkdirTemp("", "wireprof-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(ws)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serve.Run(context.Background(), serve.Config{Variant: v, Transport: serve.Wire, Workspace: ws, Stdin: inR, Stdout: outW})
		outW.Close()
	}()
	var mu sync.Mutex
	waiting := map[int]chan struct{}{}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			var a struct{ ID int }
			if json.Unmarshal(sc.Bytes(), &a) == nil {
				mu.Lock()
				ch := waiting[a.ID]
				delete(waiting, a.ID)
				mu.Unlock()
				if ch != nil {
					close(ch)
				}
			}
		}
	}()
	id := 0
	call := func() {
		mu.Lock()
		id++
		me := id
		ch := make(chan struct{})
		waiting[me] = ch
		line, _ := json.Marshal(map[string]any{"id": me, "tool": "bash", "params": map[string]any{"command": "true"}})
		_, _ = inW.Write(append(line, '\n'))
		mu.Unlock()
		<-ch
	}
	for range 50 { // warm up
		call()
	}
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	var wg sync.WaitGroup
	left := calls
	for range n {
		wg.Go(func() {
			for {
				mu.Lock()
				if left == 0 {
					mu.Unlock()
					return
				}
				left--
				mu.Unlock()
				call()
			}
		})
	}
	wg.Wait()
	d := time.Since(start)
	fmt.Printf("%d calls of `true`, %d in flight: %.0f calls/s\n", calls, n, float64(calls)/d.Seconds())
	inW.Close()
	return <-served
}
