// Package genversion is the one source of the generated-code API version: the generator writes Max into
// every adapter (gen.Version), runtime/genimpl takes adapters of versions Min to Max (its EnforceVersion
// guard), and the CLI and the MCP server report it, as protobuf-go's internal/version is for protoimpl.
package genversion

const (
	// Max is the generated-code API version the generator writes and the runtime implements. Version 4:
	// generated adapters import runtime/genimpl (Generated, Invoke, Raised, ...: nothing of it is in
	// runtime any more) and start from their compiled spec (no YAML embedded or read at run time), and
	// their Params types carry no invopop jsonschema tags.
	Max = 4
	// Min is the oldest generated-code API version the runtime still takes: regenerate code of version 3
	// or older.
	Min = 4
)
