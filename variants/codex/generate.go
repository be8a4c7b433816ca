package codex

//go:generate go run ../../cmd/agentbash gen -spec codex.yaml -out codex_gen.go -pkg codex
