package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// serveConcurrency sends 32 calls of `sleep 0.1` to `agentbash serve -transport wire`, one at a time and
// then all at once. Target: all at once takes at most a tenth of one at a time (the calls run
// concurrently; the server does not serialise them).
func serveConcurrency(e *env) ([]*row, error) {
	const n = 32
	s, err := startWire(e.agentbash, e.workspace)
	if err != nil {
		return nil, err
	}
	defer s.close()
	req := func(id int) map[string]any {
		return map[string]any{"id": id, "tool": "bash", "params": map[string]any{"command": "sleep 0.1"}, "workspace": e.workspace}
	}
	id := 0
	oneAtATime := func() (float64, error) {
		start := time.Now()
		for range n {
			id++
			if err := s.call(req(id)); err != nil {
				return 0, err
			}
		}
		return seconds(time.Since(start)), nil
	}
	allAtOnce := func() (float64, error) {
		start := time.Now()
		errs := make(chan error, n)
		for range n {
			id++
			r := req(id)
			go func() { errs <- s.call(r) }()
		}
		for range n {
			if err := <-errs; err != nil {
				return 0, err
			}
		}
		return seconds(time.Since(start)), nil
	}
	meds, err := interleave(max(1, e.gibRounds), oneAtATime, allAtOnce)
	if err != nil {
		return nil, err
	}
	serial, concurrent := meds[0], meds[1]
	return []*row{
		(&row{measure: "32 calls of `sleep 0.1` in flight at once (rye, wire protocol)", figure: secs(concurrent),
			baseline: "one at a time " + secs(serial), ratio: concurrent / serial}).
			judge(concurrent/serial, limit{max: 0.1, text: "≤ 0.1x"}),
	}, nil
}

// wire is an `agentbash serve -transport wire` process and the answers it has sent, by id.
type wire struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	mu      sync.Mutex
	waiting map[float64]chan map[string]any
	done    chan struct{}
}

func startWire(bin, workspace string) (*wire, error) {
	return startWireArgv(bin, "serve", "rye", "-transport", "wire", "-workspace", workspace)
}

// startWireArgv starts a server of the wire protocol (conformance/PROTOCOL.md).
func startWireArgv(argv ...string) (*wire, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := &wire{cmd: cmd, stdin: stdin, waiting: map[float64]chan map[string]any{}, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			var a map[string]any
			if json.Unmarshal(sc.Bytes(), &a) != nil {
				continue
			}
			id, _ := a["id"].(float64)
			w.mu.Lock()
			ch := w.waiting[id]
			delete(w.waiting, id)
			w.mu.Unlock()
			if ch != nil {
				ch <- a
			}
		}
	}()
	return w, nil
}

// call sends one request and waits for its answer, which must be a result.
func (w *wire) call(req map[string]any) error {
	id := float64(req["id"].(int))
	ch := make(chan map[string]any, 1)
	w.mu.Lock()
	w.waiting[id] = ch
	line, _ := json.Marshal(req)
	_, err := w.stdin.Write(append(line, '\n'))
	w.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case a := <-ch:
		if _, ok := a["result"]; !ok {
			return fmt.Errorf("request %v: %v", req, a)
		}
		return nil
	case <-w.done:
		return fmt.Errorf("the server ended before answering request %v", id)
	case <-time.After(time.Minute):
		return fmt.Errorf("no answer to request %v in a minute", id)
	}
}

func (w *wire) close() {
	_ = w.stdin.Close() // end of input: the server finishes and exits
	<-w.done
	_ = w.cmd.Wait()
}
