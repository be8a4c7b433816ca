//go:build linux

package proc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
)

// survivorRounds is how many times each hidden escape is run: 10 (make test-norace), fewer under the race
// detector, which slows every fork.
func survivorRounds() int {
	if raceEnabled {
		return 2
	}
	return 10
}

// requireCgroup skips the test where runs get no cgroup.
func requireCgroup(t *testing.T) {
	t.Helper()
	if c := ContainmentInUse(); c.Cgroup == "" {
		t.Skipf("no cgroup: %s", c.Reason)
	}
}

// TestCgroupNoSurvivors: with a cgroup per run, none of the escapes that hide from the marker outlives
// its run, however the run ends (the shell exits, Kill while it runs, the embedded shell), not even for a
// moment: Done comes after the cgroup is empty. (Through the sweep, each of them survives every time.)
func TestCgroupNoSurvivors(t *testing.T) {
	requireCgroup(t)
	for _, end := range []string{"exit", "kill", "embedded"} {
		for i := range len(proctest.HiddenEscapes("")) {
			name := proctest.HiddenEscapes("")[i].Name
			t.Run(end+"/"+name, func(t *testing.T) {
				leakCheck(t)
				mark := proctest.UniqueSleep()
				t.Cleanup(func() { proctest.KillWithCmdline(mark) })
				e := proctest.HiddenEscapes(mark)[i]
				if e.Needs != "" {
					if _, err := exec.LookPath(e.Needs); err != nil {
						t.Skipf("no %s", e.Needs)
					}
				}
				dir := t.TempDir()
				gate := filepath.Join(dir, "gate")
				for round := range survivorRounds() {
					// The shell waits on the gate until the test has seen the escaped process.
					if err := syscall.Mkfifo(gate, 0o600); err != nil {
						t.Fatal(err)
					}
					var s Spec
					switch end {
					case "exit":
						s = sh(e.Script + "; echo ready; read _ < gate")
					case "kill":
						s = sh(e.Script + "; echo ready; exec sleep " + mark)
					case "embedded":
						// Through sh, which waits: a program the embedded shell runs leads its own
						// group, and the group kill at its exit would race a child's setsid.
						script := e.Script + "; echo ready; read _ < gate"
						s = Spec{Embedded: "sh -c '" + strings.ReplaceAll(script, "'", `'"'"'`) + "'", Env: testEnv}
					}
					w := newWatch("ready")
					var stderr syncBuf
					s.Stdout, s.Stderr, s.Grace, s.Dir = w, &stderr, failsafe, dir
					p, err := Start(s)
					if err != nil {
						t.Fatal(err)
					}
					await(t, p, w.seen, "ready")
					if !poll(func() bool { return len(proctest.Escaped(mark)) > 0 }) {
						if g, err := os.OpenFile(gate, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
							g.Close()
						}
						p.Kill()
						<-p.Done()
						t.Fatalf("round %d: the escape never started (stderr %q)", round, stderr.String())
					}
					if end == "kill" {
						p.Kill()
					} else if g, err := os.OpenFile(gate, os.O_WRONLY, 0); err == nil {
						g.Close() // the shell reads the end of the gate and exits
					}
					ex, _ := wait(t, p)
					if left := proctest.WithCmdline(mark); len(left) > 0 {
						t.Fatalf("round %d: alive after Done: %v (Exit %+v)", round, left, ex)
					}
					if ex.GraceExpired || ex.Err != nil {
						t.Errorf("round %d: Exit %+v", round, ex)
					}
					if err := os.Remove(gate); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
}

// TestCgroupPerRun: a run's processes are in a cgroup of their own beneath this host's directory while it
// runs; without a watchdog to remove it later, the host's directory goes when no run needs it (ReleaseIdle,
// an engine's Close, or a moment after the last run).
func TestCgroupPerRun(t *testing.T) {
	requireCgroup(t)
	leakCheck(t)
	w := newWatch("ready")
	p, err := Start(Spec{Argv: []string{"/bin/sh", "-c", "echo ready; exec sleep 30"}, Env: testEnv, Stdout: w})
	if err != nil {
		t.Fatal(err)
	}
	await(t, p, w.seen, "ready")
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	dir := hostCgroupDir()
	rel := strings.TrimPrefix(dir, cgroupHost().base)
	if dir == "" || !strings.Contains(string(b), "/agentbash"+rel+"/") {
		t.Errorf("the shell's cgroup is %q, want one beneath %s", b, dir)
	}
	procs, _ := os.ReadFile(filepath.Join(p.cg.path, "cgroup.procs"))
	if strings.TrimSpace(string(procs)) != strconv.Itoa(p.Pid()) {
		t.Errorf("%s holds %q, want the shell %d", p.cg.path, procs, p.Pid())
	}
	p.Kill()
	<-p.Done()
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the host's cgroup %s is gone at once: %v (it is kept a moment for the next run)", dir, err)
	}
	ReleaseIdle() // as an engine's Close does
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the host's cgroup %s is still there after ReleaseIdle: %v", dir, err)
	}
}

// TestCgroupStaleHost: what a SIGKILLed host left (its directory, a process still in it) is killed and
// removed by the next host once that host is gone; a live host's directory, and one of another pid
// namespace, are left alone.
func TestCgroupStaleHost(t *testing.T) {
	requireCgroup(t)
	base := cgroupHost().base
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	ns := strconv.FormatUint(pidNS(), 10)
	dead := filepath.Join(base, fmt.Sprintf("%d-%d-%s", gone.Process.Pid, 1, ns))
	alive := filepath.Join(base, hostName(os.Getppid()))
	other := filepath.Join(base, fmt.Sprintf("%d-%d-%d", gone.Process.Pid, 1, pidNS()+1))
	for _, d := range []string{dead, alive, other} {
		if err := os.MkdirAll(filepath.Join(d, "7"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { killTree(d, time.Now().Add(failsafe)) })
	}
	// A process left in the dead host's run cgroup.
	mark := proctest.UniqueSleep()
	t.Cleanup(func() { proctest.KillWithCmdline(mark) })
	fd, err := syscall.Open(filepath.Join(dead, "7"), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	left := exec.Command("sleep", mark)
	left.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	err = left.Start()
	syscall.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- left.Wait() }()

	removeStaleHosts(base, hostName(os.Getpid()))
	select {
	case <-waited:
	case <-time.After(failsafe):
		t.Fatal("the process in the stale cgroup was not killed")
	}
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale host's cgroup is still there: %v", err)
	}
	for _, d := range []string{alive, other} {
		if _, err := os.Stat(filepath.Join(d, "7")); err != nil {
			t.Errorf("%s was touched: %v", d, err)
		}
	}
}

// TestIdleRunsTakeNoThread: a run waiting for its shell holds no OS thread (the shell is waited for
// through a pidfd in the netpoller), so 50 idle runs add (almost) no thread.
func TestIdleRunsTakeNoThread(t *testing.T) {
	if !pidfdWorks() {
		t.Skip("no pidfds: a thread waits in waitid for each run")
	}
	leakCheck(t)
	const n = 50
	before := threads()
	var ps []*Process
	defer func() {
		for _, p := range ps {
			p.Kill()
			<-p.Done()
		}
	}()
	for range n {
		w := newWatch("ready")
		p, err := Start(Spec{Argv: []string{"/bin/sh", "-c", "echo ready; exec sleep 30"}, Env: testEnv, Stdout: w})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
		await(t, p, w.seen, "ready")
	}
	if after := threads(); after > before+5 {
		t.Errorf("%d threads with %d idle runs, %d before", after, n, before)
	}
}

func threads() int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// nonRootHost is the environment variable that makes TestCgroupNonRootHost run as the host that is not
// root; its value is the mark of its processes.
const nonRootHost = "AGENTBASH_TEST_NONROOT_HOST"

// TestCgroupNonRootHost: a host that is not root, in a cgroup delegated to it, gets a cgroup per run
// beneath its own, and none of the hidden escapes survives its run, the not dumpable one included (a
// host that is not root cannot read its environment: the sweep misses it). Root sets up the delegation
// (the cgroup and its interface files chowned to nobody) and runs this test binary again as nobody in it.
func TestCgroupNonRootHost(t *testing.T) {
	if mark := os.Getenv(nonRootHost); mark != "" {
		runNonRootHost(mark)
		return
	}
	requireCgroup(t)
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot delegate a cgroup to nobody")
	}
	const nobody = 65534
	own, err := ownCgroupDir()
	if err != nil {
		t.Fatal(err)
	}
	deleg, err := os.MkdirTemp(own, "agentbash-test-deleg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !killTree(deleg, time.Now().Add(failsafe)) {
			t.Errorf("cannot remove %s", deleg)
		}
	})
	for _, f := range []string{"", "cgroup.procs", "cgroup.threads", "cgroup.subtree_control"} {
		if err := os.Chown(filepath.Join(deleg, f), nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	// The test binary, where nobody may execute it.
	dir, err := os.MkdirTemp("", "agentbash-nonroot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "proc.test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(deleg, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)

	mark := proctest.UniqueSleep()
	t.Cleanup(func() { proctest.KillWithCmdline(mark) })
	cmd := exec.Command(bin, "-test.run=^TestCgroupNonRootHost$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), nonRootHost + "=" + mark}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential:  &syscall.Credential{Uid: nobody, Gid: nobody},
		UseCgroupFD: true, CgroupFD: fd,
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nok\n") {
		t.Fatalf("the host that is not root: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	if left := proctest.WithCmdline(mark); len(left) > 0 {
		t.Errorf("alive after the host's runs: %v", left)
	}
}

// runNonRootHost is the host of TestCgroupNonRootHost: it runs every hidden escape through Start and
// prints "ok" when none survived Done, else what went wrong.
func runNonRootHost(mark string) {
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	fail := func(format string, args ...any) {
		fmt.Fprintf(out, "\nerror: "+format+"\n", args...)
		out.Flush()
		proctest.KillWithCmdline(mark)
		os.Exit(1)
	}
	if os.Geteuid() == 0 {
		fail("running as root")
	}
	c := ContainmentInUse()
	fmt.Fprintf(out, "uid %d, containment: %s\n", os.Geteuid(), c)
	if c.Cgroup == "" {
		fail("no cgroup")
	}
	for _, e := range proctest.HiddenEscapes(mark) {
		if e.Needs != "" {
			if _, err := exec.LookPath(e.Needs); err != nil {
				fmt.Fprintf(out, "%s: no %s, skipped\n", e.Name, e.Needs)
				continue
			}
		}
		for round := range survivorRounds() {
			s := sh(e.Script + "; echo ready")
			w := newWatch("ready")
			s.Stdout, s.Dir = w, "/"
			p, err := Start(s)
			if err != nil {
				fail("%s: %v", e.Name, err)
			}
			select {
			case <-w.seen:
			case <-time.After(failsafe):
				p.Kill()
				fail("%s: never ready", e.Name)
			}
			select {
			case <-p.Done():
			case <-time.After(failsafe):
				p.Kill()
				fail("%s: never done", e.Name)
			}
			if left := proctest.WithCmdline(mark); len(left) > 0 {
				fail("%s, round %d: alive after Done: %v", e.Name, round, left)
			}
		}
		fmt.Fprintf(out, "%s: %d rounds, no survivor\n", e.Name, survivorRounds())
	}
	fmt.Fprintf(out, "ok\n")
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// inheritedFD is the environment variable that makes TestInheritedDescriptors run as the host holding an
// inherited descriptor (fd 3).
const inheritedFD = "AGENTBASH_TEST_INHERITED_FD"

// TestInheritedDescriptors: a descriptor the host inherited (here fd 3, open on a file for appending, as
// `exec 7>>file; agentbash run ...` leaves one) reaches no command, external or run by the embedded shell:
// `echo pwned >&3` fails with a bad descriptor and the file stays empty.
func TestInheritedDescriptors(t *testing.T) {
	if os.Getenv(inheritedFD) != "" {
		runInheritedHost()
		return
	}
	leak := filepath.Join(t.TempDir(), "leak.txt")
	f, err := os.OpenFile(leak, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestInheritedDescriptors$", "-test.count=1")
	cmd.Env = append(os.Environ(), inheritedFD+"=1")
	cmd.ExtraFiles = []*os.File{f} // fd 3 in the host, inherited as a host inherits one
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nok\n") {
		t.Fatalf("the host: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(leak); err != nil || len(b) > 0 {
		t.Errorf("a command wrote %q through the inherited descriptor (%v)\n%s", b, err, out)
	}
}

// runInheritedHost runs `echo pwned >&3` through Start (a shell, and a program of the embedded shell)
// and prints what each said and "ok" when every one failed.
func runInheritedHost() {
	var st syscall.Stat_t
	if syscall.Fstat(3, &st) != nil {
		fmt.Println("error: fd 3 is not open in the host")
		os.Exit(1)
	}
	ok := true
	for _, s := range []Spec{
		{Argv: []string{"/bin/sh", "-c", "echo pwned >&3"}, Env: testEnv},
		{Embedded: "sh -c 'echo pwned >&3'", Env: testEnv},
	} {
		var o, e syncBuf
		s.Stdout, s.Stderr = &o, &e
		p, err := Start(s)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		ex := p.Wait()
		fmt.Printf("exit %d, stderr %q\n", ex.Code, e.String())
		ok = ok && ex.Code != 0
	}
	if ok {
		fmt.Println("ok")
	}
}

// TestCgroupKilledNotReused: a run's cgroup that was killed (Kill) is not handed to a later run: Linux
// kills every process cloned into a cgroup once killed. The runs after a killed one exit normally.
func TestCgroupKilledNotReused(t *testing.T) {
	requireCgroup(t)
	leakCheck(t)
	// A run that stays, so that the host keeps its empty cgroups for reuse meanwhile.
	w := newWatch("ready")
	hold, err := Start(Spec{Argv: []string{"/bin/sh", "-c", "echo ready; exec sleep 30"}, Env: testEnv, Stdout: w})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { hold.Kill(); <-hold.Done() }()
	await(t, hold, w.seen, "ready")
	for i := range 5 {
		w := newWatch("ready")
		killed, err := Start(Spec{Argv: []string{"/bin/sh", "-c", "echo ready; exec sleep 30"}, Env: testEnv, Stdout: w})
		if err != nil {
			t.Fatal(err)
		}
		await(t, killed, w.seen, "ready")
		killed.Kill()
		if ex, _ := wait(t, killed); !ex.Killed {
			t.Fatalf("round %d: Exit %+v", i, ex)
		}
		out, _, ex, _ := run(t, sh("echo after"))
		if out != "after\n" || ex.Code != 0 || ex.Signal != 0 {
			t.Fatalf("round %d: the run after a killed one: %q, Exit %+v", i, out, ex)
		}
	}
}
