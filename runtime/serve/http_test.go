package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
)

// httpMCP serves v's MCP server over streamable HTTP on a test server.
func httpMCP(t *testing.T, id string, opts ...runtime.Option) (*httptest.Server, *MCP) {
	t.Helper()
	v := mustSpec(t, id)
	eng, err := runtime.New(v, append(opts, runtime.WithWorkspace(t.TempDir()))...)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMCP(v, eng, nil)
	srv := httptest.NewServer(m.HTTPHandler())
	t.Cleanup(func() {
		m.Close() // first: a call in flight would hold srv.Close
		srv.Close()
		eng.Close()
	})
	return srv, m
}

// A DELETE of a session with a call in flight answers at once, cancels the call and kills its process
// group.
func TestHTTPDeleteCancelsCalls(t *testing.T) {
	srv, m := httpMCP(t, "toolregistry")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	sleep := proctest.UniqueSleep()
	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: json.RawMessage(`{"command":"sleep ` + sleep + `","timeout":null}`)})
		called <- err
	}()
	if !proctest.Poll(10*time.Second, func() bool { return len(proctest.WithCmdline(sleep)) > 0 }) {
		t.Fatal("the sleep did not start")
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.URL, nil)
	req.Header.Set("Mcp-Session-Id", cs.ID())
	deleted := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
			if res.StatusCode != http.StatusNoContent {
				t.Errorf("DELETE: %s", res.Status)
			}
		}
		deleted <- err
	}()
	select {
	case err := <-deleted:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		m.Close() // cancels the call, so that the DELETE and the cleanup end
		t.Fatal("the DELETE was not answered")
	}
	if !proctest.Poll(10*time.Second, func() bool { return len(proctest.WithCmdline(sleep)) == 0 }) {
		t.Errorf("the sleep outlived its session: %v", proctest.WithCmdline(sleep))
	}
	cancel()
	<-called
}

// The end of an HTTP+SSE session's event stream (the client went away) cancels its calls and kills their
// process groups.
func TestSSEStreamEndCancelsCalls(t *testing.T) {
	v := mustSpec(t, "toolregistry")
	eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMCP(v, eng, nil)
	srv := httptest.NewServer(m.SSEHandler())
	t.Cleanup(func() {
		m.Close()
		srv.Close()
		eng.Close()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.SSEClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Sessions() != 1 {
		t.Errorf("%d sessions, want 1", m.Sessions())
	}
	sleep := proctest.UniqueSleep()
	// The call's own context is not cancelled: no notifications/cancelled, the stream's end alone.
	called := make(chan struct{})
	go func() {
		defer close(called)
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: json.RawMessage(`{"command":"sleep ` + sleep + `","timeout":null}`)})
	}()
	defer func() {
		m.Close()
		cs.Close()
		<-called
	}()
	if !proctest.Poll(10*time.Second, func() bool { return len(proctest.WithCmdline(sleep)) > 0 }) {
		t.Fatal("the sleep did not start")
	}
	cancel() // ends the client's event stream
	if !proctest.Poll(10*time.Second, func() bool { return len(proctest.WithCmdline(sleep)) == 0 }) {
		t.Errorf("the sleep outlived its session's stream: %v", proctest.WithCmdline(sleep))
	}
	if !proctest.Poll(10*time.Second, func() bool { return m.Sessions() == 0 }) {
		t.Errorf("%d sessions after the stream's end", m.Sessions())
	}
}
