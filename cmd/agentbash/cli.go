package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate" // spec.Parse and Load check YAML specs against the JSON Schema
	"github.com/agentbash/agentbash/variants"
)

// command describes one command or subcommand for its help and its usage errors. The commands are data
// only: Main dispatches to the functions that run them.
type command struct {
	name     string      // as typed after "agentbash": "run", "spec validate"
	summary  string      // one line, lower case, no final period
	usage    []string    // synopses, each after "agentbash "
	args     [][2]string // positional arguments: name, meaning
	about    string      // more, in a few lines (optional)
	examples []string    // command lines after "agentbash ", each optionally with "  # comment"
	subs     []*command  // subcommands of a group (spec, policy)
	hidden   bool        // not listed by agentbash help (target, an alias)
}

var (
	runCmd = &command{
		name:    "run",
		summary: "run a command through a variant's tool and print what the host receives",
		usage:   []string{"run VARIANT|SPEC.yaml [-tool NAME] [-workspace DIR | -workspaces NAME=DIR,...] [-sandbox MODE] [-executor docker -image IMAGE] [-params JSON | -- COMMAND...]"},
		args: [][2]string{
			{"VARIANT|SPEC.yaml", "a built-in variant (agentbash list) or a spec file"},
			{"COMMAND...", "the command, its words joined with spaces, as the tool's command parameter"},
		},
		about: `The result is printed exactly as the host receives it: a JSON object for a tool that returns one,
the text for a text tool (exit status 0, whatever the command's own exit status). An error the tool
raises is printed on stderr as {"type":"ValueError","message":"..."} with exit status 1.

The -- form sets only the command parameter: give a tool that requires more (codegensandbox's Bash
requires a description) all of them with -params.`,
		examples: []string{
			"run rye -- echo hello",
			`run toolregistry -params '{"command": "ls", "timeout": 5}'`,
			`run codegensandbox -params '{"command": "ls -a", "description": "list the files"}'  # every parameter, as JSON`,
			"run rye -sandbox workspace-write -- touch ../outside  # Read-only file system: writes only in the workspace",
			"run rye -executor docker -image agentbash-box -memory 512m -- uname -n  # in a container (README: Run commands in containers)",
		},
	}
	listCmd = &command{
		name:     "list",
		summary:  "list the built-in variants",
		usage:    []string{"list [-host NAME]"},
		about:    "With -host, only the variants whose contract that host framework gives its model (exit status 1 when none).",
		examples: []string{"list", "list -host pydantic-ai"},
	}
	matrixCmd = &command{
		name:     "matrix",
		summary:  "set the variants side by side, to choose one",
		usage:    []string{"matrix [-format md|json] [SPEC.yaml...]"},
		args:     [][2]string{{"SPEC.yaml...", "spec files to set beside the built-in variants"}},
		examples: []string{"matrix", "matrix -format json my.yaml"},
	}
	schemaCmd = &command{
		name:    "schema",
		summary: "print a variant's tool definitions as a model API takes them",
		usage:   []string{"schema VARIANT|SPEC.yaml [-format jsonschema|openai|openai-responses|anthropic|mcp|gemini] [-sandbox MODE]"},
		args:    [][2]string{{"VARIANT|SPEC.yaml", "a built-in variant or a spec file"}},
		about: `One JSON array per variant: openai (Chat Completions function tools), openai-responses (Responses
function tools), anthropic (Messages tools), mcp (MCP Tool objects), gemini (one generateContent tool
whose functionDeclarations are the variant's tools), jsonschema (a JSON Schema per tool).`,
		examples: []string{"schema tunacode -format anthropic"},
	}
	serveCmd = &command{
		name:    "serve",
		summary: "serve a variant to MCP clients (stdio, HTTP, SSE) or over the wire protocol",
		usage:   []string{"serve VARIANT|SPEC.yaml [-transport stdio|http|sse|wire] [-addr HOST:PORT] [-workspace DIR] [-token-file FILE] [-tls-cert FILE -tls-key FILE] [-audit FILE] [-sandbox MODE] [-executor docker -image IMAGE]"},
		args:    [][2]string{{"VARIANT|SPEC.yaml", "a built-in variant or a spec file"}},
		about: `stdio is what an MCP client starts as a subprocess; http serves MCP streamable HTTP at /mcp, sse MCP
HTTP+SSE at /sse (on 127.0.0.1 unless -addr says otherwise); wire is the JSON Lines protocol of
conformance/PROTOCOL.md. The server ends at the end of its input (stdio, wire), a closed stdout, SIGINT,
SIGTERM or SIGHUP, and first kills every process group it started. 'agentbash target' is serve -transport wire.

Over a network (http, sse): with a token (-token-file, or $AGENTBASH_TOKEN) every request must carry it
(Authorization: Bearer TOKEN), or is answered 401; an address beyond the loopback interface needs one
(or -insecure-no-token, with a warning); -tls-cert and -tls-key serve HTTPS. Sessions are bounded
(-max-sessions) and an idle one is closed (-session-idle); ending a session (DELETE) kills its calls.
-audit writes one JSON line per call. Over MCP, a call a permission policy asks about (an ask rule, as
-permissions gives them) is put to the client's user (MCP elicitation) and runs only if accepted; a client
that cannot ask gets the policy's denial.`,
		examples: []string{
			"serve codegensandbox",
			"serve rye -transport http -addr 127.0.0.1:8080 -workspace ~/project",
			"serve rye -transport http -addr 0.0.0.0:8443 -token-file ~/.agentbash-token -tls-cert cert.pem -tls-key key.pem -audit audit.jsonl",
			"serve agentrail -transport http -permissions perms.json    (perms.json: {\"ask\": [\"Bash(rm:*)\"]})",
			"serve codegensandbox -sandbox workspace-write -workspace ~/project",
		},
	}
	targetCmd = &command{
		name:     "target",
		summary:  "serve a variant over the wire protocol (the same as serve -transport wire)",
		usage:    []string{"target VARIANT|SPEC.yaml"},
		args:     [][2]string{{"VARIANT|SPEC.yaml", "a built-in variant or a spec file"}},
		examples: []string{"target toolregistry"},
		hidden:   true,
	}
	conformanceCmd = &command{
		name:    "conformance",
		summary: "check an implementation of a contract against its spec",
		usage: []string{
			"conformance VARIANT|SPEC.yaml [flags] -- TARGET-ARGV...      (wire protocol; with -mcp: MCP over stdio)",
			"conformance VARIANT|SPEC.yaml -model API [flags] -- HOST-ARGV...   (a host CLI; the suite plays the model)",
			"conformance VARIANT|SPEC.yaml [flags] -mcp-http URL -workspace DIR",
			"conformance VARIANT|SPEC.yaml [flags] -mcp-sse URL -workspace DIR",
			"conformance VARIANT|SPEC.yaml -list",
		},
		args: [][2]string{
			{"VARIANT|SPEC.yaml", "the contract: a built-in variant or a spec file"},
			{"TARGET-ARGV...", "the command that starts the implementation under test"},
			{"HOST-ARGV...", "the command that starts an agent CLI pointed at {base_url}, in {workspace}, with HOME at {home}"},
		},
		about: `Every case derived from the spec runs on agentbash's runtime and on the target, each in a fresh
identical workspace, and the answers are compared (conformance/PROTOCOL.md). Exit status 1 when a case
failed (expected failures of the -baseline aside), a baseline entry is stale, the target did not close
cleanly, or no case was sent; the summary's last lines say which.`,
		examples: []string{
			"conformance toolregistry -- python3 conformance/examples/python/toolregistry_target.py",
			"conformance rye -mcp -trusted -- agentbash serve rye -workspace {workspace}",
			"conformance toolregistry -baseline conformance/examples/python/baseline.yaml -junit report.xml -- python3 conformance/examples/python/toolregistry_target.py",
			"conformance toolregistry -baseline conformance/examples/python/baseline.yaml -update-baseline -- python3 conformance/examples/python/toolregistry_target.py",
			"conformance toolregistry -run basics -v -json -- python3 conformance/examples/python/toolregistry_target.py > report.json",
		},
	}
	specCmd = &command{
		name:    "spec",
		summary: "validate spec files; print the spec language's JSON Schema",
		usage:   []string{"spec validate FILE...", "spec schema"},
	}
	specValidateCmd = &command{
		name:     "spec validate",
		summary:  "load and compile spec files, and report every problem with file:line:col",
		usage:    []string{"spec validate FILE..."},
		args:     [][2]string{{"FILE...", "spec files (YAML)"}},
		about:    "Exit status 1 when a spec is invalid.",
		examples: []string{"spec validate variants/*/*.yaml"},
	}
	specSchemaCmd = &command{
		name:     "spec schema",
		summary:  "print the JSON Schema of the spec language, for editors",
		usage:    []string{"spec schema"},
		examples: []string{"spec schema > schema.json"},
	}
	policyCmd = &command{
		name:    "policy",
		summary: "check a command against a variant's policies; list the policy library",
		usage:   []string{"policy check VARIANT|SPEC.yaml [-policy NAME] -- COMMAND...", "policy list"},
	}
	policyCheckCmd = &command{
		name:    "policy check",
		summary: "print a policy's verdict on a command, without running it",
		usage:   []string{"policy check VARIANT|SPEC.yaml [-policy NAME] -- COMMAND..."},
		args: [][2]string{
			{"VARIANT|SPEC.yaml", "a built-in variant or a spec file"},
			{"COMMAND...", "the command, its words joined with spaces"},
		},
		about:    "Exit status 3 when a policy denies the command.",
		examples: []string{"policy check toolregistry -- git push --force origin main"},
	}
	policyListCmd = &command{
		name:     "policy list",
		summary:  "list the policy library: the policies a spec can name with use:",
		usage:    []string{"policy list"},
		examples: []string{"policy list"},
	}
	genCmd = &command{
		name:    "gen",
		summary: "generate the typed Go adapter of a spec",
		usage:   []string{"gen -spec FILE -out FILE [-pkg NAME] [-check]"},
		about: `The generated package holds the spec compiled to Go (it reads no YAML at run time). The output is
the same bytes every time. In a module, put the generator in a go:generate line (cmd/agentbash-gen is the
same generator without the rest of the CLI):
  //go:generate go run github.com/agentbash/agentbash/cmd/agentbash-gen -spec myshell.yaml -out myshell_gen.go -pkg myshell`,
		examples: []string{"gen -spec myshell.yaml -out myshell_gen.go -pkg myshell"},
	}
	versionCmd = &command{
		name:     "version",
		summary:  "print agentbash's version, revision and Go version",
		usage:    []string{"version"},
		examples: []string{"version"},
	}
	helpCmd = &command{
		name:     "help",
		summary:  "show the commands, or a command's arguments, flags and examples",
		usage:    []string{"help [COMMAND [SUBCOMMAND]]"},
		examples: []string{"help run", "help spec validate"},
	}
)

