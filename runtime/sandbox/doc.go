// Package sandbox confines the commands an engine runs (runtime.WithSandbox, a spec's sandbox block,
// agentbash's -sandbox MODE): in read-only mode a command reads everything and writes nothing; in
// workspace-write mode it writes only beneath the workspace roots and a private TMPDIR, with a .git at
// the top of a root kept read-only; without Config.Network it has no network, and reaches no unix socket
// outside those roots but those Config.UnixSockets names; and nothing it starts outlives its run.
//
// On Linux a run is started by a helper, this same binary again (internal/confine recognises it before
// main), forked by a long-lived spawner with CLONE_PARENT so that it is the host's child and leads the
// run's process group. The helper is the init of a PID namespace of its own (when it ends, the kernel
// kills what the run left), in a mount namespace and, without the network, a network namespace with only
// a loopback, shared by the sandbox's runs; it confines the thread that starts the command, starts it,
// reaps orphans, and reports the command's wait status on a status pipe. A user namespace lets an
// unprivileged host create the others. After each run the next run's helper is started ahead, in the
// background, and waits for its descriptors: a run that finds it skips the exec and the Go runtime's
// start, most of what the sandbox costs.
//
// What confines the command, each mechanism for what the others leave:
//
//   - Landlock: writes (and file creation, removal, renames, truncation) only beneath the writable roots,
//     its devices and the runtime's state files; no signal to, nor abstract socket of, a process outside
//     the run (ABI 6).
//   - The mount namespace: the whole filesystem is read-only but for the writable roots and files, bound
//     back writable on top of it (a copy of each, taken before), so that what Landlock does not cover,
//     metadata (chmod, chown, utimes, extended attributes, file capabilities), cannot change outside them
//     either; .git at the top of a root is bound read-only; /proc shows the run's own processes. Writes
//     outside fail with EROFS, "Read-only file system", before Landlock would refuse them.
//   - No capability: the thread that starts the command empties its bounding, inheritable and ambient
//     sets and sets no_new_privs, so that the command (uid 0 in the run's user namespace when the host is
//     root) holds none and gains none from a set-user-ID program or a file capability.
//   - Only its standard files: everything else the helper holds, including what the host inherited and
//     passed on, is close-on-exec (close_range) before the command starts.
//   - The helper out of reach: it is not dumpable, so its /proc files, ptrace and pidfd_getfd need
//     CAP_SYS_PTRACE in its user namespace, which the command lacks; its status pipe (/proc/1/fd/3 from
//     inside the namespace) cannot be opened. The host reads from that pipe exactly "ok" or "err ..." and
//     then "exit STATUS" before its end, with deadlines, and takes nothing else.
//   - Without the network, the network namespace (TCP, UDP, abstract unix sockets) and a seccomp filter
//     for what a network namespace does not confine: pathname unix sockets, reached through the
//     filesystem, and socket families such as vsock.
//
// Unix sockets. Landlock to ABI 7 cannot refuse a connect(2) to a pathname unix socket (a later ABI adds
// LANDLOCK_ACCESS_FS_RESOLVE_UNIX), and without one any daemon on a socket the command can name (the Docker
// engine, an ssh agent, D-Bus) is a way out. Two mechanisms were weighed. A seccomp filter that refuses
// socket(AF_UNIX) (as Anthropic's sandbox-runtime does on Linux) is simple and costs nothing per call,
// but refuses the command's own sockets too (a test server in the workspace) and cannot allow one named
// socket and not another. The sandbox takes the other: seccomp user notification. The filter hands every
// connect(2) to the helper, whose supervisor takes the command's socket (pidfd_getfd) and reads the
// address once; a pathname is resolved once to an O_PATH descriptor, allowed if the socket lies beneath a
// writable root or is (beneath) an entry of Config.UnixSockets, and connected through that descriptor
// (/proc/self/fd/N), so what was checked is what is connected (no time-of-check-to-time-of-use race: the
// kernel never goes on with the command's own arguments, which another thread could change). Other
// addresses are connected as given, an abstract name only to a listener of the run itself. Datagrams are
// the other way to a socket: a unix datagram socket names its destination at each sendmsg, in memory a
// filter cannot read, so the filter refuses to create one (socket and socketpair alike); stream and
// seqpacket sockets send only to the peer they connected to. It also refuses io_uring, whose operations
// no filter sees, and socket families the network namespace does not confine (vsock reaches the
// hypervisor's host); a process of another system call ABI (x32, a 32-bit ARM program on arm64) is killed.
// What still works without the network: socketpair (stream or seqpacket), unix sockets of the command's
// own in the workspace or its TMPDIR, abstract sockets of its own run, TCP and UDP on the run's loopback,
// netlink. A connect costs a round trip to the helper (tens of microseconds); a run that connects nothing
// pays only the filter. With Config.Network nothing is filtered: every socket the command can name is
// reachable.
//
// One limit: Landlock grants writes by path, so a file in a writable root that is a hard link to a file
// outside, put there by someone else, is written through (the command cannot make one: a link across the
// writable root's mount fails with EXDEV). Telling such a file from one of the workspace's own would take a
// check on every open for writing; the sandbox does not make it.
//
// Check reports what the machine offers (agentbash sandbox check). A run that needs a mechanism the
// machine lacks fails with an *Error naming it, unless Config.BestEffort; the runtime renders it as the
// tool's spawn error. Elsewhere than Linux every run fails so.
package sandbox
