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
//   - The pipes are then read until EOF, but at most [Spec.Grace]: a process
//     that escaped the group (`setsid sleep 30 &`) may hold them open forever.
//     When the grace expires, whatever is already buffered in the pipes is
//     still delivered, then the read ends are closed.
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
// The package is Linux only.
package proc
