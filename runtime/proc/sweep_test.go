//go:build linux

package proc

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/internal/proctest"

	"golang.org/x/sys/unix"
)

// requireNoneAlive polls (bounded) until no process with s in its command
// line is alive; the escaped ones were SIGKILLed before Done, so they only
// need the kernel to finish them.
func requireNoneAlive(t *testing.T, s string) {
	t.Helper()
	if !poll(func() bool { return len(proctest.WithCmdline(s)) == 0 }) {
		left := proctest.WithCmdline(s)
		for i, pid := range left {
			if st, ok := readStat(pid); ok && i < 10 {
				t.Errorf("alive: %+v", st)
			}
		}
		t.Errorf("%d processes with %q survived", len(left), s)
		killMarked(s)
		t.FailNow()
	}
}

// killMarked SIGKILLs, until none is left, the processes whose command line
// holds the random marker s that only this test's processes carry (after a
// failure, so that it leaves nothing behind). Each is pinned with a pidfd
// and its command line checked again before the signal.
func killMarked(s string) {
	for i := 0; i < 1000; i++ {
		left := proctest.WithCmdline(s)
		if len(left) == 0 {
			return
		}
		for _, pid := range left {
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue
			}
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && bytes.Contains(b, []byte(s)) {
				_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
			_ = unix.Close(fd)
		}
	}
}

// escapes are commands whose child leaves the shell's process group or
// outlives the shell; SLEEP is replaced by a unique sleep.
var escapes = []struct{ name, script string }{
	{"setsid", "setsid sleep SLEEP & echo hi"},
	{"setsid holding no pipe", "setsid sleep SLEEP >/dev/null 2>&1 </dev/null & echo hi"},
	{"double fork", "( (sleep SLEEP &) & ); echo hi"},
	{"nohup", "nohup sleep SLEEP >/dev/null 2>&1 & echo hi"},
	{"setsid double fork", "setsid sh -c '(sleep SLEEP &) &' ; echo hi"},
	{"job control group", "sh -c 'set -m; sleep SLEEP & echo hi'"},
	{"new session forking in a loop", "setsid sh -c 'while :; do (sleep SLEEP &); done' >/dev/null 2>&1 & echo hi"},
}

func TestSweepKillsEscapes(t *testing.T) {
	for _, mode := range containments(t) {
		for _, embedded := range []bool{false, true} {
			for _, tc := range escapes {
				t.Run(fmt.Sprintf("%s/embedded=%v/%s", mode, embedded, tc.name), func(t *testing.T) {
					leakCheck(t)
					useContainment(t, mode)
					mark := proctest.UniqueSleep()
					t.Cleanup(func() { proctest.KillWithCmdline(mark) }) // what a failure left
					script := strings.ReplaceAll(tc.script, "SLEEP", mark)
					s := sh(script)
					if embedded {
						s = Spec{Embedded: "sh -c '" + strings.ReplaceAll(script, "'", `'"'"'`) + "'", Env: testEnv}
					}
					s.Grace = failsafe // an escaped holder the sweep missed would show as a long Done
					out, _, ex, p := run(t, s)
					if out != "hi\n" || ex.Code != 0 || ex.GraceExpired || ex.Err != nil {
						t.Errorf("stdout %q Exit %+v", out, ex)
					}
					if took := ex.Ended.Sub(ex.Started); took > failsafe/2 {
						t.Errorf("run took %v", took)
					}
					requireNoneAlive(t, mark)
					if !embedded {
						requireGroupGone(t, p.Pid())
					}
				})
			}
		}
	}
}

