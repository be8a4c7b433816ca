// Command agentbash runs, lists, serves, validates, generates and checks agent Bash-tool variants described
// in YAML. `agentbash help` lists the commands; `agentbash help COMMAND` (or `agentbash COMMAND -h`) gives a
// command's arguments, flags and examples:
//
//	agentbash run VARIANT|SPEC.yaml [-tool NAME] [-workspace DIR | -workspaces NAME=DIR,...] [-sandbox MODE] [-params JSON | -- COMMAND...]
//	agentbash list [-host NAME]
//	agentbash matrix [-format md|json] [SPEC.yaml...]
//	agentbash schema VARIANT|SPEC.yaml [-format jsonschema|openai|openai-responses|anthropic|mcp|gemini] [-sandbox MODE]
//	agentbash serve VARIANT|SPEC.yaml [-transport stdio|http|sse|wire] [-addr HOST:PORT] [-workspace DIR] [-token-file FILE] [-tls-cert FILE -tls-key FILE] [-audit FILE] [-sandbox MODE]
//	agentbash conformance VARIANT|SPEC.yaml [flags] -- TARGET-ARGV...  (or -mcp-http URL, -mcp-sse URL)
//	agentbash spec validate FILE...
//	agentbash spec schema
//	agentbash policy check VARIANT|SPEC.yaml [-policy NAME] -- COMMAND...
//	agentbash policy list
//	agentbash gen -spec FILE -out FILE [-pkg NAME] [-check]
//	agentbash sandbox check
//	agentbash version
//	agentbash help [COMMAND [SUBCOMMAND]]
//
// Exit status: 0 on success (and for help), 1 on a failure, 2 on a usage error (an unknown command,
// subcommand, flag, variant or tool, each answered with the nearest name), 3 when policy check denies.
//
// The command is thin: flags and wiring; the work is in spec, runtime and variants.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/internal/matrix"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

func main() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) }

// Main runs the CLI with args and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printMain(stderr)
		return 2
	}
	run := map[string]func([]string) int{
		"run":         func(a []string) int { return cmdRun(a, stdout, stderr) },
		"list":        func(a []string) int { return cmdList(a, stdout, stderr) },
		"matrix":      func(a []string) int { return cmdMatrix(a, stdout, stderr) },
		"schema":      func(a []string) int { return cmdSchema(a, stdout, stderr) },
		"serve":       func(a []string) int { return cmdServe(a, os.Stdin, stdout, stderr) },
		"target":      func(a []string) int { return cmdTarget(a, os.Stdin, stdout, stderr) },
		"conformance": func(a []string) int { return cmdConformance(a, stdout, stderr) },
		"spec":        func(a []string) int { return cmdSpec(a, stdout, stderr) },
		"policy":      func(a []string) int { return cmdPolicy(a, stdout, stderr) },
		"gen":         func(a []string) int { return cmdGen(a, stdout, stderr) },
		"sandbox":     func(a []string) int { return cmdSandbox(a, stdout, stderr) },
		"version":     func(a []string) int { return cmdVersion(a, stdout, stderr) },
		"help":        func(a []string) int { return cmdHelp(a, stdout, stderr) },
	}
	name := args[0]
	switch {
	case isHelp(name):
		printMain(stdout)
		return 0
	case name == "-version" || name == "--version":
		name = "version"
	}
	if f, ok := run[name]; ok {
		return f(args[1:])
	}
	var names []string
	for _, c := range allCommands() {
		if !c.hidden {
			names = append(names, c.name)
		}
	}
	if strings.HasPrefix(name, "-") {
		fmt.Fprintf(stderr, "agentbash: unknown flag %s%s: a command comes first\n", name,
			didYouMean(strings.TrimLeft(name, "-"), []string{"help", "version"}, "-"))
	} else {
		fmt.Fprintf(stderr, "agentbash: unknown command %q%s\n", name, didYouMean(name, names, ""))
	}
	fmt.Fprint(stderr, "Run 'agentbash help' for the list of commands.\n")
	return 2
}

// cmdHelp is `agentbash help [COMMAND [SUBCOMMAND]]`: the command's own -h.
func cmdHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printMain(stdout)
		return 0
	}
	if len(args) == 1 && isHelp(args[0]) || args[0] == "help" {
		helpCmd.printHelp(stdout, nil)
		return 0
	}
	if len(args) > 2 || len(args) == 2 && args[0] != specCmd.name && args[0] != policyCmd.name && args[0] != sandboxCmd.name {
		return helpCmd.usageError(stderr, "want a command, or spec, policy or sandbox and a subcommand; got %q", strings.Join(args, " "))
	}
	return Main(append(args[:len(args):len(args)], "-h"), stdout, stderr)
}

