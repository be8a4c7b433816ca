// Command goreader runs `/bin/sh -c COMMAND` and reads its stdout to the end as agentbash's pumps do,
// through an *os.File (the Go runtime's poller) with a 256 KiB buffer from a pipe grown to 1 MiB, counting
// the bytes and keeping none: the floor of any Go program that reads a command's output, beside the 1 GiB
// rows of `make bench`.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: goreader COMMAND")
		os.Exit(2)
	}
	r, w, err := os.Pipe()
	if err != nil {
		fail(err)
	}
	cmd := exec.Command("/bin/sh", "-c", os.Args[1])
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	_ = w.Close()
	if rc, err := r.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			const fSetPipeSz = 1031 // F_SETPIPE_SZ
			_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSz, 1<<20)
		})
	}
	buf := make([]byte, 256<<10)
	var total int64
	for {
		n, err := r.Read(buf)
		total += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(err)
		}
	}
	if err := cmd.Wait(); err != nil {
		fail(err)
	}
	fmt.Println(total)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "goreader:", err)
	os.Exit(1)
}
