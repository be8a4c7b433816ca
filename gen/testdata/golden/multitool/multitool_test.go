package multitool_test

import (
	"context"
	"errors"
	"github.com/agentbash/agentbash/runtime"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/gen/testdata/golden/multitool"
	"github.com/agentbash/agentbash/gen/toolschema"
)

func TestSchemas(t *testing.T) {
	defs := multitool.Definitions()
	params := []any{&multitool.BashParams{}, &multitool.BashOutputParams{}, &multitool.KillShellParams{}}
	if len(defs) != len(params) {
		t.Fatalf("%d definitions", len(defs))
	}
	for i, p := range params {
		reflected, err := toolschema.Reflect(p)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := toolschema.Summarize(reflected)
		want, _ := toolschema.Summarize(defs[i].InputSchema)
		for _, d := range toolschema.Diff(toolschema.Inferred(want), got) {
			t.Errorf("%s: %s", defs[i].Name, d)
		}
	}
}

func TestBackgroundShell(t *testing.T) {
	tool, err := multitool.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	ctx := context.Background()
	out, err := tool.Bash(ctx, multitool.BashParams{Command: "echo hi; exit 3", Description: "fails"})
	if err != nil || out != "hi\nexit: 3\n" {
		t.Fatalf("Bash: %q, %v", out, err)
	}
	out, err = tool.Bash(ctx, multitool.BashParams{Command: "echo bg; sleep 30", Description: "waits", RunInBackground: new(true)})
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^shell_id: (\S+)\nstarted in background: echo bg; sleep 30\n$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("background start: %q", out)
	}
	id := m[1]
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err = tool.BashOutput(ctx, multitool.BashOutputParams{ShellID: id})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "bg\n") || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.HasPrefix(out, "command: echo bg; sleep 30\nstatus: running\n") || !strings.Contains(out, "--- stdout ---\nbg\n") {
		t.Errorf("BashOutput: %q", out)
	}
	if out, err = tool.KillShell(ctx, multitool.KillShellParams{ShellID: id}); err != nil || out != "killed: "+id+"\n" {
		t.Errorf("KillShell: %q, %v", out, err)
	}
	_, err = tool.BashOutput(ctx, multitool.BashOutputParams{ShellID: "nope"})
	var te *multitool.ToolError
	if !errors.As(err, &te) || te.Message != "unknown shell_id: nope" {
		t.Errorf("unknown id: %v", err)
	}
	_, err = tool.Bash(ctx, multitool.BashParams{Command: "true"})
	if !errors.As(err, &te) || te.Message != "description is required" {
		t.Errorf("no description: %v", err)
	}
}
