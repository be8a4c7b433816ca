// Package serve serves any variant to the hosts that use it: over MCP with the official SDK
// (github.com/modelcontextprotocol/go-sdk: stdio, streamable HTTP, HTTP+SSE) and over the JSON Lines wire
// protocol of conformance/PROTOCOL.md. `agentbash serve` is Run; a Go host builds on the parts with its
// own engines:
//
//   - NewMCP makes the MCP server of a variant on a Caller (a *runtime.Engine); ServeStdio, HTTPHandler and
//     SSEHandler serve it, Server gives the SDK server for another transport.
//   - ServeWire serves the wire protocol on any io.Reader and io.Writer, running each request on a Backend
//     by its workspace; a Pool is the backend that keeps one engine per workspace, closing idle ones.
//   - Over a network: Protect wraps an HTTP handler with a bearer token and a read deadline on request
//     bodies; the MCP handlers bound their sessions and close idle ones (MCPOptions); Elicit is the
//     runtime.Approver that asks an MCP client's user about a call a policy asks about; AuditLog is the
//     runtime.CallObserver that writes one JSON line per call.
//
// Lifecycle: calls run concurrently and are answered by id. Cancelling a call (MCP's
// notifications/cancelled; the end of the input on the wire protocol and on stdio; ctx's end) cancels its
// context, and the runtime kills its process group. Run returns only after every call has returned and
// every engine is closed, which kills and reaps every background process group. Reading is bounded: a
// request line over DefaultMaxLine is read through, dropped and answered with an error, and serving goes on.
package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sync/atomic"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/spec"
)

// The transports of Run.
const (
	Stdio = "stdio" // MCP over stdin and stdout
	HTTP  = "http"  // MCP streamable HTTP at /mcp
	SSE   = "sse"   // MCP HTTP+SSE at /sse
	Wire  = "wire"  // the JSON Lines wire protocol on stdin and stdout
)

// Transports lists the transports of Run.
func Transports() []string { return []string{Stdio, HTTP, SSE, Wire} }

// DefaultAddr is where the HTTP transports listen by default: the loopback interface only.
const DefaultAddr = "127.0.0.1:8080"

// Config is what Run serves and how.
type Config struct {
	// Variant is the spec served.
	Variant *spec.Variant
	// Transport is one of Transports (default Stdio).
	Transport string
	// Addr is the HTTP transports' listening address (default DefaultAddr; port 0 picks a free one).
	Addr string
	// Workspace is the MCP server's workspace, and the wire protocol's for a request that names none
	// (default: the working directory).
	Workspace string
	// Runtime are options for every engine.
	Runtime []runtime.Option
	// Stdin and Stdout carry the stdio and wire transports (default os.Stdin, os.Stdout).
	Stdin  io.Reader
	Stdout io.Writer
	// Log receives one line when an HTTP transport listens (with its URL), and errors (default: none).
	Log io.Writer
	// Listening, when set, is called with the URL an HTTP transport serves once it listens.
	Listening func(url string)
	// Pool configures the wire transport's engines (Workspace and Runtime are set from above).
	Pool PoolOptions
	// HTTP configures the HTTP transports: token, TLS, timeouts, sessions.
	HTTP HTTPOptions
	// Audit, when set, receives one JSON line per call (AuditLog).
	Audit io.Writer
}

// Run serves c.Variant on c.Transport until the end of the input (stdio, wire), a broken output, or ctx's
// end; then it cancels the calls in flight, waits for them, closes every engine (killing and reaping every
// process group it started) and returns: nil at the end of the input, ctx's error when ctx ended.
func Run(ctx context.Context, c Config) error {
	if c.Variant == nil {
		return errors.New("serve: no variant")
	}
	if c.Stdin == nil {
		c.Stdin = os.Stdin
	}
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		c.Workspace = wd
	}
	// A server SIGKILLed takes its commands with it: a watchdog process kills them when this one is gone
	// (runtime/proc, "When the host dies").
	if err := proc.EnableWatchdog(); err != nil {
		fmt.Fprintf(c.Log, "agentbash serve: no watchdog (commands may outlive a SIGKILLed server): %v\n", err)
	}
	// The end of Stdout (a client that closed it) ends the server as a failed write would.
	var outClosed atomic.Bool
	if f, ok := c.Stdout.(*os.File); ok && c.Transport != HTTP && c.Transport != SSE {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		watchClosed(ctx, f, func() {
			outClosed.Store(true)
			cancel()
		})
	}
	err := run(ctx, c)
	if outClosed.Load() {
		return errors.Join(ErrOutputClosed, nilIfCanceled(err))
	}
	return err
}

