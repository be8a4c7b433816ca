package spec

// Conformance is what the conformance suite needs to know to drive a target of the spec, beyond the
// contract itself.
type Conformance struct {
	// Notifications are JSON-RPC notifications sent to an MCP server, in order, right after the client's
	// notifications/initialized: what a server waits to hear before its tools work (npm
	// @openai/codex-shell-tool-mcp answers every call with an error until it gets
	// codex/sandbox-state/update).
	Notifications []Notification `yaml:"notifications,omitempty" json:"notifications,omitempty"`
}

// Notification is one JSON-RPC notification: its method and its params (an object).
type Notification struct {
	Method string         `yaml:"method" json:"method" jsonschema:"minLength=1"`
	Params map[string]any `yaml:"params,omitempty" json:"params,omitempty"`
}
