// Package validate links the spec language's JSON Schema validator (santhosh-tekuri/jsonschema) into a
// program, so that spec.Load, spec.LoadFS and spec.Parse can read YAML specs. Import it for its effect:
//
//	import _ "github.com/agentbash/agentbash/spec/validate"
//
// It is apart from package spec because the validator's package init compiles the meta-schemas of five
// JSON Schema drafts at every start of any program that links it (about 2.6 ms and 1.7 MB here), and a
// program that only runs compiled specs, such as one built on a generated adapter, never validates a
// file. Without this package, spec.Parse refuses every spec with an error that names it.
package validate

import (
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/spec/internal/schemacheck"
)

// The validator compiles the spec language's schema the first time spec validates a spec.
func init() { spec.UseSchemaValidator(schemacheck.Compile) }
