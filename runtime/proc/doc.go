// Package proc is the only code in agentbash that starts processes.
//
// A run is either an external program (usually a shell, [Spec.Argv]) or a
// script run by the embedded mvdan.cc/sh/v3 interpreter ([Spec.Embedded]).
// Either way the package enforces one lifecycle, the one users of agent shell
// tools keep getting burnt by:
//
//   - The shell runs in its own process group, with stdin on /dev/null, so a
//     `cat` or `read` sees EOF at once.
//   - When the shell exits (normally, by a signal, or because [Process.Kill]
//     killed it), the whole process group is SIGKILLed at once, so a
//     background child (`sleep 30 & echo hi`) cannot keep the call alive by
//     holding the output pipes.
//   - Then the processes that left the group are found and killed: the
//     survivor sweep (below).
//   - The pipes are then read until EOF, but at most [Spec.Grace]: a process
//     that escaped the group and the sweep (see its limits) may hold them open
//     forever. When the grace expires, whatever is already buffered in the
//     pipes is still delivered, then the read ends are closed.
//   - [Process.Done] is closed only after all of that: the leader is reaped,
//     the group has been killed, the output has reached the writers, and the
//     run's goroutines are done (see [Process.Done]).
//
// The embedded shell follows the same rules: it writes to the same kind of
// pipes (so the programs it runs inherit them and Combined keeps the write
// order), every program it runs gets a process group of its own that is
// SIGKILLed when the shell is cancelled or exits, and its background jobs are
// stopped and waited for before Done. Its process-substitution fifos are made
// in a private directory (under /dev/shm when usable) so that the ones no
// consumer ever opened can be released instead of leaking a goroutine blocked
// in open(2); the script's own TMPDIR is untouched.
//
// Signals are only ever sent to the process group we created, and only while
// its leader has not been reaped (the leader is observed with waitid(WNOWAIT)
// first), so a recycled pid can never be hit.
//
// # The survivor sweep
//
// A descendant can leave the process group: setsid(1) or setsid(2) (`setsid
// sleep 100 &`, a daemon's double fork into a new session), setpgid(2) (a
// shell with job control, `set -m`). The group kill misses it, and it would
// live on after the call, holding the output pipes or not. (A double fork or
// `nohup ... &` that stays in the group is killed with the group.)
//
// So every process a run starts carries a marker in its environment,
// AGENTBASH_RUN_<key>=<n>, where the key is random per host process (so a run
// started by a nested agentbash keeps both markers) and n numbers the runs.
// Every process forked or executed by the run inherits it. When the run ends
// (the shell exited, or [Process.Kill] killed it; for a background shell, when
// it ends or is killed) and the group has been killed, the sweep looks for the
// marker in /proc/PID/environ of the processes created since the run started,
// and SIGKILLs those that hold it ([Exit.Swept] counts them). Each is pinned
// with a pidfd and its environment read again through the same pid before the
// signal, so a pid recycled in between is never hit.
//
// The processes created since the run started are found without listing all
// of /proc: pids are allocated cyclically, so they are those between the
// shell's pid and the last pid allocated (ns_last_pid, or /proc/loadavg),
// unless the pid counter went all the way round during the run. That takes
// pid_max allocations; at most 10 million pids a second can be allocated on a
// machine (each is a clone(2) under one lock; real figures are far lower), so
// for a run shorter than pid_max/10M (3 ms for the old default 32768, 0.4 s
// for 4194304) the range is exact; a longer run lists every process in /proc.
// If no pid was allocated since the shell's (a `true`), the sweep is one read.
//
// The sweep goes in rounds: a process found is killed and waited for (its
// pidfd), then the pids allocated meanwhile are looked at, until a round finds
// nothing and no pid was allocated during it; a process forking while the
// sweep runs is caught by the next round. After a round that killed a
// process, the next one looks at the whole range again: a pid is allocated
// before its process shows in /proc, so a child forked just before the kill
// may have a pid the round had already passed when its scan order was not
// the order of allocation (a listing of /proc is in numeric order, the pids
// wrap).
//
// A process caught in execve is looked at again, never taken as unmarked:
// from the moment its new memory replaces the old one until the binary
// loader has laid out the new stack, its environment reads empty.
// /proc/PID/stat tells that window from an environment that really is empty:
// env_start and env_end are 0 until the loader sets both to the same address,
// and env_end moves to the end of the environment just before the loader sets
// end_code (0 until then). The sweep gives up after 2 s (a process that
// SIGKILL cannot end, in uninterruptible sleep; one whose execve lasts that
// long; a machine that never stops creating processes).
//
// Its limits, by construction:
//   - A process that drops the marker escapes it: one executed with a cleared
//     or rebuilt environment (`env -i`, a program that builds its children's
//     environment from scratch) or that overwrites its environment in place
//     (setproctitle does). /proc/PID/environ is the environment the process
//     was executed with, so unsetting the variable in a shell does not hide
//     the shell, only what it executes after.
//   - A process whose environment we may not read: another user's (a setuid
//     program, or one that changed its uid), or one that made itself not
//     dumpable (prctl PR_SET_DUMPABLE, as ssh-agent does), unless the host
//     runs with CAP_SYS_PTRACE.
//   - A process in another pid namespace is seen through its pid in ours, so
//     it is found; one that is not visible in our /proc (a /proc mounted for
//     another namespace) is not. Without /proc there is no sweep.
//   - The sweep runs when the run ends, not while it runs: a background shell
//     that is still running keeps its escaped children until it ends.
//   - The execve window is told by the order in which the ELF loader (which
//     runs every program, a script through its interpreter's) sets those
//     fields. A program with no code segment of its own and an empty
//     environment would be looked at until the 2 s limit; nothing real is
//     built that way.
//
// Those it misses are still bounded by [Spec.Grace] on the pipes. A cgroup
// (cgroup.kill) would have none of these limits but needs a delegated cgroup
// v2 hierarchy, which a library cannot assume; PR_SET_CHILD_SUBREAPER would
// make the host the parent of every orphan, including those of the host's own
// children started with os/exec, which proc must never reap or kill, and it
// still would not tell ours from theirs without the marker.
//
// # When the host dies
//
// A host that exits normally, or on a signal it handles, ends its runs
// itself ([Process.Kill] and Done). A host that is SIGKILLed (or crashes)
// runs nothing more, so [EnableWatchdog] (opt-in; `agentbash serve` turns it
// on) arranges for its runs to die with it:
//
//   - Each external child gets PR_SET_PDEATHSIG SIGKILL. The kernel sends it
//     when the thread that forked the child exits, not the process, and Go
//     ends a thread when a goroutine locked to it returns; so with the
//     watchdog enabled every fork happens on one OS thread locked for the
//     life of the process. It reaches the direct child only (the shell, or a
//     program of the embedded shell), not the child's children, and the
//     kernel clears it when the child executes a set-user-ID program.
//   - A watchdog process, started by EnableWatchdog: this same binary run
//     again through /proc/self/exe with AGENTBASH_PROC_WATCHDOG in its
//     environment, which proc's init recognises before main runs (so any
//     binary that imports proc can be its own watchdog: the agentbash CLI, a
//     host, a test binary; the init functions of the packages initialised
//     before proc do run). It runs in a session of its own, so ^C, a hangup
//     or a signal to the host's process group does not reach it. The host
//     tells it, through a pipe, each process group it starts and ends; when
//     the pipe reaches EOF (the host is gone, however it died), the watchdog
//     kills the groups whose leader is alive (pinned by a pidfd, so the group
//     id cannot have been recycled) and those that still hold a process
//     carrying one of the host's run markers (the leader may already be dead
//     of its PR_SET_PDEATHSIG), then sweeps every process holding one of the
//     host's markers, wherever its pid (the whole of /proc, in rounds), and
//     exits. This takes milliseconds after the host's death.
//
// Limits: those of the sweep (a process that dropped its marker, changed its
// uid or is not dumpable), except that a member of a group the watchdog kills
// needs no marker; a process that dropped its marker in a group whose leader
// is dead and with no marked member left is missed. The watchdog can itself be
// killed (by its pid, by the OOM killer): the host starts another at its next
// Start and hands it the live groups, but if the host dies before that, only
// PR_SET_PDEATHSIG acts. A cgroup kill of the whole service needs none of
// this. EnableWatchdog needs /proc/self/exe (it fails where /proc is not
// mounted) and costs one process per host and, per Start, a hop to the
// spawning thread and two small writes to the pipe.
//
// The package is Linux only.
package proc
