package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// ServeMCP runs the variant as an MCP server over stdio (JSON-RPC 2.0, one message per line) until EOF or
// ctx is done: initialize, ping, tools/list (each tool with an input schema made from its parameters) and
// tools/call, whose result is one text content (the text of a text tool, the JSON of a JSON tool) with
// isError for an error the tool raises (its message as the text: MCP carries no error class). The
// workspace is the engine's (runtime.WithWorkspace, default the working directory). It is how the MCP
// target is tested, and a small reference for MCP servers of these contracts.
func ServeMCP(ctx context.Context, v *spec.Variant, stdin io.Reader, stdout io.Writer, opts ...runtime.Option) (err error) {
	eng, err := runtime.New(v, opts...)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := eng.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	stop := make(chan struct{})
	defer close(stop)
	lines := readLines(stdin, stop)
	for {
		var l inputLine
		select {
		case l = <-lines:
		case <-ctx.Done():
			return ctx.Err()
		}
		if len(l.b) > 0 {
			if reply, ok := mcpHandle(ctx, eng, v, l.b); ok {
				if err := writeJSONLine(stdout, reply); err != nil {
					return err
				}
			}
		}
		if l.err == io.EOF {
			return nil
		}
		if l.err != nil {
			return l.err
		}
	}
}

// mcpHandle answers one message; notifications get no answer.
func mcpHandle(ctx context.Context, eng *runtime.Engine, v *spec.Variant, b []byte) (rpcMessage, bool) {
	var m rpcMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return rpcMessage{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{Code: -32700, Message: "parse error: " + err.Error()}}, true
	}
	if len(m.ID) == 0 {
		return rpcMessage{}, false
	}
	reply := rpcMessage{JSONRPC: "2.0", ID: m.ID}
	result := func(v any) (rpcMessage, bool) {
		reply.Result, _ = json.Marshal(v)
		return reply, true
	}
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		version := p.ProtocolVersion
		if version == "" {
			version = mcpProtocolVersion
		}
		return result(map[string]any{
			"protocolVersion": version,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]string{"name": "agentbash-" + v.ID, "version": fmt.Sprint(runtime.GenVersion)},
		})
	case "ping":
		return result(map[string]any{})
	case "tools/list":
		var tools []map[string]any
		for _, t := range v.Tools {
			tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "inputSchema": inputSchema(t)})
		}
		return result(map[string]any{"tools": tools})
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			reply.Error = &rpcError{Code: -32602, Message: "invalid params: " + err.Error()}
			return reply, true
		}
		res, err := eng.Call(ctx, p.Name, p.Arguments)
		text, isError := string(res), false
		if err != nil {
			var te *runtime.ToolError
			if !errors.As(err, &te) {
				reply.Error = &rpcError{Code: -32603, Message: err.Error()}
				return reply, true
			}
			text, isError = te.Message, true
		} else {
			var s string
			if json.Unmarshal(res, &s) == nil {
				text = s
			}
		}
		return result(map[string]any{"content": []map[string]string{{"type": "text", "text": text}}, "isError": isError})
	}
	reply.Error = &rpcError{Code: -32601, Message: fmt.Sprintf("method not found: %s", m.Method)}
	return reply, true
}

// inputSchema is a JSON Schema of a tool's parameters.
func inputSchema(t spec.Tool) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, p := range t.Params {
		s := map[string]any{"type": p.Type}
		if p.Nullable {
			s["type"] = []spec.Type{p.Type, "null"}
		}
		if p.Description != "" {
			s["description"] = p.Description
		}
		if p.Default != nil {
			s["default"] = p.Default
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}
