package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/policy"
	"github.com/agentbash/agentbash/runtime/serve"
)

// cmdServe serves a variant to hosts: `agentbash serve VARIANT|SPEC.yaml [-transport stdio|http|sse|wire]
// [-addr HOST:PORT] [-workspace DIR] [flags]`. It runs until the end of its input (stdio, wire), a closed
// stdout, or SIGINT, SIGTERM or SIGHUP; then it kills and reaps every process group it started and exits 0.
func cmdServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	transport := fs.String("transport", serve.Stdio, "stdio (MCP), http (MCP streamable HTTP at /mcp), sse (MCP HTTP+SSE at /sse) or wire (the conformance wire protocol on stdin and stdout)")
	addr := fs.String("addr", serve.DefaultAddr, "the `HOST:PORT` the http and sse transports listen on (port 0: any free port); beyond the loopback interface it needs a token")
	workspace := fs.String("workspace", "", "the workspace root `DIR`, which must exist: the MCP server's, and the wire protocol's for a request that names none (default: the current directory)")
	tokenFile := fs.String("token-file", "", "http, sse: the `FILE` holding the bearer token every request must carry (Authorization: Bearer TOKEN); default: $"+serve.TokenEnv+", if set")
	noToken := fs.Bool("insecure-no-token", false, "http, sse: listen beyond the loopback interface without a token (anyone who reaches the address can run commands)")
	tlsCert := fs.String("tls-cert", "", "http, sse: serve HTTPS with this certificate `FILE` (PEM; with -tls-key)")
	tlsKey := fs.String("tls-key", "", "http, sse: the certificate's private key `FILE` (PEM)")
	readTimeout := fs.Duration("read-timeout", serve.DefaultReadTimeout, "http, sse: the time a client has to send a request body (the headers have at most 10s of it)")
	sessionIdle := fs.Duration("session-idle", serve.DefaultSessionIdle, "http: close a session no request has named for this long, cancelling its calls (0: never)")
	maxSessions := fs.Int("max-sessions", serve.DefaultMaxSessions, "http, sse: the sessions open at once; a new one past it is refused (503)")
	audit := fs.String("audit", "", "append one JSON line per call to `FILE` (- for stderr): time, transport, session, tool, the call redacted, outcome, exit code, duration, bytes")
	permissions := fs.String("permissions", "", "the host's permission rules for the spec's permission policies, a JSON `FILE` {\"mode\", \"allow\", \"deny\", \"ask\"}; over MCP an ask rule asks the client's user")
	maxEngines := fs.Int("max-engines", serve.DefaultMaxEngines, "wire: the workspaces served at once (one engine each)")
	engineIdle := fs.Duration("engine-idle", serve.DefaultIdleTimeout, "wire: close the engine of a workspace unused for this long that runs nothing (0: never)")
	sbx := addSandboxFlags(fs)
	exf := addExecutorFlags(fs)
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
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	httpOnly := []string{"addr", "token-file", "insecure-no-token", "tls-cert", "tls-key", "read-timeout", "session-idle", "max-sessions"}
	wireOnly := []string{"max-engines", "engine-idle"}
	for _, name := range httpOnly {
		if set[name] && *transport != serve.HTTP && *transport != serve.SSE {
			return serveCmd.usageError(stderr, "-%s is for the http and sse transports, not %s", name, *transport)
		}
	}
	for _, name := range wireOnly {
		if set[name] && *transport != serve.Wire {
			return serveCmd.usageError(stderr, "-%s is for the wire transport, not %s", name, *transport)
		}
	}
	if set["session-idle"] && *transport != serve.HTTP {
		return serveCmd.usageError(stderr, "-session-idle is for the http transport (an sse session lasts as long as its stream)")
	}
	if *workspace != "" {
		if err := checkDir("workspace", *workspace); err != nil {
			return serveCmd.fail(stderr, err)
		}
	}
	c := serve.Config{Transport: *transport, Addr: *addr, Workspace: *workspace}
	c.HTTP = serve.HTTPOptions{AllowNoToken: *noToken, TLSCert: *tlsCert, TLSKey: *tlsKey, ReadTimeout: *readTimeout,
		SessionIdle: *sessionIdle, MaxSessions: *maxSessions}
	if *sessionIdle == 0 {
		c.HTTP.SessionIdle = -1
	}
	c.Pool = serve.PoolOptions{MaxEngines: *maxEngines, IdleTimeout: *engineIdle}
	if *engineIdle == 0 {
		c.Pool.IdleTimeout = -1
	}
	if err := checkServeFlags(c.HTTP, *readTimeout, *sessionIdle, *maxSessions, *maxEngines, *engineIdle); err != nil {
		return serveCmd.fail(stderr, err)
	}
	if *transport == serve.HTTP || *transport == serve.SSE {
		token, err := readToken(*tokenFile)
		if err != nil {
			return serveCmd.fail(stderr, err)
		}
		c.HTTP.Token = token
	}
	if *permissions != "" {
		perm, err := readPermissions(*permissions)
		if err != nil {
			return serveCmd.fail(stderr, err)
		}
		c.Runtime = append(c.Runtime, runtime.WithPolicyOptions(policy.WithPermissions(perm)))
	}
	switch *audit {
	case "":
	case "-":
		c.Audit = stderr
	default:
		f, err := os.OpenFile(*audit, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return serveCmd.fail(stderr, fmt.Errorf("-audit: %w", err))
		}
		defer f.Close()
		c.Audit = f
	}
	xopts, closeX, err := exf.open()
	if err != nil {
		return serveCmd.fail(stderr, err)
	}
	defer closeX()
	c.Runtime = append(c.Runtime, xopts...)
	return runServe(serveCmd, pos[0], c, sbx, stdin, stdout, stderr)
}

