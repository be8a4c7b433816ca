//go:build tools

// Package tools pins the build-time tools agentbash uses, so that go.mod records their versions.
// They are run with `go run`, never installed globally.
package tools

import (
	_ "honnef.co/go/tools/cmd/staticcheck"
)