func init() {
	specCmd.subs = []*command{specValidateCmd, specSchemaCmd}
	policyCmd.subs = []*command{policyCheckCmd, policyListCmd}
}

// allCommands lists the top-level commands in the order help shows them.
func allCommands() []*command {
	return []*command{runCmd, listCmd, matrixCmd, schemaCmd, serveCmd, conformanceCmd, specCmd, policyCmd,
		genCmd, sandboxCmd, versionCmd, helpCmd, targetCmd}
}

const about = "agentbash: the Bash-tool contracts of agent frameworks, described in YAML: run them, serve them,\ngenerate typed Go adapters for them, and check implementations against them."

// printMain prints the list of commands.
func printMain(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nusage: agentbash COMMAND [ARGUMENTS] [FLAGS]\n\ncommands:\n", about)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range allCommands() {
		if !c.hidden {
			fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
		}
	}
	tw.Flush()
	fmt.Fprint(w, "\nRun 'agentbash help COMMAND' (or 'agentbash COMMAND -h') for a command's arguments, flags and examples.\n")
}

// printHelp prints c's help: its summary, usage, arguments, subcommands, flags (fs, if any) and examples.
func (c *command) printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "agentbash %s: %s\n\nusage:\n", c.name, c.summary)
	for _, u := range c.usage {
		fmt.Fprintf(w, "  agentbash %s\n", u)
	}
	if len(c.args) > 0 {
		fmt.Fprint(w, "\narguments:\n")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, a := range c.args {
			fmt.Fprintf(tw, "  %s\t%s\n", a[0], a[1])
		}
		tw.Flush()
	}
	if len(c.subs) > 0 {
		fmt.Fprint(w, "\nsubcommands:\n")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, s := range c.subs {
			fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimPrefix(s.name, c.name+" "), s.summary)
		}
		tw.Flush()
	}
	if c.about != "" {
		fmt.Fprintf(w, "\n%s\n", c.about)
	}
	if fs != nil && hasFlags(fs) {
		fmt.Fprint(w, "\nflags:\n")
		out := fs.Output()
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(out)
	}
	var examples []string
	examples = append(examples, c.examples...)
	for _, s := range c.subs {
		examples = append(examples, s.examples...)
	}
	if len(examples) > 0 {
		fmt.Fprint(w, "\nexamples:\n")
		for _, e := range examples {
			fmt.Fprintf(w, "  agentbash %s\n", e)
		}
	}
	if len(c.subs) > 0 {
		fmt.Fprintf(w, "\nRun 'agentbash %s SUBCOMMAND -h' for a subcommand's arguments and flags.\n", c.name)
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// usageError prints "agentbash NAME: MESSAGE", c's usage and where to find more, and returns 2.
func (c *command) usageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "agentbash %s: %s\n", c.name, fmt.Sprintf(format, a...))
	for i, u := range c.usage {
		if i == 0 {
			fmt.Fprintf(stderr, "usage: agentbash %s\n", u)
		} else {
			fmt.Fprintf(stderr, "       agentbash %s\n", u)
		}
	}
	fmt.Fprintf(stderr, "Run 'agentbash help %s' for details.\n", c.name)
	return 2
}

