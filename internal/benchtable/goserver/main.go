// Command goserver is the baseline of the wire-protocol throughput rows of `make bench`: the least a server
// of conformance/PROTOCOL.md can do per call. It reads JSON Lines requests on stdin and answers each on
// stdout as soon as it is done, running its command with exec.Command("/bin/sh", "-c", command), both
// streams captured, in the request's workspace, concurrently.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
)

type request struct {
	ID        json.RawMessage `json:"id"`
	Params    struct{ Command string }
	Workspace string
}

type result struct {
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exit_code"`
}

func main() {
	var mu sync.Mutex // one answer line at a time
	enc := json.NewEncoder(os.Stdout)
	var wg sync.WaitGroup
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var req request
		if json.Unmarshal(sc.Bytes(), &req) != nil {
			continue
		}
		wg.Go(func() {
			var out, errb bytes.Buffer
			cmd := exec.Command("/bin/sh", "-c", req.Params.Command)
			cmd.Dir, cmd.Stdout, cmd.Stderr = req.Workspace, &out, &errb
			code := -1
			if err := cmd.Run(); cmd.ProcessState != nil {
				code = cmd.ProcessState.ExitCode()
			} else {
				errb.WriteString(err.Error())
			}
			mu.Lock()
			defer mu.Unlock()
			_ = enc.Encode(map[string]any{"id": req.ID, "result": result{out.String(), errb.String(), code}})
		})
	}
	wg.Wait()
}
