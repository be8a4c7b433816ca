package toolregistry

//go:generate go run ../../cmd/agentbash gen -spec toolregistry.yaml -out toolregistry_gen.go -pkg toolregistry