// checkServeFlags refuses values that mean nothing.
func checkServeFlags(o serve.HTTPOptions, readTimeout, sessionIdle time.Duration, maxSessions, maxEngines int, engineIdle time.Duration) error {
	switch {
	case (o.TLSCert == "") != (o.TLSKey == ""):
		return usagef("-tls-cert and -tls-key go together")
	case readTimeout <= 0:
		return usagef("-read-timeout %v: it must be positive", readTimeout)
	case sessionIdle < 0:
		return usagef("-session-idle %v: it must be positive (0: never)", sessionIdle)
	case engineIdle < 0:
		return usagef("-engine-idle %v: it must be positive (0: never)", engineIdle)
	case maxSessions <= 0:
		return usagef("-max-sessions %d: it must be positive", maxSessions)
	case maxEngines <= 0:
		return usagef("-max-engines %d: it must be positive", maxEngines)
	}
	return nil
}

// readToken reads the bearer token from the file, or else from the environment ("" for none).
func readToken(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv(serve.TokenEnv)), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("-token-file: %w", err)
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", fmt.Errorf("-token-file %s: the file is empty", file)
	}
	if strings.ContainsAny(token, " \t\r\n") {
		return "", fmt.Errorf("-token-file %s: the token has white space in it (one token, on one line)", file)
	}
	return token, nil
}

// readPermissions reads a host permission configuration: {"mode": ..., "allow": [...], "deny": [...],
// "ask": [...]}, as agent frameworks write their permissions block.
func readPermissions(file string) (policy.HostPermissions, error) {
	var p struct {
		Mode             string
		Allow, Deny, Ask []string
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return policy.HostPermissions{}, fmt.Errorf("-permissions: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&p); err != nil {
		return policy.HostPermissions{}, fmt.Errorf("-permissions %s: %w (want {\"mode\", \"allow\", \"deny\", \"ask\"})", file, err)
	}
	return policy.HostPermissions{Mode: p.Mode, Allow: p.Allow, Deny: p.Deny, Ask: p.Ask}, nil
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
	if errors.Is(err, serve.ErrNoToken) {
		fmt.Fprintf(stderr, "agentbash serve: %v\n  give a token (-token-file FILE or $%s) and clients send it as Authorization: Bearer TOKEN;\n  or -insecure-no-token to serve it to anyone who can reach it\n", err, serve.TokenEnv)
		return 1
	}
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
