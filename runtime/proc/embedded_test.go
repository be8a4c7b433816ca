//go:build linux

package proc

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestEmbedded(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "noshebang"), []byte("echo from-script \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		script   string
		combined bool
		code     int
		out, err string
	}{
		{"echo", "echo hi", false, 0, "hi\n", ""},
		{"exit 0", "exit 0", false, 0, "", ""},
		{"false", "false", false, 1, "", ""},
		{"exit 42", "exit 42", false, 42, "", ""},
		{"builtin pipeline", `echo abc | { read x; echo "got $x"; }`, false, 0, "got abc\n", ""},
		{"external pipeline", "echo abc | tr a-z A-Z | cat", false, 0, "ABC\n", ""},
		{"external program", "/bin/echo ext", false, 0, "ext\n", ""},
		{"external exit code", "sh -c 'exit 7'", false, 7, "", ""},
		{"external killed by a signal", "sh -c 'kill -TERM $$'", false, 128 + 15, "", ""},
		{"command substitution", `x=$(/bin/echo sub); echo "[$x]"`, false, 0, "[sub]\n", ""},
		{"command substitution 2>&1", `x=$(sh -c 'echo a; echo b >&2; echo c' 2>&1); echo "$x"`, false, 0, "a\nb\nc\n", ""},
		{"streams", "echo out; echo err >&2; /bin/echo eout; /bin/echo eerr >&2", false, 0, "out\neout\n", "err\neerr\n"},
		{"combined", "echo a; /bin/echo b >&2; echo c; sh -c 'echo d >&2'", true, 0, "a\nb\nc\nd\n", ""},
		{"missing command", "agentbash-no-such-cmd", false, 127, "", "\"agentbash-no-such-cmd\": executable file not found in $PATH\n"},
		{"dir", "pwd; /bin/pwd", false, 0, dir + "\n" + dir + "\n", ""},
		{"env", `echo "$FOO"; sh -c 'echo "$FOO"'; BAR=x sh -c 'echo "$BAR"'`, false, 0, "bar\nbar\nx\n", ""},
		{"redirect to file", "/bin/echo f > out.txt; cat out.txt; rm out.txt", false, 0, "f\n", ""},
		{"script without shebang", "./noshebang arg", false, 0, "from-script arg\n", ""},
		{"background job waited", "/bin/echo bg & wait; echo fg", false, 0, "bg\nfg\n", ""},
		{"process substitution", "cat <(echo x) <(/bin/echo y)", false, 0, "x\ny\n", ""},
		{"process substitution never opened", "x=<(true); echo set", false, 0, "set\n", ""},
		{"output process substitution", "echo hi > >(tr a-z A-Z); wait", false, 0, "HI\n", ""},
		{"TMPDIR untouched", "echo ${TMPDIR-unset}", false, 0, "unset\n", ""},
		{"syntax error", "echo (", false, 2, "", "1:1: `foo(` must be followed by `)`\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leakCheck(t)
			s := Spec{Embedded: tt.script, Dir: dir, Env: append(testEnv, "FOO=bar"), Combined: tt.combined}
			out, errOut, ex, p := run(t, s)
			if ex.Code != tt.code || out != tt.out || errOut != tt.err {
				t.Errorf("code %d stdout %q stderr %q, want %d %q %q", ex.Code, out, errOut, tt.code, tt.out, tt.err)
			}
			if ex.Killed || ex.Signal != 0 || ex.Err != nil || ex.GraceExpired || p.Pid() != 0 {
				t.Errorf("Exit %+v Pid %d", ex, p.Pid())
			}
			requireNoChildren(t)
		})
	}
}

