package runtime

// Generated adapters guard against a runtime that does not match them, as protobuf-go's EnforceVersion does:
// the generator emits
//
//	const _ = runtime.EnforceVersion(genVersion - runtime.MinGenVersion)
//	const _ = runtime.EnforceVersion(runtime.GenVersion - genVersion)
//
// with its own genVersion; either constant goes negative, and fails to compile, when the generated code is
// newer than this runtime or older than it still supports.
const (
	// GenVersion is the generated-code API version this runtime implements. Version 3: generated Tools hold
	// a *Generated in an unexported field, name everything per tool (Bash, BashParams, BashResult), and
	// their error types embed Raised.
	GenVersion = 3
	// MinGenVersion is the oldest generated-code API version this runtime still supports: regenerate code
	// of version 2 or older.
	MinGenVersion = 3
)

// EnforceVersion is used by generated code to fail compilation on a version mismatch.
type EnforceVersion uint
