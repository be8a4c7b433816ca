package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/sandbox"
	"github.com/agentbash/agentbash/spec"
)

// sandboxFlags are -sandbox MODE, -sandbox-network, -sandbox-best-effort and -sandbox-unix-socket, shared
// by run, serve and schema. They set the loaded variant's sandbox block (replacing the spec's own), so the
// engine confines its commands and the tool descriptions the model sees say so.
type sandboxFlags struct {
	fs          *flag.FlagSet
	mode        string
	network     bool
	bestEffort  bool
	unixSockets []string
}

func addSandboxFlags(fs *flag.FlagSet) *sandboxFlags {
	f := &sandboxFlags{fs: fs}
	fs.StringVar(&f.mode, "sandbox", "", "confine every command, `MODE`: read-only or workspace-write (writes only in the workspace and a private TMPDIR), or off (default: the spec's sandbox block, if any)")
	fs.BoolVar(&f.network, "sandbox-network", false, "with -sandbox: allow the network")
	fs.BoolVar(&f.bestEffort, "sandbox-best-effort", false, "with -sandbox: run with the mechanisms this machine has instead of failing each call when some are missing (agentbash sandbox check)")
	fs.Func("sandbox-unix-socket", "with -sandbox and no network: let commands connect to the unix socket at `PATH` (or to the sockets beneath the directory PATH), such as \"$SSH_AUTH_SOCK\"; repeat it for more", func(s string) error {
		if s == "" {
			return errors.New("an empty path")
		}
		abs, err := filepath.Abs(s)
		if err != nil {
			return err
		}
		f.unixSockets = append(f.unixSockets, abs)
		return nil
	})
	return f
}

// apply sets v's sandbox block from the flags, and warns on stderr when best effort runs without a
// mechanism the mode needs.
func (f *sandboxFlags) apply(v *spec.Variant, stderr io.Writer) error {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if !set["sandbox"] {
		if set["sandbox-network"] || set["sandbox-best-effort"] || set["sandbox-unix-socket"] {
			return usagef("-sandbox-network, -sandbox-best-effort and -sandbox-unix-socket need -sandbox MODE")
		}
		return nil
	}
	mode, err := sandbox.ParseMode(f.mode)
	if err != nil {
		modes := []string{sandbox.Off.String(), sandbox.ReadOnly.String(), sandbox.WorkspaceWrite.String()}
		return usagef("unknown -sandbox mode %q%s; modes: %s", f.mode, didYouMean(f.mode, modes, ""), strings.Join(modes, ", "))
	}
	if mode == sandbox.Off {
		v.Sandbox = nil
		return nil
	}
	v.Sandbox = &spec.Sandbox{Mode: spec.SandboxMode(mode.String()), Network: f.network, BestEffort: f.bestEffort, UnixSockets: f.unixSockets}
	c := sandbox.Config{Mode: mode, Network: f.network, BestEffort: f.bestEffort, UnixSockets: f.unixSockets}
	if missing := sandbox.Check().Missing(c, os.Geteuid() == 0); len(missing) > 0 && f.bestEffort {
		var names []string
		for _, st := range missing {
			names = append(names, string(st.Mechanism))
		}
		fmt.Fprintf(stderr, "agentbash: sandbox (best effort): commands run without %s (agentbash sandbox check)\n", strings.Join(names, ", "))
	}
	return nil
}

var (
	sandboxCmd = &command{
		name:    "sandbox",
		summary: "say what this machine offers the sandbox (-sandbox on run, serve and schema)",
		usage:   []string{"sandbox check"},
	}
	sandboxCheckCmd = &command{
		name:    "sandbox check",
		summary: "print each sandbox mechanism (Landlock, namespaces, seccomp) this machine has, which modes can run, and how runs are contained without it",
		usage:   []string{"sandbox check"},
		about: `Exit status 1 when workspace-write without the network (the strictest configuration) cannot run
here: a sandboxed call would then fail, naming what is missing, unless -sandbox-best-effort is given.`,
		examples: []string{"sandbox check"},
	}
)

func init() { sandboxCmd.subs = []*command{sandboxCheckCmd} }

// cmdSandbox is `agentbash sandbox check`: what this machine offers the sandbox, mechanism by mechanism,
// and whether each mode can run. The exit status is 1 when workspace-write without the network (the
// strictest configuration) cannot run without best effort.
func cmdSandbox(args []string, stdout, stderr io.Writer) int {
	sub, args, code := sandboxCmd.subcommand(args, stdout, stderr)
	if sub == nil {
		return code
	}
	pos, code, ok := sub.parse(flag.NewFlagSet(sub.name, flag.ContinueOnError), args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return sub.usageError(stderr, "unexpected argument %q", pos[0])
	}
	s := sandbox.Check()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MECHANISM\tSTATUS\tDETAIL\tUSED FOR")
	for _, st := range s.Mechanisms {
		ok := "missing"
		if st.Available {
			ok = "ok"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", st.Mechanism, ok, dash(st.Detail), st.Mechanism.Use())
	}
	tw.Flush()
	root := os.Geteuid() == 0
	code = 0
	for _, c := range []sandbox.Config{{Mode: sandbox.ReadOnly}, {Mode: sandbox.WorkspaceWrite}, {Mode: sandbox.WorkspaceWrite, Network: true}} {
		missing := s.Missing(c, root)
		if len(missing) == 0 {
			fmt.Fprintf(stdout, "%s: ok\n", c)
			continue
		}
		var names []string
		for _, st := range missing {
			names = append(names, string(st.Mechanism))
		}
		fmt.Fprintf(stdout, "%s: calls fail (missing %s) unless -sandbox-best-effort\n", c, strings.Join(names, ", "))
		if c.Mode == sandbox.WorkspaceWrite && !c.Network {
			code = 1
		}
	}
	// What ends a run's processes when the sandbox is off (runtime/proc): a cgroup per run, or the sweep.
	fmt.Fprintf(stdout, "containment: %s\n", proc.ContainmentInUse())
	return code
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