// splitDashes separates flags from the words after "--".
func splitDashes(args []string) (flags, rest []string, dashed bool) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:], true
		}
	}
	return args, nil, false
}

// runMemoryLimit is the soft memory limit `agentbash run` sets on its Go heap when GOMEMLIMIT is not set.
// A run is one call in a process of its own, and its heap is mostly what the call keeps of the output:
// with the GC's default pacing alone, the heap grows to twice what is live before a collection (agentrail
// keeping its 1 MiB heads of 1 GiB peaked at 30-33 MiB of RSS); the limit makes the GC collect first
// (27-29 MiB). A call that keeps more than the limit runs past it, a soft limit, with more GC work.
const runMemoryLimit = 16 << 20

func cmdRun(args []string, stdout, stderr io.Writer) int {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(runMemoryLimit))
	}
	flagArgs, words, dashed := splitDashes(args)
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	toolName := fs.String("tool", "", "the `NAME` of the tool to call (default: the variant's first tool)")
	workspace := fs.String("workspace", "", "the workspace root `DIR`, which must exist (default: the current directory)")
	workspaces := fs.String("workspaces", "", "several named workspace roots, `NAME=DIR,...`, for a tool whose workspace parameter picks one (the first is the default)")
	params := fs.String("params", "", "the parameters as a `JSON` object, as a model would send them")
	sbx := addSandboxFlags(fs)
	exf := addExecutorFlags(fs)
	pos, code, ok := runCmd.parse(fs, flagArgs, stdout, stderr)
	if !ok {
		return code
	}
	switch {
	case len(pos) == 0:
		return runCmd.usageError(stderr, "name a variant or a spec file")
	case len(pos) > 1:
		return runCmd.usageError(stderr, "unexpected argument %q: put the command after --", pos[1])
	case dashed == (*params != ""):
		return runCmd.usageError(stderr, "give either -params JSON or -- COMMAND...")
	}
	// The workspace is checked before anything runs: a tool would otherwise report the directory it
	// cannot enter in its own words (a missing shell, say). A spec's own working-directory parameter is
	// the variant's business, and stays its contract.
	if *workspace != "" {
		if err := checkDir("workspace", *workspace); err != nil {
			return runCmd.fail(stderr, err)
		}
	}
	named, err := parseWorkspaces(*workspaces, *workspace != "")
	if err != nil {
		return runCmd.fail(stderr, err)
	}
	v, err := loadVariant(pos[0])
	if err == nil {
		err = sbx.apply(v, stderr)
	}
	if err != nil {
		return runCmd.fail(stderr, err)
	}
	t := &v.Tools[0]
	if *toolName != "" {
		if t, err = toolNamed(v, *toolName); err != nil {
			return runCmd.fail(stderr, err)
		}
	}
	raw := json.RawMessage(*params)
	if dashed {
		p := t.Param(spec.RoleCommand)
		if p == nil {
			return runCmd.usageError(stderr, "tool %s takes no command: give -params JSON", t.Name)
		}
		raw, _ = json.Marshal(map[string]string{p.Name: strings.Join(words, " ")})
	}
	var opts []runtime.Option
	if *workspace != "" {
		opts = append(opts, runtime.WithWorkspace(*workspace))
	}
	if len(named) > 0 {
		opts = append(opts, runtime.WithWorkspaces(named...))
	}
	xopts, closeX, err := exf.open()
	if err != nil {
		return runCmd.fail(stderr, err)
	}
	defer closeX()
	eng, err := runtime.New(v, append(opts, xopts...)...)
	if err != nil {
		return runCmd.fail(stderr, err)
	}
	defer eng.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := eng.Call(ctx, t.Name, raw)
	if err != nil {
		var te *runtime.ToolError
		if !errors.As(err, &te) {
			te = &runtime.ToolError{Type: "Error", Message: err.Error()}
		}
		b, _ := jsonenc.Marshal(te)
		fmt.Fprintln(stderr, string(b))
		if hint := dashedHint(pos[0], t, raw); dashed && hint != "" {
			fmt.Fprintln(stderr, hint)
		}
		return 1
	}
	var text string
	if t.Results.Format == spec.FormatText && json.Unmarshal(res, &text) == nil {
		// The text as the host receives it; on a terminal, a final newline the text lacks is added so
		// that the shell's prompt does not follow it on the same line (a pipe or file gets the bytes).
		if text != "" && !strings.HasSuffix(text, "\n") && isTerminal(stdout) {
			text += "\n"
		}
		io.WriteString(stdout, text)
		return 0
	}
	// Two writes: appending the newline would copy an answer of megabytes into a buffer of twice its size.
	stdout.Write(res)
	io.WriteString(stdout, "\n")
	return 0
}

