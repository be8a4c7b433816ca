package serve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callMeta says where a call came from, for the audit log and the approver: it travels in the call's
// context.
type callMeta struct {
	Transport string
	// Session is the streamable HTTP session's id; Client the client's name/version (MCP); Remote the
	// address of the client that opened the session (HTTP).
	Session, Client, Remote string
	// ID is the wire protocol's request id.
	ID string
	// Workspace is the workspace the call runs in, when the server knows it (the wire protocol).
	Workspace string
	// session is the MCP session the call came in, to ask its user.
	session *mcp.ServerSession
}

type metaKey struct{}

func withCallMeta(ctx context.Context, m *callMeta) context.Context {
	return context.WithValue(ctx, metaKey{}, m)
}

func callMetaFrom(ctx context.Context) *callMeta {
	m, _ := ctx.Value(metaKey{}).(*callMeta)
	return m
}
