package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// mcpProtocolVersion is the MCP revision the client offers.
const mcpProtocolVersion = "2025-06-18"

// MCPTarget is an MCP server over stdio (JSON-RPC 2.0, one message per line). An MCP server has one
// workspace for its lifetime, so it is started for each case's workspace, with that directory as its
// working directory and "{workspace}" in its argv replaced by the path, and initialized; tools/call
// carries the case's parameters as arguments. The answer is the text content (for a tool whose results
// are JSON, the text parsed as JSON); isError makes it an error of type ToolError (MCP carries no error
// class), and a JSON-RPC error one of type JSONRPCError.
type MCPTarget struct {
	// Argv is the server's program and arguments; "{workspace}" in any of them is replaced.
	Argv []string
	// Env is the server's environment (default: this process's).
	Env []string
	// Stderr receives the server's log (default: kept only to quote its end in failure messages).
	Stderr io.Writer
	// ExitWait is how long the server may take to exit after EOF before it is killed (default 5 s).
	ExitWait time.Duration
}

// MCP returns the MCP stdio server started as argv.
func MCP(argv ...string) *MCPTarget { return &MCPTarget{Argv: argv} }

// Name describes the target.
func (m *MCPTarget) Name() string { return "mcp: " + strings.Join(m.Argv, " ") }

// Open prepares the target; servers start with the first call in each workspace.
func (m *MCPTarget) Open(context.Context) (Conn, error) {
	if len(m.Argv) == 0 {
		return nil, errors.New("conformance: MCP target has no command")
	}
	return &mcpConn{m: m}, nil
}

type mcpConn struct {
	m      *MCPTarget
	p      *wireProc
	ws     string
	nextID int64
	// stopErrs are servers that did not exit at EOF, reported by Close.
	stopErrs []error
}

// rpcMessage is any JSON-RPC 2.0 message.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (c *mcpConn) Call(ctx context.Context, req Request) (Answer, error) {
	if c.p == nil || c.ws != req.Workspace {
		if err := c.stop(); err != nil {
			c.stopErrs = append(c.stopErrs, err)
		}
		if err := c.start(ctx, req.Workspace); err != nil {
			return Answer{}, err
		}
	}
	args := req.Params
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	params, _ := json.Marshal(map[string]any{"name": req.Tool, "arguments": args})
	msg, err := c.request(ctx, "tools/call", params)
	if err != nil {
		return Answer{}, err
	}
	if msg.Error != nil {
		return Answer{Error: toolError("JSONRPCError", msg.Error.Message)}, nil
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(msg.Result, &res); err != nil {
		return Answer{}, c.fail(fmt.Sprintf("answered tools/call with a result that is not a CallToolResult (%v)", err))
	}
	var text strings.Builder
	for _, item := range res.Content {
		if item.Type == "text" {
			text.WriteString(item.Text)
		}
	}
	if res.IsError {
		return Answer{Error: toolError("ToolError", text.String())}, nil
	}
	if req.Format == "json" {
		if v, err := decodeJSON([]byte(text.String())); err == nil {
			if _, obj := v.(map[string]any); obj {
				return Answer{Result: json.RawMessage(text.String())}, nil
			}
		}
	}
	b, _ := json.Marshal(text.String())
	return Answer{Result: b}, nil
}

// start starts a server for the workspace and runs the initialize handshake.
func (c *mcpConn) start(ctx context.Context, ws string) error {
	argv := make([]string, len(c.m.Argv))
	for i, a := range c.m.Argv {
		argv[i] = strings.ReplaceAll(a, "{workspace}", ws)
	}
	p, err := startProc(argv, ws, c.m.Env, c.m.Stderr)
	if err != nil {
		return err
	}
	c.p, c.ws = p, ws
	params, _ := json.Marshal(map[string]any{
		"protocolVersion": mcpProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]string{"name": "agentbash-conformance", "version": "1"},
	})
	msg, err := c.request(ctx, "initialize", params)
	if err != nil {
		return err
	}
	if msg.Error != nil {
		return c.fail("refused initialize: " + msg.Error.Message)
	}
	return c.send(rpcMessage{JSONRPC: "2.0", Method: "notifications/initialized"})
}

