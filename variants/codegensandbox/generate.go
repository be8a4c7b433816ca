package codegensandbox

//go:generate go run ../../cmd/agentbash gen -spec codegensandbox.yaml -out codegensandbox_gen.go -pkg codegensandbox
