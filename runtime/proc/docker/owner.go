//go:build linux

package docker

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// Labels of the containers (and volumes) the executor makes: what the next host needs to tell whether the
// host that made a container is gone.
const (
	LabelOwner     = "io.agentbash.owner"     // machine/boot/pid-namespace/pid/start time of the host
	LabelMachine   = "io.agentbash.machine"   // the host's machine id (the sweep's filter)
	LabelWorkspace = "io.agentbash.workspace" // the engine's first workspace root (for people)
)

// owner identifies a host process across machines, reboots, pid namespaces and pid reuse.
type owner struct {
	machine string // /etc/machine-id, else the host name
	boot    string // the kernel's boot id
	pidNS   string // the pid namespace's inode
	pid     int
	start   string // the process's start time, in clock ticks since boot (/proc/PID/stat field 22)
}

func (o owner) String() string {
	return o.machine + "/" + o.boot + "/" + o.pidNS + "/" + strconv.Itoa(o.pid) + "/" + o.start
}

func parseOwner(s string) (owner, bool) {
	f := strings.Split(s, "/")
	if len(f) != 5 {
		return owner{}, false
	}
	pid, err := strconv.Atoi(f[3])
	if err != nil {
		return owner{}, false
	}
	return owner{machine: f[0], boot: f[1], pidNS: f[2], pid: pid, start: f[4]}, true
}

// self is this process as an owner.
func self() owner {
	o := owner{pid: os.Getpid()}
	for _, p := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) != "" {
			o.machine = strings.TrimSpace(string(b))
			break
		}
	}
	if o.machine == "" {
		o.machine, _ = os.Hostname()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		o.boot = strings.TrimSpace(string(b))
	}
	o.pidNS = pidNamespace()
	o.start = startTime(o.pid)
	return o
}

func pidNamespace() string {
	var st syscall.Stat_t
	if syscall.Stat("/proc/self/ns/pid", &st) != nil {
		return ""
	}
	return strconv.FormatUint(st.Ino, 10)
}

// startTime is field 22 of /proc/PID/stat ("" when the process is gone).
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19] // fields from 3 on: 22 is the 20th
}

// gone reports whether the host o is known to be gone, as this process sees it: it ran on this machine,
// in this pid namespace, and its pid is unused or used by a later process, or the machine has rebooted
// since. A host of another machine or pid namespace is never taken for gone.
func (me owner) gone(o owner) bool {
	if o.machine != me.machine {
		return false
	}
	if o.boot != me.boot {
		return true
	}
	if o.pidNS != me.pidNS {
		return false
	}
	st := startTime(o.pid)
	return st == "" || st != o.start
}

// sweep removes the containers that a host of this machine made and left behind when it died without
// cleaning up (SIGKILL): those whose owner is gone. Their volumes (workspaces) stay.
func (x *Executor) sweep(ctx context.Context) {
	f := make(client.Filters).Add("label", LabelMachine+"="+x.owner.machine)
	list, err := x.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return
	}
	for _, c := range list.Items {
		o, ok := parseOwner(c.Labels[LabelOwner])
		if !ok || o == x.owner || !x.owner.gone(o) {
			continue
		}
		x.remove(ctx, c.ID)
	}
}

// remove removes a container, killing what runs in it, and waits until it is gone.
func (x *Executor) remove(ctx context.Context, id string) {
	_, err := x.cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true})
	if err == nil || cerrdefs.IsNotFound(err) {
		return
	}
	// Being removed already (it stopped and removes itself): wait for it.
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	w := x.cli.ContainerWait(wctx, id, client.ContainerWaitOptions{Condition: "removed"})
	select {
	case <-w.Result:
	case <-w.Error:
	}
}
