package runtime

// Generated adapters guard against a runtime that does not match them, as protobuf-go's EnforceVersion does:
// the generator emits
//
//	const _ = runtime.EnforceVersion(GenVersion - runtime.MinGenVersion)
//	const _ = runtime.EnforceVersion(runtime.GenVersion - GenVersion)
//
// with its own GenVersion; either constant goes negative, and fails to compile, when the generated code is
// newer than this runtime or older than it still supports.
const (
	// GenVersion is the generated-code API version this runtime implements. Version 2: generated Tools
	// embed an Adapter, and typed parameters may be sent as null (SetNulls).
	GenVersion = 2
	// MinGenVersion is the oldest generated-code API version this runtime still supports: regenerate
	// code of version 1.
	MinGenVersion = 2
)

// EnforceVersion is used by generated code to fail compilation on a version mismatch.
type EnforceVersion uint
