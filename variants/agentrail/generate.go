package agentrail

//go:generate go run ../../cmd/agentbash gen -spec agentrail.yaml -out agentrail_gen.go -pkg agentrail
