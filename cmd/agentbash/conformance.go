package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"time"

	"github.com/agentbash/agentbash/conformance"
)

const conformanceUsage = `usage:
  agentbash conformance VARIANT|SPEC.yaml [-json] [-trusted] [-mcp] [-run REGEXP] [-deadline D] -- TARGET-ARGV...
  agentbash target VARIANT|SPEC.yaml
`

// cmdConformance checks a target against a spec: `agentbash conformance VARIANT|SPEC.yaml [flags] --
// TARGET-ARGV...`. It prints the report (text, or JSON with -json) and exits 1 when a case failed, 2 on a
// usage error.
func cmdConformance(args []string, stdout, stderr io.Writer) int {
	flagArgs, argv, dashed := splitDashes(args)
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	trusted := fs.Bool("trusted", false, "also send policy examples as written (blocked commands): only for a target known to check its policies before running anything")
	mcp := fs.Bool("mcp", false, "the target is an MCP server over stdio (started per case in the case's workspace; {workspace} in its argv is replaced)")
	run := fs.String("run", "", "run only the cases whose name matches this regular expression")
	deadline := fs.Duration("deadline", 0, "time the target has to answer each request (default: the case's bound plus 10s)")
	name, err := parseNamed(fs, flagArgs)
	if err != nil {
		return 2
	}
	if name == "" || !dashed || len(argv) == 0 {
		fmt.Fprint(stderr, "agentbash conformance: want VARIANT|SPEC.yaml [flags] -- TARGET-ARGV...\n", conformanceUsage)
		return 2
	}
	v, err := loadVariant(name)
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	var opts []conformance.Option
	if *trusted {
		opts = append(opts, conformance.Trusted())
	}
	if *deadline > 0 {
		opts = append(opts, conformance.Deadline(*deadline))
	}
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			fmt.Fprintln(stderr, "agentbash conformance: -run:", err)
			return 2
		}
		opts = append(opts, conformance.Filter(func(c conformance.Case) bool { return re.MatchString(c.Name) }))
	}
	var target conformance.Target
	if *mcp {
		target = conformance.MCP(argv...)
	} else {
		w := conformance.Wire(argv...)
		w.Stderr = stderr
		target = w
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	report, err := conformance.Check(ctx, v, target, opts...)
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	if *asJSON {
		b, err := report.JSON()
		if err != nil {
			fmt.Fprintln(stderr, "agentbash:", err)
			return 1
		}
		stdout.Write(b)
	} else {
		io.WriteString(stdout, report.Summary())
	}
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "agentbash conformance: interrupted after %s\n", time.Since(start).Round(time.Millisecond))
		return 1
	}
	if !report.OK() {
		return 1
	}
	return 0
}

// cmdTarget serves a variant on the conformance wire protocol on stdin and stdout: `agentbash target
// VARIANT|SPEC.yaml`. It exits 0 at EOF.
func cmdTarget(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(stderr, "agentbash target: want VARIANT|SPEC.yaml\n", conformanceUsage)
		return 2
	}
	v, err := loadVariant(args[0])
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := conformance.ServeWire(ctx, v, stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "agentbash target:", err)
		return 1
	}
	return 0
}