// fail prints an error of command c and returns its exit status: 2 for a usage error (something the user
// typed that names nothing: a variant, a tool, a flag value), 1 for any other failure.
func (c *command) fail(stderr io.Writer, err error) int {
	var ue *usageErr
	if errors.As(err, &ue) {
		return c.usageError(stderr, "%s", ue.msg)
	}
	fmt.Fprintf(stderr, "agentbash %s: %v\n", c.name, err)
	return 1
}

// usageErr is an error in what the user typed.
type usageErr struct{ msg string }

func (e *usageErr) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageErr{fmt.Sprintf(format, a...)} }

// didYouMean returns " (did you mean X?)" for the name of names nearest s, or "". A name too far for a
// typo is still suggested when it is the only one that s (three characters at least) begins: "codegen" is
// codegensandbox cut short.
func didYouMean(s string, names []string, prefix string) string {
	if n := spec.Nearest(s, names); n != "" {
		return fmt.Sprintf(" (did you mean %s%s?)", prefix, n)
	}
	if len(s) < 3 {
		return ""
	}
	// A name cut short: every name it begins, when they are few.
	var cands []string
	for _, name := range names {
		if strings.HasPrefix(strings.ToLower(name), strings.ToLower(s)) {
			cands = append(cands, prefix+name)
		}
	}
	switch {
	case len(cands) == 0 || len(cands) > 3:
		return ""
	case len(cands) == 1:
		return fmt.Sprintf(" (did you mean %s?)", cands[0])
	}
	return fmt.Sprintf(" (did you mean %s or %s?)", strings.Join(cands[:len(cands)-1], ", "), cands[len(cands)-1])
}

