package variants_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants/agentrail"
	"github.com/agentbash/agentbash/variants/codegensandbox"
	"github.com/agentbash/agentbash/variants/internal/behavior"
	"github.com/agentbash/agentbash/variants/rye"
	"github.com/agentbash/agentbash/variants/toolregistry"
	"github.com/agentbash/agentbash/variants/tunacode"
)

// encode marshals as the runtime writes JSON (no HTML escaping).
func encode(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// roundTrip checks that decoding a runtime result into its typed form and marshalling it again gives the
// runtime's bytes.
func roundTrip[R any](t *testing.T, raw json.RawMessage, decode func([]byte) (R, error)) R {
	t.Helper()
	r, err := decode(raw)
	if err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	if back := encode(t, r); !bytes.Equal(back, raw) {
		t.Errorf("round trip:\n got %s\nwant %s", back, raw)
	}
	return r
}

func decodeInto[R any](data []byte) (R, error) {
	var r R
	err := json.Unmarshal(data, &r)
	return r, err
}

// wantToolError checks a typed error: errors.As finds the generated type and the runtime's ToolError.
func wantToolError[E error](t *testing.T, err error, kind, msgPart string) {
	t.Helper()
	var typed E
	if !errors.As(err, &typed) {
		t.Fatalf("error %v (%T) is not a %T", err, err, typed)
	}
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Type != kind || !strings.Contains(te.Message, msgPart) {
		t.Errorf("as *runtime.ToolError: %+v, want type %s, message containing %q", te, kind, msgPart)
	}
}

func TestTypedRye(t *testing.T) {
	tool, err := rye.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	ctx := behavior.Bounded(t)

	res, err := tool.Bash(ctx, rye.BashParams{Command: "echo '<a & b>'; echo e >&2"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || *res.Stdout != "<a & b>\n" || *res.Stderr != "e\n" || *res.ExitCode != 0 || *res.Output != "<a & b>\n\n[stderr]\ne\n" {
		t.Errorf("Run: %+v", res)
	}
	for _, params := range []string{
		`{"command":"echo '<x>'; exit 2"}`,
		`{"command":"true","working_dir":"/"}`,
		`{"command":"sleep 5","timeout":0}`,
	} {
		raw, err := tool.Call(ctx, json.RawMessage(params))
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, raw, decodeInto[rye.BashResult])
	}
	_, err = tool.Call(ctx, json.RawMessage(`{}`))
	wantToolError[*rye.KeyError](t, err, "KeyError", "'command'")
}

func TestTypedToolregistry(t *testing.T) {
	tool, err := toolregistry.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	ctx := behavior.Bounded(t)

	res, err := tool.Bash(ctx, toolregistry.BashParams{Command: "echo hi; exit 4", Timeout: new(10)})
	if err != nil {
		t.Fatal(err)
	}
	if want := (toolregistry.BashResult{Stdout: "hi\n", ExitCode: 4}); res != want {
		t.Errorf("Run: %+v, want %+v", res, want)
	}
	res, err = tool.Bash(ctx, toolregistry.BashParams{Command: "sleep 5", Timeout: new(1)})
	if err != nil {
		t.Fatal(err)
	}
	if want := (toolregistry.BashResult{ExitCode: -1, TimedOut: true}); res != want {
		t.Errorf("timeout: %+v, want %+v", res, want)
	}
	raw, err := tool.Call(ctx, json.RawMessage(`{"command":"printf '<&>'"}`))
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, raw, decodeInto[toolregistry.BashResult])
	_, err = tool.Bash(ctx, toolregistry.BashParams{Command: "true", Cwd: new("no/such/dir")})
	wantToolError[*toolregistry.FileNotFoundError](t, err, "FileNotFoundError", "no/such/dir")
}

func TestTypedAgentrail(t *testing.T) {
	tool, err := agentrail.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	ctx := behavior.Bounded(t)

	res, err := tool.Bash(ctx, agentrail.BashParams{Command: "echo '<fg>'; exit 1"})
	if err != nil {
		t.Fatal(err)
	}
	fg, ok := res.(agentrail.BashForeground)
	if !ok || fg.Details.Mode != "foreground" || fg.Details.ExitCode != 1 || fg.Details.Stdout != "<fg>\n" ||
		fg.Content[0].Type != "text" || fg.Content[0].Text != "<fg>\n\n\n[exit code: 1]" {
		t.Errorf("foreground: %#v", res)
	}
	res, err = tool.Bash(ctx, agentrail.BashParams{Command: "sleep 5", Timeout: new(0)})
	if err != nil {
		t.Fatal(err)
	}
	if bg, ok := res.(agentrail.BashBackground); !ok || bg.Details.Mode != "background" || bg.Details.PID == nil || *bg.Details.PID <= 0 {
		t.Errorf("background: %#v", res)
	}
	for _, params := range []string{`{"command":"echo '<a&b>'"}`, `{"command":"echo x; sleep 5","timeout":0}`} {
		raw, err := tool.Call(ctx, json.RawMessage(params))
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, raw, agentrail.UnmarshalBashResult)
	}
	_, err = tool.Bash(ctx, agentrail.BashParams{Command: "true", Timeout: new(-1)})
	wantToolError[*agentrail.ToolValidationError](t, err, "ToolValidationError", `Invalid arguments for tool "Bash"`)
}