// dashedHint says, after an error the tool raised for a call of the -- form that left out a parameter the
// tool requires, how to send it: the parameters missing and a -params line that sends them. It is "" when
// the call sent every required parameter (the error is then about what was sent, in the variant's words).
func dashedHint(variant string, t *spec.Tool, sent json.RawMessage) string {
	cmd := t.Param(spec.RoleCommand)
	var missing []string
	example := "{" + strconv.Quote(cmd.Name) + ":" + string(field(sent, cmd.Name))
	for _, p := range t.Params {
		if p.Name != cmd.Name && p.Required {
			missing = append(missing, p.Name)
			example += "," + strconv.Quote(p.Name) + ":" + placeholder(p)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("agentbash run: the -- form sends only %s; %s also requires %s: give every parameter with -params, as in\n  agentbash run %s -params '%s'",
		cmd.Name, t.Name, strings.Join(missing, ", "), variant, strings.ReplaceAll(example+"}", "'", `'\''`))
}

// field returns the JSON of the field name of the object raw.
func field(raw json.RawMessage, name string) json.RawMessage {
	var m map[string]json.RawMessage
	json.Unmarshal(raw, &m)
	return m[name]
}

// placeholder is a value of p's type for an example: its default, else a value its checks accept.
func placeholder(p spec.Param) string {
	if p.Default != nil {
		if b, err := json.Marshal(p.Default); err == nil {
			return string(b)
		}
	}
	switch p.Type {
	case spec.TypeInteger, spec.TypeNumber:
		if p.Minimum != nil {
			return strconv.FormatFloat(max(*p.Minimum, 1), 'g', -1, 64)
		}
		return "1"
	case spec.TypeBoolean:
		return "false"
	case spec.TypeObject:
		return "{}"
	}
	return strconv.Quote(strings.ToUpper(p.Name))
}

// cmdList prints the built-in variants, one a line; with -host, only those whose model-facing contract
// that host framework expects (exit status 1 when none does).
func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	host := fs.String("host", "", "only the variants for this host framework `NAME` (compared without case)")
	pos, code, ok := listCmd.parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return listCmd.usageError(stderr, "unexpected argument %q", pos[0])
	}
	ids := variants.IDs()
	if *host != "" {
		ids = variants.ForHostIDs(*host)
		if len(ids) == 0 {
			var hosts []string
			infos, _ := variants.List()
			for _, in := range infos {
				hosts = append(hosts, in.Hosts...)
			}
			fmt.Fprintf(stderr, "agentbash list: no built-in variant for host %q%s (hosts: %s)\n", *host,
				didYouMean(*host, hosts, ""), strings.Join(hosts, ", "))
			return 1
		}
	}
	if err := listTable(ids, stdout); err != nil {
		return listCmd.fail(stderr, err)
	}
	return 0
}

// listTable prints the built-ins with these ids (internal/matrix.List).
func listTable(ids []string, stdout io.Writer) error {
	vs := make([]*spec.Variant, len(ids))
	for i, id := range ids {
		v, err := variants.Spec(id)
		if err != nil {
			return err
		}
		vs[i] = v
	}
	return matrix.List(stdout, vs)
}

// cmdSpec is `agentbash spec validate FILE...` and `agentbash spec schema`.
func cmdSpec(args []string, stdout, stderr io.Writer) int {
	sub, args, code := specCmd.subcommand(args, stdout, stderr)
	if sub == nil {
		return code
	}
	fs := flag.NewFlagSet(sub.name, flag.ContinueOnError)
	pos, code, ok := sub.parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if sub == specSchemaCmd {
		if len(pos) > 0 {
			return sub.usageError(stderr, "unexpected argument %q", pos[0])
		}
		if _, err := stdout.Write(spec.SchemaJSON()); err != nil {
			return sub.fail(stderr, err)
		}
		return 0
	}
	if len(pos) == 0 {
		return sub.usageError(stderr, "name at least one spec file")
	}
	var failed []string
	for _, f := range pos {
		v, err := loadSpec(f)
		if err != nil {
			fmt.Fprintln(stdout, err)
			failed = append(failed, f)
			continue
		}
		for _, n := range v.Notes() {
			fmt.Fprintln(stdout, "note:", n)
		}
		fmt.Fprintf(stdout, "%s: ok (%s, %d tools)\n", f, v.ID, len(v.Tools))
	}
	if len(failed) > 0 {
		fmt.Fprintf(stderr, "agentbash spec validate: %d of %d specs are invalid\n", len(failed), len(pos))
		return 1
	}
	return 0
}

