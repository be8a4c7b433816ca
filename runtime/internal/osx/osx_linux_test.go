package osx

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The read end is non-blocking (a read deadline works), the write end blocking; both close on exec.
func TestReadPipe(t *testing.T) {
	r, w, err := ReadPipe("r", "w")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := r.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Fatalf("the read end takes no deadline: %v", err)
	}
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read of an empty pipe: %v, want the deadline", err)
	}
	for _, f := range []*os.File{r, w} {
		flags, err := fcntl(f, syscall.F_GETFD)
		if err != nil || flags&syscall.FD_CLOEXEC == 0 {
			t.Errorf("%s: FD_CLOEXEC not set (%#x, %v)", f.Name(), flags, err)
		}
	}
	if fl, err := fcntl(w, syscall.F_GETFL); err != nil || fl&syscall.O_NONBLOCK != 0 {
		t.Errorf("the write end is non-blocking (%#x, %v)", fl, err)
	}
}

func fcntl(f *os.File, cmd int) (int, error) {
	v, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), uintptr(cmd), 0)
	if e != 0 {
		return 0, e
	}
	return int(v), nil
}

// Every function run on a Thread runs on the same OS thread, and Run waits for it.
func TestThreadRunsOnOneThread(t *testing.T) {
	th := NewThread()
	var first int
	th.Run(func() { first = syscall.Gettid() })
	for range 10 {
		var tid int
		th.Run(func() { tid = syscall.Gettid() })
		if tid != first {
			t.Fatalf("ran on thread %d, then %d", first, tid)
		}
	}
	if first == syscall.Gettid() {
		t.Error("the thread is the caller's")
	}
}

// NewThreads(n) runs up to n functions at once, each on one of n OS threads that are never the caller's.
func TestThreadsRunConcurrently(t *testing.T) {
	const n = 3
	th := NewThreads(n)
	var mu sync.Mutex
	tids := map[int]bool{}
	arrived := make(chan struct{}, n)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			th.Run(func() {
				mu.Lock()
				tids[syscall.Gettid()] = true
				mu.Unlock()
				arrived <- struct{}{}
				<-release // held until all n run at once: one thread each
			})
		})
	}
	for range n {
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatalf("fewer than %d functions ran at once", n)
		}
	}
	close(release)
	wg.Wait()
	if len(tids) != n || tids[syscall.Gettid()] {
		t.Errorf("ran on threads %v (the caller is %d), want %d others", tids, syscall.Gettid(), n)
	}
}
