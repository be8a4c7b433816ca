package runtime_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// redactRules are a PEM rule and a token rule, with what a cut leaves of each.
const redactRules = `redact:
  rules:
    - name: pem
      pattern: '-----BEGIN PRIVATE KEY-----[\s\S]*?-----END PRIVATE KEY-----'
      open: '-----BEGIN PRIVATE KEY-----'
      close: '-----END PRIVATE KEY-----'
    - {name: ghp, pattern: '\bghp_[A-Za-z0-9]{36,}\b', partial: '\bghp_[A-Za-z0-9]*'}
`

// withRedaction adds redactRules to a spec.
func withRedaction(spec string) string {
	return strings.Replace(spec, "\ntools:\n", "\n"+redactRules+"tools:\n", 1)
}

const (
	tokBody = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab"
	keyBody = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3S"
)

// A background shell polled with poll: new reads its output in chunks: a secret split between two polls
// (a token's prefix in one, its body in the next; a key over three) shows no byte, because each poll is
// redacted after the end of the one before.
func TestRedactionAcrossPolls(t *testing.T) {
	eng, ws := newEngine(t, withRedaction(fmt.Sprintf(bgSpec, "new")))
	key := strings.Split(keyBody, "\n")
	chunks := []string{
		"x gh",
		"p_" + tokBody + " y\n-----BEGIN PRIVATE KEY-----\n" + key[0] + "\n",
		key[1] + "\n",
		key[2] + "\n-----END PRIVATE KEY-----\nz\n",
	}
	want := []string{
		"x gh",
		"[REDACTED:ghp] y\n[REDACTED:pem]",
		"[REDACTED:pem]",
		"[REDACTED:pem]\nz\n",
	}
	var command []string
	for i, c := range chunks {
		name := filepath.Join(ws, fmt.Sprint("chunk", i))
		if err := os.WriteFile(name, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
		command = append(command, "cat "+name)
		if i < len(chunks)-1 {
			fifo := filepath.Join(ws, fmt.Sprint("gate", i))
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			command = append(command, "cat "+fifo+" >/dev/null")
		}
	}
	id := start(t, eng, strings.Join(command, "; "))
	written := 0
	for i, c := range chunks {
		written += len(c)
		waitFor(t, func() bool { sh, _ := eng.Shell(id); return sh.StdoutBytes >= int64(written) })
		got, err := call(t, eng, "poll", map[string]any{"shell_id": id})
		if err != nil {
			t.Fatal(err)
		}
		_, got, _ = strings.Cut(got, fmt.Sprintf("%d/%d|", written, written))
		got = strings.TrimSuffix(got, "|")
		if got != want[i] {
			t.Errorf("poll %d: %q, want %q", i, got, want[i])
		}
		if i < len(chunks)-1 {
			f, err := os.OpenFile(filepath.Join(ws, fmt.Sprint("gate", i)), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	if _, err := eng.WaitShell(bounded(t), id); err != nil {
		t.Fatal(err)
	}
}

// truncSpec is a tool whose output is cut to 60 bytes, keeping the head or the tail (%s).
const truncSpec = `
id: cut
title: cut
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/sh, -c]}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    output:
      capture: combined
      truncate: {unit: bytes, limit: 60, keep: %s, marker: "[cut]"}
    results:
      format: text
      cases:
        exit: {text: "{{.Output}}|"}
`

// What a truncation leaves of a secret is redacted: the head ends inside a key or a token, the tail
// starts inside a key; a secret the cut does not touch is redacted as usual, and text that only looks like
// the start of a token is left alone where nothing was cut.
func TestRedactionAtCuts(t *testing.T) {
	key := "-----BEGIN PRIVATE KEY-----\n" + keyBody + "\n-----END PRIVATE KEY-----\n"
	cases := []struct{ name, keep, output, want string }{
		{"a key cut off at the head", "head", "abc\n" + key, "abc\n[REDACTED:pem][cut]|"},
		{"a token cut at the head", "head", strings.Repeat("a", 40) + " ghp_" + tokBody, strings.Repeat("a", 40) + " [REDACTED:ghp][cut]|"},
		{"a key whose start the tail lost", "tail", key + "after\n", "[cut][REDACTED:pem]\nafter\n|"},
		{"a whole key in the tail", "tail", strings.Repeat("a", 200) + "\n-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n", "[cut]a\n[REDACTED:pem]\n|"},
		{"a token prefix where nothing was cut", "head", "see ghp_abc", "see ghp_abc|"},
		{"a BEGIN with no END where nothing was cut", "head", "-----BEGIN PRIVATE KEY-----\nMII", "[REDACTED:pem]|"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng, ws := newEngine(t, withRedaction(fmt.Sprintf(truncSpec, c.keep)))
			if err := os.WriteFile(filepath.Join(ws, "out"), []byte(c.output), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := callText(t, eng, `{"command": "cat out"}`)
			if err != nil || got != c.want {
				t.Errorf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// A session read continues the one before it: a key whose BEGIN one read saw and whose END the next
// sees shows no byte in either.
func TestRedactionAcrossSessionReads(t *testing.T) {
	data, err := os.ReadFile("../variants/codex/codex.yaml")
	if err != nil {
		t.Fatal(err)
	}
	eng, ws := newEngine(t, withRedaction(string(data)))
	lines := strings.Split(keyBody, "\n")
	first := "-----BEGIN PRIVATE KEY-----\n" + lines[0] + "\n"
	second := lines[1] + "\n" + lines[2] + "\n-----END PRIVATE KEY-----\nok\n"
	for name, text := range map[string]string{"first": first, "second": second} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(ws, "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := eng.Call(bounded(t), "exec_command", []byte(`{"cmd": "cat first; cat gate >/dev/null; cat second", "yield_time_ms": 2000}`))
	if err != nil {
		t.Fatal(err)
	}
	out := string(res)
	for _, l := range lines {
		if strings.Contains(out, l) {
			t.Errorf("the first read shows %q: %s", l, out)
		}
	}
	if !strings.HasSuffix(out, `Output:\n[REDACTED:pem]"`) || !strings.Contains(out, "Process running with session ID") {
		t.Fatalf("first read: %s", out)
	}
	sessions := eng.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("sessions: %+v", sessions)
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	res, err = eng.Call(bounded(t), "write_stdin", []byte(fmt.Sprintf(`{"session_id": %s, "chars": "", "yield_time_ms": 5000}`, sessions[0].ID)))
	if err != nil {
		t.Fatal(err)
	}
	out = string(res)
	for _, l := range lines {
		if strings.Contains(out, l) {
			t.Errorf("the second read shows %q: %s", l, out)
		}
	}
	if !strings.Contains(out, `[REDACTED:pem]\nok\n`) {
		t.Errorf("second read: %s", out)
	}
}