// cmdPolicy is `agentbash policy check VARIANT|SPEC.yaml [-policy NAME] -- COMMAND...` and `agentbash
// policy list`.
func cmdPolicy(args []string, stdout, stderr io.Writer) int {
	sub, args, code := policyCmd.subcommand(args, stdout, stderr)
	if sub == nil {
		return code
	}
	if sub == policyListCmd {
		pos, code, ok := sub.parse(flag.NewFlagSet(sub.name, flag.ContinueOnError), args, stdout, stderr)
		if !ok {
			return code
		}
		if len(pos) > 0 {
			return sub.usageError(stderr, "unexpected argument %q", pos[0])
		}
		return cmdPolicyList(stdout)
	}
	flagArgs, words, dashed := splitDashes(args)
	fs := flag.NewFlagSet(sub.name, flag.ContinueOnError)
	only := fs.String("policy", "", "check only the policy of this `NAME` (default: every policy the first tool checks, in order)")
	pos, code, ok := sub.parse(fs, flagArgs, stdout, stderr)
	if !ok {
		return code
	}
	switch {
	case len(pos) == 0:
		return sub.usageError(stderr, "name a variant or a spec file")
	case len(pos) > 1:
		return sub.usageError(stderr, "unexpected argument %q: put the command after --", pos[1])
	case !dashed:
		return sub.usageError(stderr, "give the command after --")
	}
	v, err := loadVariant(pos[0])
	if err != nil {
		return sub.fail(stderr, err)
	}
	command := strings.Join(words, " ")
	var verdicts []policy.Verdict
	if *only != "" {
		var all []string
		for _, p := range v.Policies {
			all = append(all, p.Name)
		}
		if !slices.Contains(all, *only) {
			return sub.fail(stderr, usagef("%s has no policy %q%s; its policies: %s", v.ID, *only, didYouMean(*only, all, ""), strings.Join(all, ", ")))
		}
		verdicts, err = policy.CheckPolicies(v, []string{*only}, command)
	} else {
		verdicts, err = policy.CheckVariantAll(v, v.Tools[0].Name, command)
	}
	if err != nil {
		return sub.fail(stderr, err)
	}
	if len(verdicts) == 0 {
		fmt.Fprintf(stdout, "allow: %s has no policy\n", v.ID)
		return 0
	}
	if verdict := policy.First(verdicts); !verdict.Allowed {
		typ := "denied"
		if verdict.Fail != nil && verdict.Fail.Type != "" {
			typ = verdict.Fail.Type
		}
		fmt.Fprintf(stdout, "deny (%s, %s): %s\n", verdict.Policy, typ, verdict.Message)
		return 3
	}
	names := make([]string, len(verdicts))
	for i, vd := range verdicts {
		names[i] = vd.Policy
	}
	fmt.Fprintf(stdout, "allow: %s\n", strings.Join(names, ", "))
	return 0
}

// cmdPolicyList prints the policy library: what a spec can name with `use:`.
func cmdPolicyList(stdout io.Writer) int {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tSUMMARY")
	for _, e := range spec.Library() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, e.Kind, strings.Join(strings.Fields(e.Summary), " "))
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	return 0
}

// parseWorkspaces reads -workspaces NAME=DIR,...: each name once, each directory existing.
func parseWorkspaces(arg string, withWorkspace bool) ([]runtime.Workspace, error) {
	if arg == "" {
		return nil, nil
	}
	if withWorkspace {
		return nil, usagef("give either -workspace DIR or -workspaces NAME=DIR,...")
	}
	var ws []runtime.Workspace
	seen := map[string]bool{}
	for _, item := range strings.Split(arg, ",") {
		name, dir, ok := strings.Cut(item, "=")
		switch {
		case !ok || name == "" || dir == "":
			return nil, usagef("-workspaces %s: want NAME=DIR, got %q", arg, item)
		case seen[name]:
			return nil, usagef("-workspaces %s: %q is named twice", arg, name)
		}
		seen[name] = true
		if err := checkDir("workspaces", dir); err != nil {
			return nil, err
		}
		ws = append(ws, runtime.Workspace{Name: name, Dir: dir})
	}
	return ws, nil
}
