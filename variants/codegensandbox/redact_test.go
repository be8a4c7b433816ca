package codegensandbox_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
	"github.com/agentbash/agentbash/variants/internal/behavior"
)

// privateKey is a PEM private key with a random body of about 1.7 KB, and the body alone.
func privateKey(t *testing.T) (pem, body string) {
	t.Helper()
	raw := make([]byte, 1218)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(raw)
	var lines []string
	for len(b64) > 64 {
		lines, b64 = append(lines, b64[:64]), b64[64:]
	}
	body = strings.Join(append(lines, b64), "\n")
	return "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n", body
}

// token is a GitHub personal access token with a random body, and the body alone.
func token(t *testing.T) (tok, body string) {
	t.Helper()
	raw := make([]byte, 30)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	body = regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(base64.StdEncoding.EncodeToString(raw), "x")
	return "ghp_" + body, body
}

// leak returns a run of 6 bytes of secret that text shows, or "".
func leak(text, secret string) string {
	for i := 0; i+6 <= len(secret); i++ {
		if w := secret[i : i+6]; !strings.Contains(w, "\n") && strings.Contains(text, w) {
			return w
		}
	}
	return ""
}

// engine is a codegensandbox engine on a fresh workspace, with files written there.
func engine(t *testing.T, files map[string]string) (*runtime.Engine, string) {
	t.Helper()
	v, err := variants.Spec("codegensandbox")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, dir
}

func callText(t *testing.T, eng *runtime.Engine, tool string, params map[string]any) (string, error) {
	t.Helper()
	raw, _ := json.Marshal(params)
	res, err := eng.Call(behavior.Bounded(t), tool, raw)
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(res, &s); err != nil {
		t.Fatalf("%s result is not text: %s", tool, behavior.Short(string(res)))
	}
	return s, nil
}

// Deviation: upstream scrubs after its 100 KiB cut, so a private key whose END the cut removed comes back
// but for its last lines, and a token cut in the middle shows its first half. What a cut leaves of a
// secret is redacted: no byte of the secret shows.
func TestRedactionAtTheCut(t *testing.T) {
	key, keyBody := privateKey(t)
	tok, tokBody := token(t)
	const limit = 102400
	cases := []struct {
		name, file, secret string
		want               string // the end of the kept text, before the marker
	}{
		// The key starts 800 bytes before the cut: its BEGIN line and some 750 bytes of its body are kept.
		{"a key cut by the limit", strings.Repeat("a", limit-800) + key, keyBody, strings.Repeat("a", 10) + "[REDACTED:pem-private-key]\n... (output truncated, "},
		// The token's prefix and 16 bytes of its body are kept.
		{"a token at the cut", strings.Repeat("a", limit-25) + " " + tok + "\n", tokBody, "a [REDACTED:github-pat]\n... (output truncated, "},
		// The whole key is kept: the cut does not touch it.
		{"a key before the cut", key + strings.Repeat("a", limit), keyBody, "[REDACTED:pem-private-key]\n" + strings.Repeat("a", 10)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng, _ := engine(t, map[string]string{"out": c.file})
			got, err := callText(t, eng, "Bash", map[string]any{"command": "cat out", "description": "d"})
			if err != nil {
				t.Fatal(err)
			}
			if w := leak(got, c.secret); w != "" {
				t.Errorf("the result shows %q of the secret", w)
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("result ends %q, want it to contain %q", got[max(0, len(got)-200):], c.want)
			}
		})
	}
}

// Deviation: upstream scrubs each BashOutput as it is, so a key half written when it is polled shows its
// first half. A BEGIN line with no END is redacted to the end of the text, while the shell writes it and
// after.
func TestRedactionWhileWritten(t *testing.T) {
	key, body := privateKey(t)
	half := strings.Index(key, "\n") + len(key)/2
	eng, dir := engine(t, map[string]string{"first": key[:half], "second": key[half:]})
	if err := syscall.Mkfifo(filepath.Join(dir, "go"), 0o600); err != nil {
		t.Fatal(err)
	}
	started, err := callText(t, eng, "Bash", map[string]any{"command": "cat first; cat go >/dev/null; cat second", "description": "d", "run_in_background": true})
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimPrefix(strings.SplitN(started, "\n", 2)[0], "shell_id: ")
	poll := func(until string) string {
		deadline := time.Now().Add(10 * time.Second)
		for {
			out, err := callText(t, eng, "BashOutput", map[string]any{"shell_id": id})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out, until) || time.Now().After(deadline) {
				return out
			}
			time.Sleep(20 * time.Millisecond) // polling, as a model does: the output is what is awaited
		}
	}
	first := poll(" bytes) ---\n[REDACTED:pem-private-key]")
	if !strings.Contains(first, "status: running") || !strings.Contains(first, "--- stdout (") {
		t.Fatalf("first poll: %q", first)
	}
	if w := leak(first, body); w != "" {
		t.Errorf("the first poll shows %q of the key: %q", w, first)
	}
	// Let the shell write the second half.
	f, err := os.OpenFile(filepath.Join(dir, "go"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	second := poll("status: completed")
	if w := leak(second, body); w != "" {
		t.Errorf("the second poll shows %q of the key: %q", w, second)
	}
	if want := "---\n[REDACTED:pem-private-key]\n--- stderr (0 bytes) ---\n"; !strings.HasSuffix(second, want) {
		t.Errorf("second poll %q, want it to end %q", second, want)
	}
}

// The server scrubs every tool result, errors included; only Go-level errors that never become a result
// escape it. An unknown shell id is an error result: it comes back scrubbed.
func TestRedactionOfErrors(t *testing.T) {
	eng, _ := engine(t, nil)
	for _, tool := range []string{"BashOutput", "KillShell"} {
		_, err := callText(t, eng, tool, map[string]any{"shell_id": "TOKEN=abc"})
		var te *runtime.ToolError
		if !errors.As(err, &te) || te.Message != "unknown shell_id: [REDACTED:secret-env-assignment]" {
			t.Errorf("%s: %v, want ToolError unknown shell_id: [REDACTED:secret-env-assignment]", tool, err)
		}
	}
}
