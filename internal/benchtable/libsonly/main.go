// Command libsonly links the third-party libraries the agentbash binary is built on (the JSON Schema
// validator, the official MCP SDK, the Docker Engine API's Go client, jennifer, YAML v3,
// mvdan.cc/sh, a PTY, x/text), calls none of them and has nothing of agentbash's own: the linker keeps
// what their package inits reach, so its start is those inits and the runtime's start of what they bring.
// `make bench` times it beside the binary, to show how much of a start is the libraries' inits and how much
// is ours (our code, and the libraries' code we call).
package main

import (
	_ "github.com/creack/pty"
	_ "github.com/dave/jennifer/jen"
	_ "github.com/moby/moby/client"
	_ "github.com/modelcontextprotocol/go-sdk/auth"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/text/message"
	_ "mvdan.cc/sh/v3/interp"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() {}