// parse parses args with fs, positional arguments and flags in any order (a positional argument may come
// before, between or after the flags), and returns the positional arguments. ok is false when the command
// is done: -h printed c's help on stdout (code 0), or a bad flag was reported on stderr (code 2).
func (c *command) parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (pos []string, code int, ok bool) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.printHelp(stdout, fs)
			return nil, 0, false
		}
		if err != nil {
			return nil, c.flagError(stderr, fs, err), false
		}
		if fs.NArg() == 0 {
			return pos, 0, true
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// flagError reports a flag the flag package refused, with the nearest defined flag for an unknown one.
func (c *command) flagError(stderr io.Writer, fs *flag.FlagSet, err error) int {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg = fmt.Sprintf("unknown flag -%s%s", name, didYouMean(name, names, "-"))
		if len(names) == 0 {
			msg = fmt.Sprintf("unknown flag -%s (agentbash %s takes no flags)", name, c.name)
		}
	}
	return c.usageError(stderr, "%s", msg)
}

// isHelp reports whether a is a request for help.
func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// loadVariant loads a built-in variant by id or a spec file by path (a name ending in .yaml or .yml, or
// holding a path separator, or naming an existing file that is not a built-in id). An unknown built-in is
// a usage error with the nearest id.
func loadVariant(name string) (*spec.Variant, error) {
	ids := variants.IDs()
	isID := false
	for _, id := range ids {
		isID = isID || id == name
	}
	if !isID {
		st, statErr := os.Stat(name)
		if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.ContainsRune(name, os.PathSeparator) ||
			statErr == nil && st.Mode().IsRegular() {
			return spec.Load(name)
		}
		return nil, usagef("unknown variant %q%s; the built-in variants are %s, or name a spec file (SPEC.yaml)",
			name, didYouMean(name, ids, ""), strings.Join(ids, ", "))
	}
	return variants.Spec(name)
}

