//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package sandbox

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The host reads the status pipe strictly: "ok" (or "err ..."), then exactly "exit STATUS" and the end of
// the pipe. Anything else is no status, and nothing makes the reader wait past its deadlines.
func TestStatusReader(t *testing.T) {
	for _, tc := range []struct {
		name     string
		written  string
		keepOpen bool   // the writer does not close its end (as if something else held it)
		start    string // "" the command started; else what the start error says
		status   syscall.WaitStatus
		ok       bool
	}{
		{name: "exit", written: "ok\nexit 768\n", status: 768, ok: true},
		{name: "in one write", written: "ok\nexit 0\n", status: 0, ok: true},
		{name: "a second exit line", written: "ok\nexit 2560\nexit 0\n"},
		{name: "garbage after exit", written: "ok\nexit 0\nx"},
		{name: "garbage before exit", written: "ok\ngarbageexit 2560\n"},
		{name: "no newline", written: "ok\nexit 0"},
		{name: "leading zero", written: "ok\nexit 00\n"},
		{name: "sign", written: "ok\nexit +5\n"},
		{name: "too large", written: "ok\nexit 99999999999\n"},
		{name: "not exit", written: "ok\nexitt 0\n"},
		{name: "nothing after ok", written: "ok\n"},
		{name: "exit, the pipe held open", written: "ok\nexit 0\n", keepOpen: true},
		{name: "ok, the pipe held open", written: "ok\n", keepOpen: true},
		{name: "exec error", written: "err 2 exec /x\n", start: "fork/exec /bin/true: no such file or directory"},
		{name: "step error", written: "err 13 landlock /ws\n", start: "sandbox: Landlock /ws: permission denied"},
		{name: "bad errno", written: "err 99999 exec /x\n", start: "unexpected helper status"},
		{name: "garbage", written: "garbage\n", start: "unexpected helper status"},
		{name: "empty", written: "", start: "did not start the command"},
		{name: "a line too long", written: strings.Repeat("x", 2*maxStatusLine), keepOpen: true, start: "too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := statusPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			go func() {
				_, _ = w.WriteString(tc.written)
				if !tc.keepOpen {
					w.Close()
				}
			}()
			l := &Launch{r: r}
			defer l.Close()
			began := time.Now()
			err = l.started(Command{Path: "/bin/true"})
			if tc.start == "" {
				if err != nil {
					t.Fatalf("started: %v", err)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tc.start) {
					t.Fatalf("started: %v, want an error with %q", err, tc.start)
				}
				var pe *fs.PathError
				var se *Error
				if !errors.As(err, &pe) && !errors.As(err, &se) {
					t.Errorf("started: %T, want an *fs.PathError or a *sandbox.Error", err)
				}
				return
			}
			st, ok := l.Exit()
			if ok != tc.ok || st != tc.status {
				t.Errorf("Exit() = %v, %v; want %v, %v", st, ok, tc.status, tc.ok)
			}
			if d := time.Since(began); d > 10*time.Second {
				t.Errorf("the reader took %v", d)
			}
		})
	}
}