// TestEmbeddedBackgroundChildDoesNotHoldPipes: a job left in the background, by the embedded shell or by
// an external command it runs (whose process group is killed when that command ends), does not keep the
// run waiting for the end of its output.
func TestEmbeddedBackgroundChildDoesNotHoldPipes(t *testing.T) {
	for _, c := range []struct{ script, out string }{
		{"sleep 30 & echo hi", "hi\n"},
		{"sh -c 'sleep 30 & echo hi'; echo after", "hi\nafter\n"},
	} {
		t.Run(c.script, func(t *testing.T) {
			leakCheck(t)
			const grace = 5 * time.Second
			var o syncBuf
			p, err := Start(Spec{Embedded: c.script, Env: testEnv, Grace: grace, Stdout: &o})
			if err != nil {
				t.Fatal(err)
			}
			ex, took := wait(t, p)
			if took >= grace/2 || ex.Code != 0 || ex.GraceExpired || o.String() != c.out {
				t.Errorf("stdout %q Exit %+v after %v", o.String(), ex, took)
			}
			requireNoChildren(t)
		})
	}
}

func TestEmbeddedKill(t *testing.T) {
	tests := []struct {
		name   string
		script string
	}{
		{"external sleep", "echo ready; sleep 30"},
		{"background and foreground", "sleep 30 & sh -c 'sleep 30' & echo ready; sleep 30"},
		{"builtin loop", "echo ready; while :; do :; done"},
		{"pipeline", "echo ready; yes | cat > /dev/null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leakCheck(t)
			w := newWatch("ready")
			p, err := Start(Spec{Embedded: tt.script, Env: testEnv, Stdout: w})
			if err != nil {
				t.Fatal(err)
			}
			await(t, p, w.seen, "ready")
			p.Kill()
			ex, took := wait(t, p)
			if !ex.Killed || ex.Signal != syscall.SIGKILL || ex.Code != -1 || took > 2*time.Second {
				t.Errorf("Exit %+v after %v", ex, took)
			}
			p.Kill()
			requireNoChildren(t)
		})
	}
}

func TestEmbeddedEscapedHolder(t *testing.T) {
	leakCheck(t)
	useContainment(t, "sweep") // a holder hidden from the sweep: only the grace bounds it
	const grace = 200 * time.Millisecond
	// The escape goes through an external sh: a program the embedded shell
	// runs leads its own process group, so setsid(1) would fork and the
	// group kill could race its child.
	script := "sh -c '" + strings.ReplaceAll(escapeScript(1, "echo shell done"), "'", `'"'"'`) + "'"
	s := Spec{Embedded: script, Env: testEnv, Dir: t.TempDir(), Grace: grace}
	out, _, ex, _ := run(t, s)
	doneAt := time.Now()
	killEscaped(t, out)
	if !strings.HasSuffix(out, "\nshell done\n") || ex.Code != 0 || !ex.GraceExpired {
		t.Errorf("stdout %q Exit %+v", out, ex)
	}
	if held := doneAt.Sub(ex.Ended); held < grace || held > grace+3*time.Second {
		t.Errorf("Done %v after the exit, want grace %v (+ a margin)", held, grace)
	}
}

// TestEmbeddedNoLeak covers background jobs and process substitutions the
// interpreter runs in goroutines of its own, some blocked opening a fifo no
// consumer will open: all must be gone, and the fifo directory removed.
func TestEmbeddedNoLeak(t *testing.T) {
	for _, script := range []string{
		"cat <(sleep 30; echo x) & echo hi",
		"echo <(true) | wc -c",
		"true >(cat) <(cat)",
		"(sleep 30 & sleep 30) & { sleep 30 | cat; } & echo hi",
		"f() { sleep 30 & }; f; wait() { sleep 30; }; echo hi",
	} {
		t.Run(script, func(t *testing.T) {
			leakCheck(t)
			tmp0 := privateDirs(t)
			out, errOut, ex, _ := run(t, Spec{Embedded: script, Env: testEnv})
			if ex.Err != nil || ex.Code != 0 || errOut != "" {
				t.Errorf("stdout %q stderr %q Exit %+v", out, errOut, ex)
			}
			requireNoChildren(t)
			if tmp := privateDirs(t); tmp > tmp0 {
				t.Errorf("%d fifo directories left", tmp-tmp0)
			}
		})
	}
}

func privateDirs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir(fifoBase())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), fifoDirPrefix) {
			n++
		}
	}
	return n
}
