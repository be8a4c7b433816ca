// Package proc is the only code in agentbash that starts processes.
//
// A run is either an external program (usually a shell, [Spec.Argv]) or a
// script run by the embedded mvdan.cc/sh/v3 interpreter ([Spec.Embedded]).
// Either way the package enforces one lifecycle, the one users of agent shell
// tools keep getting burnt by:
//
//   - The shell runs in its own process group, with stdin on /dev/null, so a
//     `cat` or `read` sees EOF at once, and with exactly its stdin, stdout
//     and stderr: no descriptor of the host (see Descriptors).
//   - When the shell exits (normally, by a signal, or because [Process.Kill]
//     killed it), the whole process group is SIGKILLed at once, so a
//     background child (`sleep 30 & echo hi`) cannot keep the call alive by
//     holding the output pipes.
//   - Then what the run started and what left the group is ended: by the
//     kernel, with the run's cgroup, where this process can make one
//     (Containment, below), else by the survivor sweep (below).
//   - The pipes are then read until EOF, but at most [Spec.Grace]: a process
//     that escaped the group and the sweep (see its limits) may hold them open
//     forever. When the grace expires, whatever is already buffered in the
//     pipes is still delivered, then the read ends are closed. A terminal
//     ([Spec.PTY]) that no process holds is not its end until then: a
//     command may close it and open /dev/tty again.
//   - [Process.Done] is closed only after all of that: the leader is reaped,
//     the group has been killed, the run's cgroup is empty, the output has
//     reached the writers, and the run's goroutines are done (see
//     [Process.Done]).
//
// The embedded shell follows the same rules: it writes to the same kind of
// pipes (so the programs it runs inherit them and Combined keeps the write
// order), every program it runs gets a process group of its own that is
// SIGKILLed when the shell is cancelled or exits, all of them in the shell's
// one cgroup, and its background jobs are stopped and waited for before Done.
// Its process-substitution fifos are made in a private directory (under
// /dev/shm when usable) so that the ones no consumer ever opened can be
// released instead of leaking a goroutine blocked in open(2); the script's own
// TMPDIR is untouched.
//
// [Process.Signal] asks a run to end before it is killed (a timeout's SIGTERM): when the shell then exits,
// the rest of its group is given the rest of the wait to exit (a trap runs to its end) before the group
// kill that follows every exit.
//
// Signals are only ever sent to the process group we created, and only while
// its leader has not been reaped (its exit is observed without reaping it), so
// a recycled pid can never be hit.
//
// # Waiting
//
// A run's shell is waited for through a pidfd (clone's CLONE_PIDFD) that the
// Go netpoller watches: no OS thread blocks in waitid for it, so a background
// shell or session that idles costs the host goroutines and buffers of a few
// KiB, not a thread (`make bench`, "idle background shells"). Its output pumps
// wait in the netpoller too, and take a read buffer only while the pipe has
// data. Before Linux 5.4 (no waitid on a pidfd) a thread waits in waitid for
// each run, as os/exec does.
//
// # Containment
//
// Where this process may write a cgroup v2 hierarchy (root, or a subtree
// delegated to its user: its own cgroup writable), each run gets a cgroup of
// its own, entered at the fork itself (clone3 with CLONE_INTO_CGROUP), beneath
// a directory of this host:
//
//	<this process's cgroup>/agentbash/<pid>-<start time>-<pid namespace>/<n>
//
// A process cannot leave its cgroup unless it may write another cgroup's
// cgroup.procs (root, or the owner of a delegated subtree, doing so on
// purpose), whatever else it does: setsid, double forks, a cleared or
// rewritten environment, an overwritten argument block, not being dumpable.
// When the run ends, cgroup.kill SIGKILLs everything in it at once (Kill does
// the same while it runs), and Done waits until cgroup.events says
// "populated 0" (an inotify event, not a poll); the cost does not depend on
// what else the machine runs. The empty cgroup is then kept for the next run
// (while runs are live, or for the host's life when the watchdog is on), or
// removed; one that was killed is removed, never reused (Linux kills every
// process later cloned into a cgroup that was once killed). [Exit.Swept]
// counts the processes that were left outside the process group.
//
// The host's directory is removed with its last run, or by the watchdog when
// the host is gone; one left by a host that was SIGKILLed without a watchdog
// is killed and removed by the next host that starts a run, once that host's
// pid is gone (its start time and pid namespace are in the name, so a reused
// pid or another namespace's host is never taken for it).
// [ContainmentInUse] says which containment is in use, and why not a cgroup
// (`agentbash sandbox check` prints it): no cgroup v2 mounted where this
// process's cgroup shows, a cgroup it may not write (not root, not
// delegated), no cgroup.kill (before Linux 5.14), or a kernel that refused the
// fork into a cgroup (then no run gets one). Sandboxed runs get no cgroup:
// the PID namespace of each run already contains them (runtime/sandbox).
//
// # The survivor sweep
//
// Where no cgroup can be made, the processes that left the group are found
// by a marker. A descendant can leave the process group: setsid(1) or
// setsid(2) (`setsid sleep 100 &`, a daemon's double fork into a new
// session), setpgid(2) (a shell with job control, `set -m`). The group kill
// misses it, and it would live on after the call, holding the output pipes or
// not. (A double fork or `nohup ... &` that stays in the group is killed with
// the group.)
//
// So every process a run starts carries a marker in its environment,
// AGENTBASH_RUN_<key>=<n>, where the key is random per host process (so a run
// started by a nested agentbash keeps both markers) and n numbers the runs.
// Every process forked or executed by the run inherits it. When the run ends
// (the shell exited, or [Process.Kill] killed it; for a background shell, when
// it ends or is killed) and the group has been killed, the sweep looks for the
// marker in /proc/PID/environ of this process's descendants, and SIGKILLs
// those that hold it ([Exit.Swept] counts them). Each is pinned with a pidfd
// and its environment read again through the same pid before the signal, so a
// pid recycled in between is never hit.
//
// The sweep reads the host's descendants only, never every process of the
// machine: the children of each thread (/proc/PID/task/TID/children), from
// this process down. For a run's orphans to stay among them, this process
// makes itself a child subreaper (PR_SET_CHILD_SUBREAPER) when it starts its
// first run without a cgroup: a process whose parent dies (the intermediate
// of a double fork, `setsid cmd &` once the shell has exited) is re-parented
// to this process instead of init. It therefore reaps what it adopts: at the
// end of each run without a cgroup, the zombie children of this process that
// no pidfd of this process refers to (whatever waits for a child, proc and
// os/exec alike, holds a pidfd for it until it has reaped it; a child started
// with syscall.ForkExec and waited for by pid alone would be reaped too, and
// its wait fail). An orphan that exits after the last run's end stays a
// zombie until the next run ends. Without the children lists (a kernel
// without CONFIG_PROC_CHILDREN) the tree is built from every process's parent
// in /proc.
//
// The sweep goes in rounds: a process found is killed and waited for (its
// pidfd), then the tree is read again, until a round finds nothing and reads
// the same descendants as the round before (a process exiting during a round
// hands its children up to this process, which the round may have read
// already).
//
// A process caught in execve is looked at again, never taken as unmarked:
// from the moment its new memory replaces the old one until the binary
// loader has laid out the new stack, its environment reads empty.
// /proc/PID/stat tells that window from an environment that really is empty:
// env_start and env_end are 0 until the loader sets both to the same address,
// and env_end moves to the end of the environment just before the loader sets
// end_code (0 until then). The sweep gives up after 2 s (a process that
// SIGKILL cannot end, in uninterruptible sleep; one whose execve lasts that
// long; a tree that never stops changing).
//
// Its limits, by construction (none of them applies with a cgroup):
//   - A process that drops the marker escapes it: one executed with a cleared
//     or rebuilt environment (`env -i`, a program that builds its children's
//     environment from scratch), with the marker's value changed, or that
//     overwrites its environment in place (setproctitle does).
//     /proc/PID/environ is the environment the process was executed with, so
//     unsetting the variable in a shell does not hide the shell, only what it
//     executes after.
//   - A process whose environment we may not read: another user's (a setuid
//     program, or one that changed its uid), or one that made itself not
//     dumpable (prctl PR_SET_DUMPABLE, as ssh-agent does), unless the host
//     runs with CAP_SYS_PTRACE.
//   - The sweep runs when the run ends, not while it runs: a background shell
//     that is still running keeps its escaped children until it ends.
//   - The execve window is told by the order in which the ELF loader (which
//     runs every program, a script through its interpreter's) sets those
//     fields. A program with no code segment of its own and an empty
//     environment would be looked at until the 2 s limit; nothing real is
//     built that way.
//
// Those it misses are still bounded by [Spec.Grace] on the pipes.
//
// # Descriptors
//
// A command gets its stdin, stdout and stderr (or its terminal) and nothing
// else this process holds: what Go opens is close-on-exec, and this package's
// init marks every descriptor from 3 up close-on-exec too (one close_range(2)
// with CLOSE_RANGE_CLOEXEC; before Linux 5.11, each one in /proc/self/fd):
// at init, those are the ones the process inherited (`exec 7>>file;
// agentbash run ...` leaves fd 7 open in agentbash). So a descriptor a host
// is given by its parent reaches none of the commands, sandboxed or not; a
// host that imports this package and means to hand an inherited descriptor
// to a process of its own passes it explicitly (os/exec's ExtraFiles).
//
// # When the host dies
//
// A host that exits normally, or on a signal it handles, ends its runs
// itself ([Process.Kill] and Done). A host that is SIGKILLed (or crashes)
// runs nothing more, so [EnableWatchdog] (opt-in; `agentbash serve` turns it
// on) arranges for its runs to die with it. A watchdog process, started by
// EnableWatchdog: this same binary run again through /proc/self/exe with
// AGENTBASH_PROC_WATCHDOG in its environment, which proc's init recognises
// before main runs (so any binary that imports proc can be its own watchdog:
// the agentbash CLI, a host, a test binary; the init functions of the
// packages initialised before proc do run). It runs in a session of its own,
// so ^C, a hangup or a signal to the host's process group does not reach it.
// The host tells it, through a pipe, its cgroup directory and each process
// group it starts without a cgroup (and when it ends); when the pipe reaches
// EOF (the host is gone, however it died), the watchdog kills the host's
// cgroup directory (every run that had a cgroup, at once) and removes it,
// kills the groups whose leader is alive (pinned by a pidfd, so the group id
// cannot have been recycled) and those that still hold a process carrying one
// of the host's run markers, then sweeps every process holding one of the
// host's markers, wherever its pid (the whole of /proc, in rounds: once, at
// the host's death), and exits. This takes milliseconds after the host's
// death.
//
// A run without a cgroup also gets PR_SET_PDEATHSIG SIGKILL while the
// watchdog is on. The kernel sends it when the thread that forked the child
// exits, not the process, and Go ends a thread when a goroutine locked to it
// returns; so those forks happen on a few OS threads locked for the life of
// the process (max(4, GOMAXPROCS), taken by whichever is free: forks do not
// wait for one another). It reaches the direct child only (the shell, or a
// program of the embedded shell), not the child's children, and the kernel
// clears it when the child executes a set-user-ID program. A run with a
// cgroup needs neither the signal nor the hop to such a thread: it forks on
// the calling goroutine's thread, and the watchdog's cgroup kill covers
// everything the run started.
//
// Limits: without a cgroup, those of the sweep (a process that dropped its
// marker, changed its uid or is not dumpable), except that a member of a
// group the watchdog kills needs no marker; a process that dropped its marker
// in a group whose leader is dead and with no marked member left is missed.
// The watchdog can itself be killed (by its pid, by the OOM killer): the host
// starts another at its next Start and hands it its cgroup and live groups,
// but if the host dies before that, only PR_SET_PDEATHSIG acts (without a
// cgroup), and the runs' cgroups are ended by the next host that starts a run.
// EnableWatchdog needs /proc/self/exe (it fails where /proc is not mounted)
// and costs one process per host and, per Start without a cgroup, a hop to a
// spawning thread and two small writes to the pipe.
//
// # Executors
//
// Start runs a process on this machine. An [Executor] decides, per engine, where runs start: [Local] (Start
// itself), a [Refuser] (nowhere: every start fails with [ErrRefused], for runs that must never execute a
// command), or another machine (runtime/proc/docker: a container per engine, whose agent,
// runtime/proc/agent, runs this package's Start there). A run started elsewhere is a Process too
// ([NewRemote]): its output reaches the Spec's writers, Kill and the stdin methods are forwarded, and Done
// closes when its Exit arrives, so the caller cannot tell where it ran.
//
// The package is Linux only.
package proc
