package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/agentbash/agentbash/runtime/serve"
)

const serveUsage = `usage:
  agentbash serve VARIANT|SPEC.yaml [-transport stdio|http|sse|wire] [-addr HOST:PORT] [-workspace DIR]
  agentbash target VARIANT|SPEC.yaml     (the same as serve -transport wire)
`

// cmdServe serves a variant to hosts: `agentbash serve VARIANT|SPEC.yaml [-transport stdio|http|sse|wire]
// [-addr HOST:PORT] [-workspace DIR]`. It runs until the end of its input (stdio, wire), a closed stdout,
// or SIGINT, SIGTERM or SIGHUP; then it kills and reaps every process group it started and exits 0.
func cmdServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	transport := fs.String("transport", serve.Stdio, "stdio (MCP), http (MCP streamable HTTP at /mcp), sse (MCP HTTP+SSE at /sse) or wire (the conformance wire protocol on stdin and stdout)")
	addr := fs.String("addr", serve.DefaultAddr, "listening address of the http and sse transports")
	workspace := fs.String("workspace", "", "workspace root: the MCP server's, and the wire protocol's for a request that names none (default: the current directory)")
	sbx := addSandboxFlags(fs)
	name, err := parseNamed(fs, args)
	if err != nil {
		return 2
	}
	if name == "" || fs.NArg() > 1 || (fs.NArg() == 1 && fs.Arg(0) != name) {
		fmt.Fprint(stderr, "agentbash serve: want VARIANT|SPEC.yaml\n", serveUsage)
		return 2
	}
	if !slices.Contains(serve.Transports(), *transport) {
		fmt.Fprintf(stderr, "agentbash serve: unknown transport %q (want %s)\n", *transport, strings.Join(serve.Transports(), ", "))
		return 2
	}
	return runServe(name, serve.Config{Transport: *transport, Addr: *addr, Workspace: *workspace}, sbx, stdin, stdout, stderr)
}

// cmdTarget is `agentbash target VARIANT|SPEC.yaml`: serve -transport wire, kept for the scripts that call it.
func cmdTarget(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(stderr, "agentbash target: want VARIANT|SPEC.yaml\n", serveUsage)
		return 2
	}
	return runServe(args[0], serve.Config{Transport: serve.Wire}, nil, stdin, stdout, stderr)
}

func runServe(name string, c serve.Config, sbx *sandboxFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	v, err := loadVariant(name)
	if err == nil && sbx != nil {
		err = sbx.apply(v, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	c.Variant, c.Stdin, c.Stdout, c.Log = v, stdin, stdout, stderr
	// A write to a closed stdout must fail with EPIPE, not kill the process before it kills its commands:
	// handling SIGPIPE does that (ignoring it would be inherited by the commands).
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	err = serve.Run(ctx, c)
	switch {
	case err == nil || ctx.Err() != nil && errors.Is(err, context.Canceled):
		return 0
	case errors.Is(err, syscall.EPIPE) || errors.Is(err, serve.ErrOutputClosed):
		// The client closed our stdout: everything was killed and reaped all the same.
		fmt.Fprintln(stderr, "agentbash serve: stdout closed:", err)
		return 0
	}
	fmt.Fprintln(stderr, "agentbash serve:", err)
	return 1
}
