package conformance

import (
	"github.com/agentbash/agentbash/conformance/cases"
	"github.com/agentbash/agentbash/conformance/model"
	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// Target is an implementation under test (package conformance/target: the interface and the built-in
// targets).
type Target = target.Target

// Case is one call of a tool with its workspace and the properties its answer must have (package
// conformance/cases derives them).
type Case = cases.Case

// InProcess is the variant run by this module's runtime in this process (target.InProcess).
func InProcess(v *spec.Variant, opts ...runtime.Option) Target { return target.InProcess(v, opts...) }

// Wire is the wire-protocol target started as argv (target.Wire).
func Wire(argv ...string) *target.WireTarget { return target.Wire(argv...) }

// MCP is the MCP stdio server started as argv (target.MCP).
func MCP(argv ...string) *target.MCPTarget { return target.MCP(argv...) }

// MCPHTTP is the streamable HTTP MCP server at url, serving workspace (target.MCPHTTP).
func MCPHTTP(url, workspace string) *target.MCPURLTarget { return target.MCPHTTP(url, workspace) }

// MCPSSE is the HTTP+SSE MCP server at url, serving workspace (target.MCPSSE).
func MCPSSE(url, workspace string) *target.MCPURLTarget { return target.MCPSSE(url, workspace) }

// Model is the host CLI started as argv, speaking api, reached as a model reaches it (target.Model).
func Model(api model.API, argv ...string) *target.ModelTarget { return target.Model(api, argv...) }
