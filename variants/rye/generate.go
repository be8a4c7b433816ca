package rye

//go:generate go run ../../cmd/agentbash gen -spec rye.yaml -out rye_gen.go -pkg rye
