//go:build linux

package docker

// Self is this process as the owner of the containers it makes (for the sweep's test).
func Self() owner { return self() }

// Machine is the owner's machine id.
func (o owner) Machine() string { return o.machine }

// WithPid is o as if its pid and start time were these.
func (o owner) WithPid(pid int, start string) owner { o.pid, o.start = pid, start; return o }