func TestTypedTunacode(t *testing.T) {
	ws := t.TempDir()
	tool, err := tunacode.New(runtime.WithWorkspace(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	ctx := behavior.Bounded(t)

	out, err := tool.Bash(ctx, tunacode.BashParams{Command: "echo $GREETING", Env: map[string]string{"GREETING": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "Command: echo $GREETING\nExit Code: 0\n") || !strings.Contains(out, "\nSTDOUT:\nhi\n") {
		t.Errorf("Run: %q", out)
	}
	_, err = tool.Bash(ctx, tunacode.BashParams{Command: "echo hi", Timeout: new(301)})
	wantToolError[*tunacode.ModelRetry](t, err, "ModelRetry", "Timeout must be between 1 and 300 seconds.")
}

func TestTypedCodegensandbox(t *testing.T) {
	tool, err := codegensandbox.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	ctx := behavior.Bounded(t)

	out, err := tool.Bash(ctx, codegensandbox.BashParams{Command: "echo hi; exit 2", Description: "print hi"})
	if err != nil || out != "hi\nexit: 2\n" {
		t.Errorf("Bash: %q, %v", out, err)
	}
	_, err = tool.Bash(ctx, codegensandbox.BashParams{Command: "echo hi"})
	wantToolError[*codegensandbox.ToolError](t, err, "ToolError", "description is required")
	_, err = tool.BashOutput(ctx, codegensandbox.BashOutputParams{ShellID: "nope"})
	wantToolError[*codegensandbox.ToolError](t, err, "ToolError", "unknown shell_id: nope")
	_, err = tool.KillShell(ctx, codegensandbox.KillShellParams{ShellID: "nope"})
	wantToolError[*codegensandbox.ToolError](t, err, "ToolError", "unknown shell_id: nope")
}

// An optional nullable parameter can be sent as null through the typed API (XNull), as a model may:
// toolregistry's timeout None is no time limit, which leaving the parameter out (120 s) is not.
func TestTypedNulls(t *testing.T) {
	for _, tc := range []struct {
		params any
		want   string // "" means a marshalling error
	}{
		{toolregistry.BashParams{Command: "ls", TimeoutNull: true}, `{"command":"ls","timeout":null}`},
		{toolregistry.BashParams{Command: "ls", TimeoutNull: true, CwdNull: true}, `{"command":"ls","timeout":null,"cwd":null}`},
		{toolregistry.BashParams{Command: "ls", Timeout: new(5)}, `{"command":"ls","timeout":5}`},
		{toolregistry.BashParams{Command: "ls", Timeout: new(5), TimeoutNull: true}, ""},
		{tunacode.BashParams{Command: "ls", TimeoutNull: true}, `{"command":"ls","timeout":null}`},
		{rye.BashParams{Command: "ls", TimeoutNull: true}, `{"command":"ls","timeout":null}`},
	} {
		got, err := json.Marshal(tc.params)
		if tc.want == "" {
			if err == nil || !strings.Contains(err.Error(), "timeout has a value and is to be sent as null") {
				t.Errorf("%+v: %s, %v; want an error", tc.params, got, err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v: %s, %v; want %s", tc.params, got, err, tc.want)
		}
	}

	tool, err := toolregistry.New(runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	res, err := tool.Bash(behavior.Bounded(t), toolregistry.BashParams{Command: "echo no limit", TimeoutNull: true})
	if want := (toolregistry.BashResult{Stdout: "no limit\n"}); err != nil || res != want {
		t.Errorf("Run with a null timeout: %+v, %v; want %+v", res, err, want)
	}
}
