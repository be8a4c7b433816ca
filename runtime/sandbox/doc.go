// Package sandbox confines the commands an engine runs (runtime.WithSandbox, a spec's sandbox block,
// agentbash's -sandbox MODE): in read-only mode a command reads everything and writes nothing; in
// workspace-write mode it writes only beneath the workspace roots and a private TMPDIR, with a .git at
// the top of a root kept read-only; without Config.Network it has no network; and nothing it starts
// outlives its run.
//
// On Linux a run is started by a helper, this same binary again (internal/confine recognises it before
// main), forked by a long-lived spawner with CLONE_PARENT so that it is the host's child and leads the
// run's process group. The helper is the init of a PID namespace of its own (when it ends, the kernel
// kills what the run left), in a mount namespace (.git bound read-only, a /proc of the run's processes)
// and, without the network, a network namespace with only a loopback, shared by the sandbox's runs; it
// applies Landlock to itself, starts the command, reaps orphans, and reports the command's wait status on
// a status pipe. A user namespace lets an unprivileged host create the others. After each run the next
// run's helper is started ahead, in the background, and waits for its descriptors: a run that finds it
// skips the exec and the Go runtime's start, most of what the sandbox costs.
//
// Check reports what the machine offers (agentbash sandbox check). A run that needs a mechanism the
// machine lacks fails with an *Error naming it, unless Config.BestEffort; the runtime renders it as the
// tool's spawn error. Elsewhere than Linux every run fails so.
package sandbox
