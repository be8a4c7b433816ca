// Package osx holds the few operating-system pieces that runtime/proc and runtime/sandbox both start
// processes with: a pipe whose read end alone is non-blocking, and OS threads that never exit.
package osx

import (
	"os"
	"runtime"
	"syscall"
)

// ReadPipe returns a pipe whose read end is ours, non-blocking and so in the netpoller (its reads take
// deadlines), and whose write end is a child's, blocking and never in the netpoller: os.Pipe would
// register both, and StartProcess make the child's end blocking again. Both ends close on exec.
func ReadPipe(rname, wname string) (r, w *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	if err := syscall.SetNonblock(p[0], true); err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(p[0]), rname), os.NewFile(uintptr(p[1]), wname), nil
}

// A Thread is an OS thread that lives as long as the process (or a few, see NewThreads). PR_SET_PDEATHSIG
// fires when the thread that forked a child exits, not the process, and Go ends a thread when a goroutine
// locked to it returns: a child forked on a Thread gets its parent-death signal only when the process dies.
type Thread struct{ fns chan func() }

// NewThread starts a Thread.
func NewThread() *Thread { return NewThreads(1) }

// NewThreads starts n OS threads (at least one) that never exit and take the functions given to Run in
// turn, whichever is free: up to n of them run at once (forks, each blocking its thread until the child
// has executed, do not wait for one another).
func NewThreads(n int) *Thread {
	t := &Thread{fns: make(chan func())}
	for range max(n, 1) {
		go func() {
			runtime.LockOSThread() // never unlocked: this goroutine never returns
			for fn := range t.fns {
				fn()
			}
		}()
	}
	return t
}

// Run runs fn on one of the threads and waits for it to return.
func (t *Thread) Run(fn func()) {
	done := make(chan struct{})
	t.fns <- func() { defer close(done); fn() }
	<-done
}
