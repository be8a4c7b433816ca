package genimpl

import "github.com/agentbash/agentbash/internal/genversion"

// Generated adapters guard against a runtime that does not match them, as protobuf-go's EnforceVersion does:
// the generator emits
//
//	const _ = genimpl.EnforceVersion(genVersion - genimpl.MinGenVersion)
//	const _ = genimpl.EnforceVersion(genimpl.GenVersion - genVersion)
//
// with its own genVersion; either constant goes negative, and fails to compile, when the generated code is
// newer than this runtime or older than it still supports.
const (
	// GenVersion is the generated-code API version this runtime implements. Version 4: generated adapters
	// import this package for what they share (version 3 found it in runtime), start from their compiled
	// spec, and their Params types carry no invopop jsonschema tags; version 3 named everything per tool
	// (Bash, BashParams, BashResult) and embedded Raised in the error types.
	GenVersion = genversion.Max
	// MinGenVersion is the oldest generated-code API version this runtime still supports: regenerate code
	// of version 3 or older.
	MinGenVersion = genversion.Min
)

// EnforceVersion is used by generated code to fail compilation on a version mismatch.
type EnforceVersion uint
