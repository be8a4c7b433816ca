//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package sandbox_test

import (
	"os"
	"syscall"
	"testing"

	"github.com/agentbash/agentbash/runtime/sandbox"
)

// BenchmarkStart measures a run of /bin/true started and waited for through the sandbox, in each mode,
// beside os.StartProcess of the same (the sandbox's own cost, without the runtime's).
func BenchmarkStart(b *testing.B) {
	ws := b.TempDir()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	b.Run("unsandboxed", func(b *testing.B) {
		for b.Loop() {
			p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{Files: []*os.File{null, null, null}})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []sandbox.Config{{Mode: sandbox.WorkspaceWrite}, {Mode: sandbox.ReadOnly}, {Mode: sandbox.WorkspaceWrite, Network: true}} {
		b.Run(c.String(), func(b *testing.B) {
			sb := newSandbox(b, c, ws)
			for b.Loop() {
				l, err := sb.Start(sandbox.Command{Path: "/bin/true", Argv: []string{"true"}, Dir: ws, Stdin: null, Stdout: null, Stderr: null})
				if err != nil {
					b.Fatal(err)
				}
				var ws syscall.WaitStatus
				if _, err := syscall.Wait4(l.Pid, &ws, 0, nil); err != nil {
					b.Fatal(err)
				}
				if st, ok := l.Exit(); !ok || st.ExitStatus() != 0 {
					b.Fatalf("status %v %v", st, ok)
				}
				l.Close()
			}
		})
	}
}
