package main

import (
	"flag"
	"strconv"
	"strings"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/proc/docker"
)

// executorFlags are -executor local|docker and the Docker executor's settings (-image, -docker-host,
// -memory, -pids, -cpus, -network, -user, -docker-agent, -docker-workspaces), shared by run, serve and
// conformance (for its reference).
type executorFlags struct {
	fs                 *flag.FlagSet
	executor           string
	cfg                docker.Config
	memory, pids, cpus string
}

// dockerOnly are the flags that mean something with -executor docker only.
var dockerOnly = []string{"image", "docker-host", "memory", "pids", "cpus", "network", "user", "docker-agent", "docker-workspaces"}

func addExecutorFlags(fs *flag.FlagSet) *executorFlags {
	f := &executorFlags{fs: fs}
	fs.StringVar(&f.executor, "executor", "local", "where commands run: local (this machine) or docker (a container per workspace, on a Docker Engine: -image, -docker-host, -memory, -pids, -cpus, -network, -user)")
	fs.StringVar(&f.cfg.Image, "image", "", "docker: the `IMAGE` the containers run (any image with the spec's shell; the agent is added)")
	fs.StringVar(&f.cfg.Host, "docker-host", "", "docker: the engine's `ADDRESS`, unix:///PATH or tcp://HOST:PORT (default: $DOCKER_HOST, else the local socket); on any but a unix socket each workspace is a volume")
	fs.StringVar(&f.memory, "memory", "", "docker: each container's memory bound, `SIZE` (512m, 1g; swap included)")
	fs.StringVar(&f.pids, "pids", "", "docker: the most processes a container may hold, `N`")
	fs.StringVar(&f.cpus, "cpus", "", "docker: each container's CPU bound, in `CPUS` (1.5)")
	fs.StringVar(&f.cfg.Network, "network", "none", "docker: the containers' `NETWORK`: none (a loopback only), bridge, host or a network's name")
	fs.StringVar(&f.cfg.User, "user", "", "docker: run the commands as `USER` (NAME, UID or UID:GID) instead of the image's")
	fs.StringVar(&f.cfg.Agent, "docker-agent", "", "docker: the static agentbash binary (CGO_ENABLED=0) copied into each container as its agent, `PATH` (default: this executable)")
	fs.StringVar(&f.cfg.Workspaces, "docker-workspaces", "", "docker: how containers see workspaces, `MODE`: bind (the engine shares this machine's files) or volume (a volume per workspace, filled from its directory here when made; default: bind on a unix socket, else volume)")
	return f
}

// open returns the runtime option of the flags' executor (none for local) and what closes it.
func (f *executorFlags) open() ([]runtime.Option, func(), error) {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	switch f.executor {
	case "local":
		for _, name := range dockerOnly {
			if set[name] {
				return nil, nil, usagef("-%s is for -executor docker", name)
			}
		}
		return nil, func() {}, nil
	case "docker":
	default:
		return nil, nil, usagef("unknown -executor %q%s; executors: local, docker", f.executor, didYouMean(f.executor, []string{"local", "docker"}, ""))
	}
	if f.cfg.Image == "" {
		return nil, nil, usagef("-executor docker needs -image IMAGE: an image with the spec's shell (README: Run commands in containers)")
	}
	var err error
	if f.memory != "" {
		if f.cfg.Memory, err = docker.ParseBytes(f.memory); err != nil {
			return nil, nil, usagef("-memory: %v", err)
		}
	}
	if f.pids != "" {
		if f.cfg.Pids, err = strconv.ParseInt(f.pids, 10, 64); err != nil || f.cfg.Pids <= 0 {
			return nil, nil, usagef("-pids %q: want a positive count", f.pids)
		}
	}
	if f.cpus != "" {
		if f.cfg.CPUs, err = strconv.ParseFloat(f.cpus, 64); err != nil || f.cfg.CPUs <= 0 {
			return nil, nil, usagef("-cpus %q: want a positive number of CPUs (1.5)", f.cpus)
		}
	}
	if strings.TrimSpace(f.cfg.Network) == "" {
		return nil, nil, usagef("-network: want none, bridge, host or a network's name")
	}
	x, err := docker.New(f.cfg)
	if err != nil {
		return nil, nil, err
	}
	return []runtime.Option{runtime.WithExecutor(x)}, func() { _ = x.Close() }, nil
}
