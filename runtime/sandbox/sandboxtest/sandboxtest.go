// Package sandboxtest helps test what a host does on a machine without one of the sandbox's mechanisms.
package sandboxtest

import (
	"github.com/agentbash/agentbash/runtime/sandbox"
	"github.com/agentbash/agentbash/runtime/sandbox/internal/simulate"
)

// Simulate makes sandbox.Check report m as missing, with reason as its detail, as on a machine without
// it, until restore is called; calls that need m then fail (or, with best effort, run without it).
func Simulate(m sandbox.Mechanism, reason string) (restore func()) {
	return simulate.Set(string(m), reason)
}
