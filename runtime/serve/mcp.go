package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/internal/genversion"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// ErrorTypeKey is the key, in the _meta of an isError tool result, of the error class the tool raised
// (ValueError, ModelRetry, ToolError, ...): MCP carries only the message as the result's text, so the
// class travels beside it, where a client can recover it and a model does not see it.
const ErrorTypeKey = "agentbash/errorType"

// MCPOptions configure an MCP server.
type MCPOptions struct {
	// Name and Version are the server's implementation info (default "agentbash-<id>" and the runtime's
	// generated-code API version).
	Name, Version string
	// Logger receives the SDK's log (default: none).
	Logger *slog.Logger
	// SessionIdle closes a streamable HTTP session that no request has named for this long and that has
	// none in flight (an open event stream is one), after cancelling its calls (default
	// DefaultSessionIdle; negative: never). An HTTP+SSE session lasts as long as its event stream.
	SessionIdle time.Duration
	// MaxSessions bounds the sessions of the HTTP transports open at once (default DefaultMaxSessions): a
	// new session past it is refused with 503 Service Unavailable.
	MaxSessions int
}

// MCP serves the tools of one variant over MCP with the official SDK: each tool of the spec is an MCP tool
// with the spec's name, description and input schema (toolschema.Input) and annotations
// (toolschema.ToolAnnotations). A call runs on the Caller (an engine on one workspace); its result is one
// text content: the text of a text tool, the JSON text of a JSON tool (also given as structured content).
// An error the tool raises is an isError result whose text is the message, with the error class under
// ErrorTypeKey in the result's _meta. Cancelling a call (notifications/cancelled) cancels its context, and
// the engine kills its process group.
type MCP struct {
	srv  *mcp.Server
	c    Caller
	sess *sessionTable

	calls  context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewMCP builds the MCP server of v, running its calls on c.
func NewMCP(v *spec.Variant, c Caller, o *MCPOptions) *MCP {
	var opts MCPOptions
	if o != nil {
		opts = *o
	}
	if opts.Name == "" {
		opts.Name = "agentbash-" + v.ID
	}
	if opts.Version == "" {
		opts.Version = fmt.Sprint(genversion.Max)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m := &MCP{c: c}
	m.calls, m.cancel = context.WithCancel(context.Background())
	instructions := v.Summary
	if instructions == "" {
		instructions = v.Title
	}
	m.srv = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Title: v.Title, Version: opts.Version},
		&mcp.ServerOptions{Logger: logger, Instructions: instructions,
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	for i := range v.Tools {
		t := &v.Tools[i]
		a := toolschema.ToolAnnotations(v, t)
		tool := &mcp.Tool{
			Name:        t.Name,
			Description: v.ToolDescription(t),
			InputSchema: toolschema.Input(t),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: &a.DestructiveHint,
				IdempotentHint: a.IdempotentHint, OpenWorldHint: &a.OpenWorldHint},
		}
		if out := toolschema.Output(t); out != nil {
			tool.OutputSchema = json.RawMessage(out)
		}
		m.srv.AddTool(tool, m.handler(t.Name, t.Results.Format == spec.FormatJSON))
	}
	if v.UnknownTool != nil {
		m.srv.AddReceivingMiddleware(m.unknownTool(v))
	}
	m.sess = newSessionTable(m.srv, opts.SessionIdle, opts.MaxSessions)
	return m
}

// unknownTool answers a call of a tool the variant does not have as its spec's unknown_tool says (the SDK
// would answer its own "unknown tool" error): a JSON-RPC error with the spec's code and message, or an
// isError result with the error class, as a host that reports it to the model does.
func (m *MCP) unknownTool(v *spec.Variant) mcp.Middleware {
	known := map[string]bool{}
	for i := range v.Tools {
		known[v.Tools[i].Name] = true
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil || known[call.Params.Name] {
				return next(ctx, method, req)
			}
			_, err := m.c.Call(ctx, call.Params.Name, json.RawMessage("{}"))
			return toolErrorResult(err)
		}
	}
}

// toolErrorResult is what the host sees of an error a call ended in: a JSON-RPC error for a failure the
// spec makes one (runtime.RPCError), an isError result for a raised one, the error itself otherwise.
func toolErrorResult(err error) (*mcp.CallToolResult, error) {
	var rpc *runtime.RPCError
	if errors.As(err, &rpc) {
		return nil, &jsonrpc.Error{Code: int64(rpc.Code), Message: rpc.Message}
	}
	var te *runtime.ToolError
	if !errors.As(err, &te) {
		return nil, err
	}
	return &mcp.CallToolResult{
		Meta:    mcp.Meta{ErrorTypeKey: te.Type},
		Content: []mcp.Content{&mcp.TextContent{Text: te.Message}},
		IsError: true,
	}, nil
}

