package serve

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentbash/agentbash/runtime"
)

// Elicit is the runtime.Approver of `agentbash serve` over MCP: a call a policy asks about is put to the
// user of the client that made it, through MCP elicitation (elicitation/create, a form with no fields),
// and runs only when the user accepts. A client that did not declare the elicitation capability, a
// decline, a cancel, an error or the call's end refuse it, with the policy's own denial. A call that did
// not come through an MCP server of this package (the wire protocol) is refused too.
func Elicit(ctx context.Context, a runtime.Approval) bool {
	m := callMetaFrom(ctx)
	if m == nil || m.session == nil {
		return false
	}
	ip := m.session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	res, err := m.session.Elicit(ctx, &mcp.ElicitParams{
		Message:         approvalMessage(a),
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	})
	return err == nil && res != nil && res.Action == "accept" && ctx.Err() == nil
}

// approvalMessage is what the user is asked.
func approvalMessage(a runtime.Approval) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The tool %s asks to run:\n\n%s\n\n", a.Tool, a.Command)
	why := "the policy " + a.Policy
	if a.Rule != "" {
		why += " (rule " + a.Rule + ")"
	}
	fmt.Fprintf(&b, "%s asks before running it. Accept to run it; decline or cancel to refuse it", why)
	if a.Message != "" {
		fmt.Fprintf(&b, " (the model is then told: %s)", a.Message)
	}
	b.WriteString(".")
	return b.String()
}
