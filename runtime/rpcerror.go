package runtime

// RPCError is a failure the spec makes a JSON-RPC error (a failure with code): what an MCP server answers
// a request it refuses (a tool it does not have, arguments it cannot decode), which its host sees as a
// protocol error rather than a tool result. runtime/serve answers it so over MCP.
type RPCError struct {
	// Code is the JSON-RPC error code (-32602 invalid params, -32600 invalid request).
	Code int
	// Message is the error's message.
	Message string
}

func (e *RPCError) Error() string { return e.Message }
