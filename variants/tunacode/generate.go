package tunacode

//go:generate go run ../../cmd/agentbash gen -spec tunacode.yaml -out tunacode_gen.go -pkg tunacode
