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

// cmdServe serves a variant to hosts: `agentbash serve VARIANT|SPEC.yaml [-transport stdio|http|sse|wire]
// [-addr HOST:PORT] [-workspace DIR]`. It runs until the end of its input (stdio, wire), a closed stdout,
// or SIGINT, SIGTERM or SIGHUP; then it kills and reaps every process group it started and exits 0.
func cmdServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	transport := fs.String("transport", serve.Stdio, "stdio (MCP), http (MCP streamable HTTP at /mcp), sse (MCP HTTP+SSE at /sse) or wire (the conformance wire protocol on stdin and stdout)")
	addr := fs.String("addr", serve.DefaultAddr, "the `HOST:PORT` the http and sse transports listen on (port 0: any free port)")
	workspace := fs.String("workspace", "", "the workspace root `DIR`, which must exist: the MCP server's, and the wire protocol's for a request that names none (default: the current directory)")
	sbx := addSandboxFlags(fs)
	pos, code, ok := serveCmd.parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	switch {
	case len(pos) == 0:
		return serveCmd.usageError(stderr, "name a variant or a spec file")
	case len(pos) > 1:
		return serveCmd.usageError(stderr, "unexpected argument %q", pos[1])
	case !slices.Contains(serve.Transports(), *transport):
		return serveCmd.usageError(stderr, "unknown transport %q%s; transports: %s", *transport,
			didYouMean(*transport, serve.Transports(), ""), strings.Join(serve.Transports(), ", "))
	}
	if *workspace != "" {
		if err := checkDir("workspace", *workspace); err != nil {
			return serveCmd.fail(stderr, err)
		}
	}
	return runServe(serveCmd, pos[0], serve.Config{Transport: *transport, Addr: *addr, Workspace: *workspace}, sbx, stdin, stdout, stderr)
}

// cmdTarget is `agentbash target VARIANT|SPEC.yaml`: serve -transport wire, kept for the scripts that call it.
func cmdTarget(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	pos, code, ok := targetCmd.parse(flag.NewFlagSet("target", flag.ContinueOnError), args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return targetCmd.usageError(stderr, "name one variant or spec file")
	}
	return runServe(targetCmd, pos[0], serve.Config{Transport: serve.Wire}, nil, stdin, stdout, stderr)
}

func runServe(cmd *command, name string, c serve.Config, sbx *sandboxFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	v, err := loadVariant(name)
	if err == nil && sbx != nil {
		err = sbx.apply(v, stderr)
	}
	if err != nil {
		return cmd.fail(stderr, err)
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