// TestSweepAtKill: an escaped process is killed when the run is killed
// (timeout or cancel) too.
func TestSweepAtKill(t *testing.T) {
	for _, tc := range cross(containments(t), []bool{false, true}) {
		mode, embedded := tc.mode, tc.embedded
		t.Run(fmt.Sprintf("%s/embedded=%v", mode, embedded), func(t *testing.T) {
			leakCheck(t)
			useContainment(t, mode)
			mark := proctest.UniqueSleep()
			script := "setsid sleep " + mark + " & echo ready; sleep 30"
			s := sh(script)
			if embedded {
				// Through sh: setsid(1) as the leader of its own group (as the
				// embedded shell runs programs) forks, and the group kill at
				// its exit races the child's escape.
				s = Spec{Embedded: "sh -c '" + script + "'", Env: testEnv}
			}
			w := newWatch("ready")
			s.Stdout, s.Grace = w, failsafe
			p, err := Start(s)
			if err != nil {
				t.Fatal(err)
			}
			await(t, p, w.seen, "ready")
			if !poll(func() bool { return len(proctest.Escaped(mark)) > 0 }) {
				t.Fatal("the escaped sleep never started")
			}
			p.Kill()
			ex, _ := wait(t, p)
			// With a cgroup, Kill ends the escaped sleep at once (cgroup.kill): none may be left to sweep.
			if !ex.Killed || ex.GraceExpired || (mode == "sweep" && ex.Swept < 1) {
				t.Errorf("Exit %+v", ex)
			}
			requireNoneAlive(t, mark)
		})
	}
}

// cross pairs every containment mode with both kinds of shell.
func cross(modes []string, embedded []bool) []struct {
	mode     string
	embedded bool
} {
	var out []struct {
		mode     string
		embedded bool
	}
	for _, m := range modes {
		for _, e := range embedded {
			out = append(out, struct {
				mode     string
				embedded bool
			}{m, e})
		}
	}
	return out
}

// TestSweepMarkerAcrossReads: the marker is found wherever it sits in a
// large environment, across the boundaries of the sweep's reads.
func TestSweepMarkerAcrossReads(t *testing.T) {
	leakCheck(t)
	marker := newMarker()
	needle := "\x00" + marker + "\x00"
	// The environment is "A=\0PAD=x...x\0MARKER\0", read as if after a NUL:
	// the needle starts at index 8+pad. The first read fills indices
	// [1, first]; later ones carry the needle's length less one.
	first := len(*sweepBufs.Get().(*[]byte)) - 1
	var starts []int
	for _, k := range []int{len(needle) + 1, len(needle), len(needle) - 1, 5, 1, 0, -1} {
		starts = append(starts, first+1-k)
	}
	starts = append(starts, 2*first-10, 3*first)
	for _, start := range starts {
		pad := start - 8
		t.Run(strconv.Itoa(pad), func(t *testing.T) {
			mark := proctest.UniqueSleep()
			env := []string{"A=", "PAD=" + strings.Repeat("x", pad)}
			// Not through Start, which appends a marker of its own; sleep is
			// executed directly, so its environment is exactly env.
			p, err := startExternal(Spec{Argv: []string{"sleep", mark}, Env: env}, attrs{marker: marker})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { p.Kill(); <-p.Done() }()
			var got []byte
			poll(func() bool { // Start returns once execve cannot fail: the environment comes just after
				got, _ = os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/environ")
				return len(got) > 0
			})
			if !bytes.HasSuffix(got, []byte(needle[1:])) ||
				bytes.Index(append([]byte{0}, got...), []byte(needle)) != start {
				t.Fatalf("environ of %d bytes does not have the needle at %d", len(got), start)
			}
			s := newSweeper(needle)
			defer s.release()
			if !s.marked(p.Pid()) {
				t.Errorf("marker not found with %d bytes of padding", pad)
			}
			other := newSweeper("\x00" + marker + "0\x00")
			defer other.release()
			if other.marked(p.Pid()) {
				t.Error("a longer marker value matched")
			}
		})
	}
}

