package variants_test

import (
	"context"
	"testing"
	"time"
)

// callBound bounds every call and wait of these tests: a test that waits for a process fails after it
// rather than hanging.
const callBound = 30 * time.Second

// bounded returns a context that ends with the test or after callBound.
func bounded(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), callBound)
	t.Cleanup(cancel)
	return ctx
}
