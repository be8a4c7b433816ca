// Package docker is an executor (proc.Executor) that runs an engine's commands in a container of its own on
// a Docker Engine, local or remote, through the Engine API's official Go client (github.com/moby/moby/client).
//
// Each engine (runtime.WithExecutor; one per workspace in serve, one per run in `agentbash run`) gets one
// container, made on its first call and removed when it closes: the image the Config names, with the
// agent (runtime/proc/agent: this same static agentbash binary) as its main process, started with its
// standard input and output attached as one stream that carries every call (many runs multiplexed, not a
// `docker exec` per call). The agent is bound read-only from this machine on a local engine, and copied
// into the container before it starts on a remote one. The network is none unless Config.Network says
// otherwise; Memory (no swap beyond it), Pids and CPUs bound the container; User runs the agent, and so
// every command, as another user.
//
// The workspace roots are bound at their own paths on a local engine (a unix socket), so paths in results
// are this machine's; on a remote engine (no shared filesystem) each root is a named volume
// (VolumeName: per machine and path), mounted at the root's path and filled from the root's directory
// here when the volume is made; it outlives the container (it is the workspace) until ResetWorkspace or
// `docker volume rm`.
//
// No survivor: a run's processes are killed by the agent as on this machine (runtime/proc's process group
// and sweep); the container's removal ends whatever is left, background shells and sessions included. A
// host that dies without closing its engines (SIGKILL) closes its streams: each agent then kills its runs
// and exits, and the container (AutoRemove) goes. The containers are labelled with their host (machine,
// boot, pid namespace, pid and start time: LabelOwner), and the first container a host makes is preceded
// by a sweep that removes the containers of a host of this machine that is gone.
//
// The package lives beside runtime/proc, whose seam (Executor, Starter, NewRemote) it implements, so that
// runtime/ itself links no Docker client: only a host that names this package (cmd/agentbash) does.
package docker
