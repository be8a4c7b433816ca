// Command agentbash runs, lists, validates and checks agent Bash-tool variants described in YAML.
//
//	agentbash run VARIANT|SPEC.yaml [-tool NAME] [-workspace DIR] [-params JSON | -- COMMAND...]
//	agentbash list [-host NAME]
//	agentbash matrix [-format md|json] [SPEC.yaml...]
//	agentbash schema VARIANT|SPEC.yaml [-format jsonschema|openai|openai-responses|anthropic|mcp]
//	agentbash spec validate FILE...
//	agentbash spec schema
//	agentbash policy check VARIANT|SPEC.yaml [-policy NAME] -- COMMAND...
//	agentbash policy list
//	agentbash gen -spec FILE -out FILE [-pkg NAME] [-check]
//	agentbash serve VARIANT|SPEC.yaml [-transport stdio|http|sse|wire] [-addr HOST:PORT] [-workspace DIR]
//	agentbash conformance VARIANT|SPEC.yaml [flags] -- TARGET-ARGV...  (or -mcp-http URL, -mcp-sse URL)
//	agentbash target VARIANT|SPEC.yaml  (serve -transport wire)
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
	"strings"
	"text/tabwriter"

	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

func main() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage:
  agentbash run VARIANT|SPEC.yaml [-tool NAME] [-workspace DIR] [-params JSON | -- COMMAND...]
  agentbash list [-host NAME]
  agentbash matrix [-format md|json] [SPEC.yaml...]
  agentbash schema VARIANT|SPEC.yaml [-format jsonschema|openai|openai-responses|anthropic|mcp]
  agentbash spec validate FILE...
  agentbash spec schema
  agentbash policy check VARIANT|SPEC.yaml [-policy NAME] -- COMMAND...
  agentbash policy list
  agentbash gen -spec FILE -out FILE [-pkg NAME] [-check]
  agentbash serve VARIANT|SPEC.yaml [-transport stdio|http|sse|wire] [-addr HOST:PORT] [-workspace DIR]
  agentbash conformance VARIANT|SPEC.yaml [flags] -- TARGET-ARGV...  (or -mcp-http URL, -mcp-sse URL)
  agentbash target VARIANT|SPEC.yaml  (serve -transport wire)