// TestSweepSparesOthers: processes of other runs are never touched (one started by another run still
// running), nor, with the sweep, one started with the same command without the marker (a cleared
// environment, the sweep's documented limit). With a cgroup, that one is the run's too, and killed.
func TestSweepSparesOthers(t *testing.T) {
	for _, mode := range containments(t) {
		t.Run(mode, func(t *testing.T) {
			leakCheck(t)
			useContainment(t, mode)
			mark := proctest.UniqueSleep()
			other := sh("echo ready; exec sleep " + mark)
			w := newWatch("ready")
			other.Stdout = w
			po, err := Start(other)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { po.Kill(); <-po.Done() }()
			await(t, po, w.seen, "ready")

			s := sh(`mkfifo r1 r2
setsid env -i sh -c 'echo $$; echo > r1; exec sleep ` + mark + `' &
read _ < r1
setsid sh -c 'echo > r2; exec sleep ` + mark + `' >/dev/null &
read _ < r2`)
			s.Dir, s.Grace = t.TempDir(), -1
			out, _, ex, _ := run(t, s)
			hidden := killEscaped(t, out)
			want := []int{po.Pid(), hidden} // the other run's sleep and the hidden escapee
			swept := 1
			if mode == "cgroup" {
				want, swept = want[:1], 2
			}
			if ex.Swept != swept || ex.Code != 0 {
				t.Errorf("stdout %q Exit %+v, want %d swept", out, ex, swept)
			}
			if !poll(func() bool { return len(proctest.WithCmdline(mark)) == len(want) }) {
				t.Fatalf("alive with the marker: %v, want %v", proctest.WithCmdline(mark), want)
			}
			for _, pid := range proctest.WithCmdline(mark) {
				if !slices.Contains(want, pid) {
					t.Errorf("unexpected survivor %d", pid)
				}
			}
		})
	}
}

func TestPidRange(t *testing.T) {
	max := pidMax()
	tests := []struct {
		lo, hi, n int
		in, out   []int
	}{
		{10, 10, 0, nil, []int{10, 11}},
		{10, 12, 2, []int{11, 12}, []int{10, 13, 9}},
		{max - 2, 3, 4, []int{max - 1, 1, 2, 3}, []int{max - 2, 4}},
	}
	for _, tt := range tests {
		if n := rangeLen(tt.lo, tt.hi); n != tt.n {
			t.Errorf("rangeLen(%d, %d) = %d, want %d", tt.lo, tt.hi, n, tt.n)
		}
		for _, p := range tt.in {
			if !inRange(p, tt.lo, tt.hi) {
				t.Errorf("%d not in (%d, %d]", p, tt.lo, tt.hi)
			}
		}
		for _, p := range tt.out {
			if inRange(p, tt.lo, tt.hi) {
				t.Errorf("%d in (%d, %d]", p, tt.lo, tt.hi)
			}
		}
	}
	if lastPid() <= 0 {
		t.Errorf("lastPid() = %d", lastPid())
	}
}

// TestProbeDuringExec: a marked process caught at any point of its execve is marked or unsure (looked at
// again), never unmarked. The process executes itself over and over, so that the probes land in every
// part of execve, the environment laid out last among them.
func TestProbeDuringExec(t *testing.T) {
	leakCheck(t)
	marker := newMarker()
	loop := `exec sh -c "$0" "$0"` // $0 is this very script
	p, err := startExternal(Spec{Argv: []string{"/bin/sh", "-c", loop, loop}, Env: testEnv}, attrs{marker: marker})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Kill(); <-p.Done() }()
	s := newSweeper("\x00" + marker + "\x00")
	defer s.release()
	const probes = 50000
	unsure := 0
	for i := range probes {
		m, u := s.probe(p.Pid())
		if !m && !u {
			st, _ := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/stat")
			t.Fatalf("probe %d: the marked process %d read as unmarked (stat now: %s)", i, p.Pid(), st)
		}
		if u {
			unsure++
		}
	}
	t.Logf("%d probes, %d in execve", probes, unsure)
}