func (c *mcpConn) send(m rpcMessage) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_ = c.p.stdin.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.p.stdin.Write(append(b, '\n')); err != nil {
		return c.fail(fmt.Sprintf("could not be sent a message: %v", err))
	}
	return nil
}

// request sends a request and waits for its response, answering the server's own requests (ping) and
// skipping its notifications meanwhile.
func (c *mcpConn) request(ctx context.Context, method string, params json.RawMessage) (rpcMessage, error) {
	c.nextID++
	id := c.nextID
	if err := c.send(rpcMessage{JSONRPC: "2.0", ID: json.RawMessage(fmt.Sprint(id)), Method: method, Params: params}); err != nil {
		return rpcMessage{}, err
	}
	for {
		var line []byte
		select {
		case b, ok := <-c.p.lines:
			if !ok {
				return rpcMessage{}, c.fail(fmt.Sprintf("closed its stdout before answering %s", method))
			}
			line = b
		case <-c.p.exited:
			select {
			case b, ok := <-c.p.lines:
				if ok {
					line = b
					break
				}
				return rpcMessage{}, c.fail(fmt.Sprintf("died before answering %s", method))
			case <-time.After(200 * time.Millisecond):
				return rpcMessage{}, c.fail(fmt.Sprintf("died before answering %s", method))
			}
		case <-ctx.Done():
			pid := c.p.cmd.Process.Pid
			c.p.kill()
			note := stderrNote(c.p)
			c.p = nil
			return rpcMessage{}, fmt.Errorf("MCP server did not answer %s by its deadline; killed it (pid %d)%s", method, pid, note)
		}
		var m rpcMessage
		if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
			return rpcMessage{}, c.fail(fmt.Sprintf("wrote a line that is not a JSON-RPC 2.0 message: %s", clip(string(line), 200)))
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			// A request from the server: answer ping, refuse the rest.
			reply := rpcMessage{JSONRPC: "2.0", ID: m.ID, Result: json.RawMessage("{}")}
			if m.Method != "ping" {
				reply = rpcMessage{JSONRPC: "2.0", ID: m.ID, Error: &rpcError{Code: -32601, Message: "method not found"}}
			}
			if err := c.send(reply); err != nil {
				return rpcMessage{}, err
			}
		case m.Method != "":
			// A notification (log, progress): ignored.
		case string(m.ID) == fmt.Sprint(id):
			return m, nil
		default:
			return rpcMessage{}, c.fail(fmt.Sprintf("answered %s with id %s, want %d", method, clip(string(m.ID), 40), id))
		}
	}
}

// fail kills and reaps the server and says what happened.
func (c *mcpConn) fail(what string) error {
	p := c.p
	c.p = nil
	pid := p.cmd.Process.Pid
	p.kill()
	return fmt.Errorf("MCP server (pid %d) %s; killed it%s", pid, what, stderrNote(p))
}

// stop ends the current server: EOF, then a kill after ExitWait.
func (c *mcpConn) stop() error {
	p := c.p
	c.p = nil
	if p == nil {
		return nil
	}
	if wait, exited := p.shutdown(c.m.ExitWait); !exited {
		return fmt.Errorf("MCP server did not exit within %s of EOF; killed it (pid %d)", wait, p.cmd.Process.Pid)
	}
	p.release()
	return nil
}

// ownPIDs is the running server, whose working directory is the case's workspace.
func (c *mcpConn) ownPIDs() []int {
	if c.p == nil {
		return nil
	}
	return []int{c.p.cmd.Process.Pid}
}

func (c *mcpConn) Close() error { return errors.Join(append(c.stopErrs, c.stop())...) }
