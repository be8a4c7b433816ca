// Package myshell is the typed adapter of myshell.yaml, a Bash tool of one's own: the spec, and the Go code
// the generator writes from it (myshell_gen.go, committed; make check fails when it is stale).
//
// In a module of your own the line is the same (go run builds the generator from the module cache), or,
// with the generator as a tool (go get -tool github.com/agentbash/agentbash/cmd/agentbash-gen),
//
//	//go:generate go tool agentbash-gen -spec myshell.yaml -out myshell_gen.go -pkg myshell
package myshell

//go:generate go run github.com/agentbash/agentbash/cmd/agentbash-gen -spec myshell.yaml -out myshell_gen.go -pkg myshell