// TestStatEnv: what an empty read of /proc/PID/environ means, from the fields of /proc/PID/stat that the
// kernel sets in execve (env_start and env_end, then end_code) and at exit.
func TestStatEnv(t *testing.T) {
	// stat builds a stat line: pid, a command name with a parenthesis, then fields 3 to 52, all 0 except those given.
	stat := func(state string, set map[int]string) []byte {
		f := make([]string, 53)
		for i := range f {
			f[i] = "0"
		}
		f[3] = state
		for n, v := range set {
			f[n] = v
		}
		return []byte("4242 (a) b) " + strings.Join(f[3:], " ") + "\n")
	}
	const flags, endCode, envStart, envEnd = 9, 27, 50, 51
	tests := []struct {
		name string
		line []byte
		want envKind
	}{
		{"environment set", stat("S", map[int]string{endCode: "5000", envStart: "7000", envEnd: "7100"}), envSet},
		{"new memory, stack not laid out", stat("R", nil), envPending},
		{"laying out the environment", stat("R", map[int]string{envStart: "7000", envEnd: "7000"}), envPending},
		{"environment laid out, code bounds not set yet", stat("R", map[int]string{envStart: "7000", envEnd: "7100"}), envSet},
		{"empty environment", stat("S", map[int]string{endCode: "5000", envStart: "7000", envEnd: "7000"}), envNone},
		{"exiting, memory gone", stat("R", map[int]string{flags: "4194308"}), envPending},
		{"zombie", stat("Z", nil), envNone},
		{"dead", stat("X", nil), envNone},
		{"kernel thread", stat("S", map[int]string{flags: "2129984"}), envNone},
		{"truncated", []byte("4242 (a) S 1 2 3"), envNone},
		{"no command name", []byte("4242 a S"), envNone},
		{"bad flags", stat("S", map[int]string{flags: "x"}), envNone},
	}
	for _, tt := range tests {
		if got := statEnv(tt.line); got != tt.want {
			t.Errorf("%s: statEnv(%q) = %d, want %d", tt.name, tt.line, got, tt.want)
		}
	}
}

// TestProbeEmptyEnvironment: a process executed with an empty environment (`env -i`, the documented limit)
// reads as unmarked once its execve is over, not as one to look at again, which would hold every sweep
// that sees it until the sweep's time limit.
func TestProbeEmptyEnvironment(t *testing.T) {
	leakCheck(t)
	mark := proctest.UniqueSleep()
	p, err := Start(Spec{Argv: []string{"env", "-i", "/bin/sleep", mark}, Env: testEnv})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Kill(); <-p.Done() }()
	comm := "/proc/" + strconv.Itoa(p.Pid()) + "/comm"
	if !poll(func() bool { b, _ := os.ReadFile(comm); return string(b) == "sleep\n" }) {
		t.Fatal("env never executed sleep") // comm is set once the new memory is in place
	}
	s := newSweeper("\x00" + p.marker + "\x00")
	defer s.release()
	var m, u bool
	if !poll(func() bool { m, u = s.probe(p.Pid()); return !u }) {
		t.Fatal("probe: still unsure")
	}
	if m {
		t.Error("probe: marked")
	}
}

// TestGroupKilledAtExit: a child that stays in the shell's process group but carries no marker (its
// environment cleared) is killed with the group when the shell exits, in either containment: the sweep
// cannot find it, so without the group kill it would hold the output pipe and outlive the run.
func TestGroupKilledAtExit(t *testing.T) {
	for _, mode := range containments(t) {
		t.Run(mode, func(t *testing.T) {
			leakCheck(t)
			useContainment(t, mode)
			mark := proctest.UniqueSleep()
			t.Cleanup(func() { proctest.KillWithCmdline(mark) }) // what a failure left
			s := sh("env -i sleep " + mark + " & echo hi")
			s.Grace = failsafe // a holder left alive would show as a long Done
			out, _, ex, p := run(t, s)
			if out != "hi\n" || ex.Code != 0 || ex.GraceExpired || ex.Err != nil {
				t.Errorf("stdout %q Exit %+v", out, ex)
			}
			if took := ex.Ended.Sub(ex.Started); took > failsafe/2 {
				t.Errorf("run took %v", took)
			}
			requireNoneAlive(t, mark)
			requireGroupGone(t, p.Pid())
		})
	}
}