`

// Main runs the CLI with args and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "list":
		return cmdList(args[1:], stdout, stderr)
	case "schema":
		return cmdSchema(args[1:], stdout, stderr)
	case "matrix":
		return cmdMatrix(args[1:], stdout, stderr)
	case "spec":
		err = cmdSpec(args[1:], stdout)
	case "policy":
		return cmdPolicy(args[1:], stdout, stderr)
	case "gen":
		return cmdGen(args[1:], stdout, stderr)
	case "conformance":
		return cmdConformance(args[1:], stdout, stderr)
	case "serve":
		return cmdServe(args[1:], os.Stdin, stdout, stderr)
	case "target":
		return cmdTarget(args[1:], os.Stdin, stdout, stderr)
	case "sandbox":
		return cmdSandbox(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "agentbash: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	return 0
}

// loadVariant loads a built-in variant by id or a spec file by path.
func loadVariant(name string) (*spec.Variant, error) {
	if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.ContainsRune(name, os.PathSeparator) {
		return spec.Load(name)
	}
	return variants.Spec(name)
}

// parseNamed parses a command's flags around its variant or spec name, which may come before the flags
// or as the first word after them. It returns "" when no name was given.
func parseNamed(fs *flag.FlagSet, args []string) (string, error) {
	name := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	}
	return name, nil
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

func cmdRun(args []string, stdout, stderr io.Writer) int {
	flagArgs, words, dashed := splitDashes(args)
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	toolName := fs.String("tool", "", "tool to call (default: the variant's first tool)")
	workspace := fs.String("workspace", "", "workspace root (default: the current directory)")
	params := fs.String("params", "", "parameters as a JSON object, as a model would send them")
	sbx := addSandboxFlags(fs)
	target, err := parseNamed(fs, flagArgs)
	if err != nil {
		return 2
	}
	if target == "" {
		fmt.Fprint(stderr, "agentbash run: name a variant or a spec file\n", usage)
		return 2
	}
	if dashed == (*params != "") {
		fmt.Fprintln(stderr, "agentbash run: give either -params JSON or -- COMMAND...")
		return 2
	}
	v, err := loadVariant(target)
	if err == nil {
		err = sbx.apply(v, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	t := &v.Tools[0]
	if *toolName != "" {
		t = nil
		for i := range v.Tools {
			if v.Tools[i].Name == *toolName {
				t = &v.Tools[i]
			}
		}
		if t == nil {
			fmt.Fprintf(stderr, "agentbash: variant %s has no tool %q\n", v.ID, *toolName)
			return 1
		}
	}
	raw := json.RawMessage(*params)
	if dashed {
		p := t.Param(spec.RoleCommand)
		if p == nil {
			fmt.Fprintf(stderr, "agentbash: tool %s takes no command; use -params\n", t.Name)
			return 2
		}
		raw, _ = json.Marshal(map[string]string{p.Name: strings.Join(words, " ")})
	}
	var opts []runtime.Option
	if *workspace != "" {
		opts = append(opts, runtime.WithWorkspace(*workspace))
	}
	eng, err := runtime.New(v, opts...)
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
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
		return 1
	}
	var text string
	if t.Results.Format == "text" && json.Unmarshal(res, &text) == nil {
		io.WriteString(stdout, text)
		return 0
	}
	stdout.Write(append(res, '\n'))
	return 0
}

// cmdList prints the built-in variants, one a line; with -host, only those whose model-facing contract
// that host framework expects (exit status 1 when none does).
func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	host := fs.String("host", "", "only the variants for this host framework (compared without case)")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "agentbash list: want [-host NAME]")
		return 2
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
			fmt.Fprintf(stderr, "agentbash list: no built-in variant for host %q (hosts: %s)\n", *host, strings.Join(hosts, ", "))
			return 1
		}
	}
	if err := listTable(ids, stdout); err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	return 0
}

func listTable(ids []string, stdout io.Writer) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSHELL\tTIMEOUT\tON EXPIRY\tOUTPUT LIMIT\tRESULT\tTOOLS\tHOSTS")
	for _, id := range ids {
		v, err := variants.Spec(id)
		if err != nil {
			return err
		}
		t := v.Tools[0]
		shell := strings.Join(v.Shell.Argv, " ")
		if v.Shell.Embedded {
			shell = "(embedded)"
		}
		timeout, expiry := "-", "-"
		if t.Timeout != nil {
			timeout = fmt.Sprintf("%g%s", t.Timeout.Default, t.Timeout.Unit)
			expiry = string(t.Timeout.Expiry)
		}
		limit := "-"
		if t.Output.Truncate != nil {
			tr := t.Output.Truncate
			scope := "per stream"
			if t.Output.Capture == "combined" {
				scope = "combined"
			}
			limit = fmt.Sprintf("%d %s %s (%s)", tr.Limit, tr.Unit, tr.Keep, scope)
		}
		for _, tr := range t.ResultTruncates() {
			limit = fmt.Sprintf("%d %s %s (result)", tr.Limit, tr.Unit, tr.Keep)
		}
		names := make([]string, len(v.Tools))
		for i, t := range v.Tools {
			names[i] = t.Name
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, shell, timeout, expiry, limit, t.Results.Format,
			strings.Join(names, ","), strings.Join(v.Hosts, ","))
	}
	return tw.Flush()
}

func cmdSpec(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("spec: want validate FILE... or schema")
	}
	switch args[0] {
	case "schema":
		_, err := stdout.Write(spec.SchemaJSON())
		return err
	case "validate":
		if len(args) < 2 {
			return errors.New("spec validate: name at least one file")
		}
		var failed []string
		for _, f := range args[1:] {
			v, err := spec.Load(f)
			if err == nil {
				// Compiling checks what the loader cannot: regexes, policy examples.
				var eng *runtime.Engine
				if eng, err = runtime.New(v); err == nil {
					eng.Close()
				}
			}
			if err != nil {
				fmt.Fprintln(stdout, err)
				failed = append(failed, f)
				continue
			}
			fmt.Fprintf(stdout, "%s: ok (%s, %d tools)\n", f, v.ID, len(v.Tools))
		}
		if len(failed) > 0 {
			return fmt.Errorf("%d of %d specs are invalid", len(failed), len(args)-1)
		}
		return nil
	}
	return fmt.Errorf("spec: unknown subcommand %q", args[0])
}

func cmdPolicy(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "list" {
		return cmdPolicyList(stdout)
	}
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprint(stderr, "agentbash policy: want check or list\n", usage)
		return 2
	}
	flagArgs, words, dashed := splitDashes(args[1:])
	fs := flag.NewFlagSet("policy check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	only := fs.String("policy", "", "check only this policy (default: every policy the first tool runs, in order)")
	target, err := parseNamed(fs, flagArgs)
	if err != nil {
		return 2
	}
	if target == "" || !dashed {
		fmt.Fprint(stderr, "agentbash policy check: want VARIANT|SPEC.yaml -- COMMAND...\n")
		return 2
	}
	v, err := loadVariant(target)
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	eng, err := runtime.New(v)
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	defer eng.Close()
	command := strings.Join(words, " ")
	var names []string
	if *only != "" {
		names = []string{*only}
	} else {
		for _, ch := range v.Tools[0].Checks {
			if ch.Policy != "" {
				names = append(names, ch.Policy)
			}
		}
	}
	if len(names) == 0 {
		fmt.Fprintf(stdout, "allow: %s has no policy\n", v.ID)
		return 0
	}
	for _, n := range names {
		chk, ok := eng.Policy(n)
		if !ok {
			fmt.Fprintf(stderr, "agentbash: %s has no policy %q\n", v.ID, n)
			return 1
		}
		if verdict := chk.Check(command); !verdict.Allowed {
			typ := "denied"
			if verdict.Fail != nil && verdict.Fail.Type != "" {
				typ = verdict.Fail.Type
			}
			fmt.Fprintf(stdout, "deny (%s, %s): %s\n", n, typ, verdict.Message)
			return 3
		}
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
