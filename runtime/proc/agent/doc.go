// Package agent runs processes on another machine for a host's engine: the agent side (Serve), which this
// same binary enters from an init function when started as the agent (Env, Name), and the host side (Conn),
// whose Start returns a *proc.Process as proc.Start does. The agent does process control only, with
// runtime/proc itself (a process group per run, its argv, environment, working directory and stdin mode, a
// terminal for sessions, the embedded shell, kill and sweep, the Writable files); the host keeps the
// contract. Many runs share one byte stream, in frames (PROTOCOL.md). runtime/proc/docker carries the
// stream over a container's attach stream; any other transport that gives a byte stream to a process the
// agent is (a Kubernetes pod's exec stream) could carry it too.
package agent
