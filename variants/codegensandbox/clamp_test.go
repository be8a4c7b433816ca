package codegensandbox_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// TestTimeoutClampIsTheDescribed: the timeout is clamped, silently, at the maximum the model is told
// (upstream's "Clamped to a maximum of 600", in the parameter's description). A clamp cannot be observed
// by a test short of waiting for it, so the spec's maximum is held to the text the model reads.
func TestTimeoutClampIsTheDescribed(t *testing.T) {
	v, err := variants.Spec("codegensandbox")
	if err != nil {
		t.Fatal(err)
	}
	tool := v.Tool("Bash")
	if tool == nil {
		t.Fatal("no Bash tool")
	}
	p := tool.Param(spec.RoleTimeout)
	to := tool.Timeout
	if p == nil || to == nil {
		t.Fatal("Bash has no timeout")
	}
	if to.Max == nil {
		t.Fatal("no maximum")
	}
	want := fmt.Sprintf("clamped to a maximum of %v", *to.Max)
	if to.OutOfRange != spec.OutOfRangeClamp || !strings.Contains(p.Description, want) {
		t.Errorf("out_of_range %q, max %v; the description says %q, want it to say %q", to.OutOfRange, *to.Max, p.Description, want)
	}
}
