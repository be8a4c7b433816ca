package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentbash/agentbash/gen/toolschema"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
)

// connectMCP serves v's MCP server on an engine and returns a client session over in-memory transports.
func connectMCP(t *testing.T, id string, opts ...runtime.Option) (*mcp.ClientSession, *MCP) {
	t.Helper()
	v := mustSpec(t, id)
	eng, err := runtime.New(v, append(opts, runtime.WithWorkspace(t.TempDir()))...)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMCP(v, eng, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := m.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
		m.Close()
		eng.Close()
	})
	return cs, m
}

// tools/list gives each tool exactly as `agentbash schema -format mcp` prints it.
func TestMCPToolsList(t *testing.T) {
	for _, id := range variants.IDs() {
		t.Run(id, func(t *testing.T) {
			cs, _ := connectMCP(t, id)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(res.Tools)
			defs, err := toolschema.Definitions(mustSpec(t, id), toolschema.MCP)
			if err != nil {
				t.Fatal(err)
			}
			// tools/list lists the tools by name; the definitions are in the spec's order.
			var g, w []map[string]any
			_ = json.Unmarshal(got, &g)
			_ = json.Unmarshal(defs, &w)
			byName := func(a, b map[string]any) int { return strings.Compare(fmt.Sprint(a["name"]), fmt.Sprint(b["name"])) }
			slices.SortFunc(g, byName)
			slices.SortFunc(w, byName)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("tools/list:\n%s\nschema -format mcp:\n%s", got, defs)
			}
		})
	}
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func TestMCPCall(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		id, tool, args string
		text           string // a prefix
		structured     bool
		isError        bool
		class          string
	}{
		{id: "codegensandbox", tool: "Bash", args: `{"command":"echo '<hi>'","description":"d"}`, text: "<hi>\n"},
		{id: "codegensandbox", tool: "Bash", args: `{"command":"","description":"d"}`, text: "command is required", isError: true, class: "ToolError"},
		{id: "rye", tool: "bash", args: `{"command":"echo hi"}`, text: `{"success":true,"output":"hi\n"`, structured: true},
		{id: "toolregistry", tool: "bash", args: `{"command":"sudo ls"}`, text: "Dangerous command blocked: Privilege escalation via sudo", isError: true, class: "ValueError"},
		{id: "tunacode", tool: "bash", args: `{"command":"echo hi","timeout":0}`, isError: true, class: "ModelRetry"},
		{id: "rye", tool: "bash", args: ``, text: "'command'", isError: true, class: "KeyError"},
	} {
		t.Run(tc.id+" "+tc.args, func(t *testing.T) {
			cs, _ := connectMCP(t, tc.id)
			var args any
			if tc.args != "" {
				args = json.RawMessage(tc.args)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.isError || !strings.HasPrefix(textOf(res), tc.text) {
				t.Errorf("isError %t, text %q", res.IsError, textOf(res))
			}
			if got, _ := res.Meta[ErrorTypeKey].(string); got != tc.class {
				t.Errorf("error class %q, want %q (meta %v)", got, tc.class, res.Meta)
			}
			if (res.StructuredContent != nil) != tc.structured {
				t.Errorf("structured content: %v", res.StructuredContent)
			}
		})
	}
	cs, _ := connectMCP(t, "rye")
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), `unknown tool "nope"`) {
		t.Errorf("unknown tool: %v", err)
	}
}

// A call the client cancels (notifications/cancelled) has its process group killed.
func TestMCPCancel(t *testing.T) {
	opts, alive := marked(t)
	cs, _ := connectMCP(t, "codegensandbox", opts...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "sleep 30", "description": "d"}})
		done <- err
	}()
	if !waitFor(5*time.Second, func() bool { return sleeping(alive()) }) {
		t.Fatalf("the sleep did not start: %v", alive())
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("a cancelled call returned no error")
	}
	if !waitFor(3*time.Second, func() bool { return len(alive()) == 0 }) {
		t.Errorf("left running after the cancel: %v", alive())
	}
}

// Over stdio, a line that is not JSON and a line over the limit are answered with JSON-RPC errors, and the
// session goes on; the end of the input ends ServeStdio, which cancels what still runs.
func TestMCPStdio(t *testing.T) {
	v := mustSpec(t, "rye")
	opts, alive := marked(t)
	eng, err := runtime.New(v, append(opts, runtime.WithWorkspace(t.TempDir()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- NewMCP(v, eng, nil).ServeStdio(context.Background(), inR, outW, 1024)
		outW.Close()
	}()
	answers := bufio.NewScanner(outR)
	answers.Buffer(nil, 1<<20)
	next := func() map[string]any {
		t.Helper()
		if !answers.Scan() {
			t.Fatalf("no answer: %v", answers.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(answers.Bytes(), &m); err != nil {
			t.Fatalf("%v: %s", err, answers.Bytes())
		}
		return m
	}
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`hello, I am a log line`)
	if m := next(); m["id"] != nil || fmt.Sprint(m["error"].(map[string]any)["code"]) != "-32700" {
		t.Errorf("a line that is not JSON: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo ` + strings.Repeat("x", 2000) + `"}}}`)
	if m := next(); m["id"] != 2.0 || fmt.Sprint(m["error"].(map[string]any)["code"]) != "-32600" {
		t.Errorf("a line over the limit: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo fine"}}}`)
	if m := next(); m["id"] != 3.0 || !strings.Contains(fmt.Sprint(m["result"]), `fine`) {
		t.Errorf("the next call: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 30","timeout":300}}}`)
	if !waitFor(5*time.Second, func() bool { return sleeping(alive()) }) {
		t.Fatalf("the sleep did not start: %v", alive())
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return at EOF")
	}
	if !waitFor(2*time.Second, func() bool { return len(alive()) == 0 }) {
		t.Errorf("left running: %v", alive())
	}
}

// A call of a tool the variant does not have is answered as the spec's unknown_tool says: a JSON-RPC error
// with its code for an MCP server's contract (CodeGen-Sandbox's mcp-go answers -32602), an isError result
// with the class for a host that reports it to the model (agentrail), the SDK's own error without one. A
// request the spec's host refuses as a whole (a number out of float64's range, for a Go server) is a
// JSON-RPC error too.
func TestMCPUnknownTool(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		id, tool, args string
		code           int64 // a JSON-RPC error
		text, class    string
	}{
		{id: "codegensandbox", tool: "Bash2", args: `{}`, code: -32602, text: "tool 'Bash2' not found: tool not found"},
		{id: "codegensandbox", tool: "Bash", args: `{"command":"echo hi","description":"d","timeout":1e400}`, code: -32600,
			text: "unparsable tools/call request: json: cannot unmarshal number 1e400 into Go struct field CallToolParams.params.arguments of type float64"},
		{id: "agentrail", tool: "Bash2", args: `{}`, text: "Tool not found: Bash2", class: "ToolNotFoundError"},
		{id: "rye", tool: "nope", args: `{}`, code: -32602, text: `unknown tool "nope"`},
	} {
		t.Run(tc.id+" "+tc.tool, func(t *testing.T) {
			cs, _ := connectMCP(t, tc.id)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: json.RawMessage(tc.args)})
			if tc.code != 0 {
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != tc.code || je.Message != tc.text {
					t.Fatalf("got %v (%T), want JSON-RPC error %d %q", err, err, tc.code, tc.text)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || textOf(res) != tc.text || res.Meta[ErrorTypeKey] != tc.class {
				t.Errorf("isError %t, text %q, meta %v", res.IsError, textOf(res), res.Meta)
			}
		})
	}
}
