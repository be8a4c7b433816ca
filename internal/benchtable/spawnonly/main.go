// Command spawnonly runs `/bin/sh -c true` with both streams captured (os/exec) and does nothing else: the
// start-up baseline of a Go program that runs one command, beside `agentbash run rye -- true` in
// `make bench`.
package main

import (
	"bytes"
	"os"
	"os/exec"
)

func main() {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", "true")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		os.Exit(1)
	}
}
