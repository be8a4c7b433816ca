// Package myshell is the typed adapter of myshell.yaml, a Bash tool of one's own: the spec, and the Go code
// agentbash gen writes from it (myshell_gen.go, committed; make check fails when it is stale).
//
// In a module of your own, with agentbash as a tool (go mod edit -tool
// github.com/agentbash/agentbash/cmd/agentbash), the line is
//
//	//go:generate go tool agentbash gen -spec myshell.yaml -out myshell_gen.go -pkg myshell
package myshell

//go:generate go run github.com/agentbash/agentbash/cmd/agentbash gen -spec myshell.yaml -out myshell_gen.go -pkg myshell