// Server is the SDK server, for a host that connects a transport of its own.
func (m *MCP) Server() *mcp.Server { return m.srv }

func (m *MCP) handler(name string, jsonResult bool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		m.wg.Add(1)
		defer m.wg.Done()
		ctx, stop := mergeCancel(ctx, m.calls)
		defer stop()
		meta := &callMeta{session: req.Session}
		if c := connectionFrom(ctx); c != nil {
			// The session's end (DELETE, idle, its event stream's end) cancels the call.
			var stopSession func()
			ctx, stopSession = mergeCancel(ctx, c.ctx)
			defer stopSession()
			meta.Transport, meta.Remote, meta.Session = c.transport, c.remote, c.id
		}
		if ip := req.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil {
			meta.Client = ip.ClientInfo.Name
			if ip.ClientInfo.Version != "" {
				meta.Client += "/" + ip.ClientInfo.Version
			}
		}
		ctx = withCallMeta(ctx, meta)
		args := req.Params.Arguments
		if len(trimSpace(args)) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		res, err := m.c.Call(ctx, name, args)
		if err != nil {
			return toolErrorResult(err)
		}
		out := &mcp.CallToolResult{}
		var text string
		if json.Unmarshal(res, &text) != nil {
			text = string(res)
			if jsonResult {
				out.StructuredContent = res
			}
		}
		out.Content = []mcp.Content{&mcp.TextContent{Text: text}}
		return out, nil
	}
}

// Close cancels every call in flight (their process groups are killed) and waits for them to return. It
// does not close the Caller.
func (m *MCP) Close() {
	m.sess.close()
	m.cancel()
	m.wg.Wait()
}

// ServeStdio serves one MCP session over newline-delimited JSON-RPC on r and w (a process's stdin and
// stdout) until the end of r, a failed write to w, or ctx's end; then it cancels every call in flight
// (killing their process groups), waits for them and returns (nil at the end of r). A line longer than
// maxLine (default DefaultMaxLine) is read through, dropped and answered with a JSON-RPC error -32600; a
// line that is not JSON with -32700; the session goes on.
func (m *MCP) ServeStdio(ctx context.Context, r io.Reader, w io.Writer, maxLine int) error {
	conn := newStdioConn(r, w, maxLine)
	sc := &connection{transport: Stdio}
	sc.ctx, sc.cancel = context.WithCancel(context.Background())
	defer sc.cancel()
	ss, err := m.srv.Connect(withConnection(ctx, sc), &connTransport{conn}, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	var werr error
	select {
	case <-ctx.Done():
	case <-conn.brokenCh:
	case err := <-done:
		// The input ended (the SDK cancels the calls in flight).
		m.Close()
		if werr = conn.writeErr(); werr != nil {
			return fmt.Errorf("serve: writing a message: %w", werr)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	m.Close()
	conn.Close()
	<-done
	if werr = conn.writeErr(); werr != nil {
		return fmt.Errorf("serve: writing a message: %w", werr)
	}
	return ctx.Err()
}

// HTTPHandler serves MCP's streamable HTTP transport (mount it at /mcp). Sessions share the server's
// Caller, so a background shell started in one can be polled from another. Their number is bounded
// (MCPOptions.MaxSessions) and idle ones are closed (MCPOptions.SessionIdle); ending a session (a DELETE
// with its Mcp-Session-Id, or idleness) cancels its calls in flight, killing their process groups, and
// the DELETE is answered once they have returned. It authenticates nothing: see Protect.
func (m *MCP) HTTPHandler() http.Handler {
	return m.sess.streamable(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m.srv }, nil))
}

// SSEHandler serves MCP's HTTP+SSE transport of protocol version 2024-11-05, which older MCP servers speak
// (mount it at /sse): a GET opens the event stream, whose first event names the URL to POST messages to.
// A session lasts as long as its stream, whose end cancels its calls; sessions count towards
// MCPOptions.MaxSessions.
func (m *MCP) SSEHandler() http.Handler {
	return m.sess.sse(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return m.srv }, nil))
}

// Sessions reports the sessions of the HTTP transports open.
func (m *MCP) Sessions() int { return m.sess.Len() }