// ErrOutputClosed is returned by Run when the reader of its output went away.
var ErrOutputClosed = errors.New("serve: the output was closed")

func nilIfCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func run(ctx context.Context, c Config) error {
	if c.Audit != nil {
		c.Runtime = append(slices.Clone(c.Runtime), runtime.WithCallObserver(AuditLog(c.Audit, func(err error) {
			fmt.Fprintf(c.Log, "agentbash serve: writing the audit log: %v\n", err)
		})))
	}
	switch c.Transport {
	case Wire:
		po := c.Pool
		po.Workspace = c.Workspace
		po.Runtime = append(slices.Clone(po.Runtime), c.Runtime...)
		pool := NewPool(c.Variant, po)
		err := ServeWire(ctx, pool, c.Stdin, c.Stdout, nil)
		return errors.Join(err, pool.Close())
	case Stdio, "", HTTP, SSE:
	default:
		return fmt.Errorf("serve: unknown transport %q (transports: stdio, http, sse, wire)", c.Transport)
	}
	// Over MCP, a call a policy asks about is put to the client's user (Elicit).
	eng, err := runtime.New(c.Variant, append(slices.Clone(c.Runtime), runtime.WithApprover(Elicit), runtime.WithWorkspace(c.Workspace))...)
	if err != nil {
		return err
	}
	m := NewMCP(c.Variant, eng, &MCPOptions{SessionIdle: c.HTTP.SessionIdle, MaxSessions: c.HTTP.MaxSessions})
	if c.Transport == Stdio || c.Transport == "" {
		err := m.ServeStdio(ctx, c.Stdin, c.Stdout, 0)
		return errors.Join(err, eng.Close())
	}
	err = serveHTTP(ctx, c, m)
	return errors.Join(err, eng.Close())
}

// serveHTTP serves m on an HTTP transport until ctx ends.
func serveHTTP(ctx context.Context, c Config, m *MCP) error {
	addr := c.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	o := c.HTTP
	var tlsConfig *tls.Config
	if o.TLSCert != "" || o.TLSKey != "" {
		if o.TLSCert == "" || o.TLSKey == "" {
			return errors.New("serve: TLS needs both a certificate and a key")
		}
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return fmt.Errorf("serve: TLS: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if !loopback(ln.Addr()) {
		switch {
		case o.Token == "" && !o.AllowNoToken:
			ln.Close()
			return fmt.Errorf("%w: %s is reachable from other machines, and anyone who reaches it could run commands", ErrNoToken, ln.Addr())
		case o.Token == "":
			fmt.Fprintf(c.Log, "agentbash serve: WARNING: %s is reachable from other machines and needs no token: anyone who reaches it can run commands as this user\n", ln.Addr())
		case o.TLSCert == "":
			fmt.Fprintf(c.Log, "agentbash serve: WARNING: %s is reachable from other machines without TLS: the token and every command travel in clear text\n", ln.Addr())
		}
	}
	path, h := "/mcp", m.HTTPHandler()
	if c.Transport == SSE {
		path, h = "/sse", m.SSEHandler()
	}
	mux := http.NewServeMux()
	mux.Handle(path, Protect(h, o))
	hs := newHTTPServer(mux, o, c.Log)
	served := make(chan error, 1)
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
		hs.TLSConfig = tlsConfig
		ln = tls.NewListener(ln, tlsConfig)
	}
	go func() { served <- hs.Serve(ln) }()
	url := scheme + "://" + ln.Addr().String() + path
	auth := "no token"
	if o.Token != "" {
		auth = "bearer token"
	}
	fmt.Fprintf(c.Log, "agentbash serve: %s (%s, %s) on %s\n", c.Variant.ID, c.Transport, auth, url)
	if c.Listening != nil {
		c.Listening(url)
	}
	select {
	case <-ctx.Done():
		err = ctx.Err()
	case err = <-served:
	}
	m.Close()
	_ = hs.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