// toolNamed returns the tool of v named name, or a usage error with the nearest name.
func toolNamed(v *spec.Variant, name string) (*spec.Tool, error) {
	var names []string
	for i := range v.Tools {
		if v.Tools[i].Name == name {
			return &v.Tools[i], nil
		}
		names = append(names, v.Tools[i].Name)
	}
	return nil, usagef("%s has no tool %q%s; its tools: %s", v.ID, name, didYouMean(name, names, ""), strings.Join(names, ", "))
}

// checkDir makes sure a directory flag names an existing directory, before anything runs.
func checkDir(flagName, dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return usagef("-%s %s: no such directory", flagName, dir)
	case err != nil:
		return usagef("-%s %s: %v", flagName, dir, errors.Unwrap(err))
	case !st.IsDir():
		return usagef("-%s %s: not a directory", flagName, dir)
	}
	return nil
}

// subcommand dispatches a group's subcommand: it returns the subcommand named by args[0] and the rest, or
// handles help (exit 0) and an unknown or missing subcommand (exit 2) itself.
func (c *command) subcommand(args []string, stdout, stderr io.Writer) (sub *command, rest []string, code int) {
	var names []string
	for _, s := range c.subs {
		names = append(names, strings.TrimPrefix(s.name, c.name+" "))
	}
	if len(args) == 0 {
		return nil, nil, c.usageError(stderr, "name a subcommand: %s", strings.Join(names, ", "))
	}
	if isHelp(args[0]) {
		c.printHelp(stdout, nil)
		return nil, nil, 0
	}
	for i, n := range names {
		if args[0] == n {
			return c.subs[i], args[1:], 0
		}
	}
	if strings.HasPrefix(args[0], "-") {
		return nil, nil, c.usageError(stderr, "unknown flag %s: name a subcommand first (%s)", args[0], strings.Join(names, ", "))
	}
	return nil, nil, c.usageError(stderr, "unknown subcommand %q%s; subcommands: %s", args[0], didYouMean(args[0], names, ""), strings.Join(names, ", "))
}
