package conformance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// A case whose command would do harm (a policy's blocked example) runs on an executor that starts nothing:
// a target whose spec is missing the rule that blocks it fails the case, loudly, and the command does not
// run (its marker file does not appear). Run on the local executor, the same spec does run it.
func TestHazardNeverRuns(t *testing.T) {
	src, err := os.ReadFile("testdata/guarded.yaml")
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "hazard-ran")
	rule := "      - name: touch\n        pattern: '\\btouch\\b'\n        reason: touches a file\n"
	example := "        - command: touch " + marker + "\n          message: \"Blocked: touches a file\"\n"
	load := func(text string) *spec.Variant {
		f := filepath.Join(t.TempDir(), "guarded.yaml")
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	withRule := load(strings.Replace(strings.Replace(string(src), "    rules:\n", "    rules:\n"+rule, 1), "      blocked:\n", "      blocked:\n"+example, 1))
	missing := load(string(src))

	only := Filter(func(c Case) bool { return strings.HasSuffix(c.Name, "blocks: touch "+marker) })
	r, err := Check(context.Background(), withRule, InProcess(missing), only)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 1 {
		t.Fatalf("%d cases, want the one blocked example:\n%s", len(r.Results), r.Summary())
	}
	res := r.Results[0]
	if res.Status != Fail || !strings.Contains(res.Reason, "refused: this run may not start processes") {
		t.Errorf("the case: %s %q, want a failure naming the refusal", res.Status, res.Reason)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the hazard command ran: %s exists (%v)", marker, err)
	}
	// Against a target that has the rule, the case passes (and nothing runs either).
	if r, err := Check(context.Background(), withRule, InProcess(withRule), only); err != nil || !r.OK() || r.Passed != 1 {
		t.Errorf("with the rule: %v\n%s", err, r.Summary())
	}
	// The control: with the local executor, the spec missing its rule runs the command.
	eng, err := runtime.New(missing, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	b, _ := json.Marshal(map[string]any{"command": "touch " + marker})
	if _, err := eng.Call(context.Background(), "bash", b); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the control did not run the command: %v", err)
	}
}
