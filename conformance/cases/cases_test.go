package cases

import (
	"encoding/json"
	"testing"

	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

func TestHarmless(t *testing.T) {
	for _, tc := range []struct {
		cmd string
		ok  bool
	}{
		{"ls -la", true},
		{"echo sudo", true},
		{`echo "don't sudo"`, true},
		{"grep -r mount .", true},
		{"echo a && pwd | wc -l", true},
		{"echo err >&2", true},
		{"rm -rf /", false},
		{"rm -r -f /tmp/x", false},
		{"sudo ls", false},
		{"git status", false},
		{"cat /etc/shadow", false},
		{"cat ../x", false},
		{"ls ~", false},
		{"echo $(rm x)", false},
		{"echo `rm x`", false},
		{"echo $HOME", false},
		{"echo x > file", false},
		{"echo x >> file", false},
		{"sleep 1 &", false},
		{"FOO=1 echo x", false},
		{`r\m -rf /`, false},
		{"ls *", false},
		{"/bin/ls", false},
		{"while true; do :; done", false},
		{"f() { f | f & }; f", false},
		{"echo 'unterminated", false},
		{"", false},
		{"   ", false},
	} {
		err := Harmless(tc.cmd)
		if (err == nil) != tc.ok {
			t.Errorf("Harmless(%q) = %v, want harmless %t", tc.cmd, err, tc.ok)
		}
	}
}

// The derived cases: unique names, the battery for every exec tool, sizes in the spec's own unit.
func TestCases(t *testing.T) {
	counts := map[string]int{}
	for _, id := range variants.IDs() {
		v := mustVariant(t, id)
		cases := Cases(v)
		counts[id] = len(cases)
		seen := map[string]bool{}
		for _, c := range cases {
			if seen[c.Name] {
				t.Errorf("%s: case %q twice", id, c.Name)
			}
			seen[c.Name] = true
			if !json.Valid(c.Params) {
				t.Errorf("%s: %s: params are not JSON: %s", id, c.Name, c.Params)
			}
			if c.MaxElapsed <= 0 {
				t.Errorf("%s: %s: no time bound", id, c.Name)
			}
		}
		tool := v.Tools[0].Name
		for _, want := range []string{"stdout only", "stderr only", "stdout and stderr", "non-zero exit", "empty output",
			"unicode", "invalid UTF-8", "CRLF line endings", "lone CR", "empty command"} {
			if v.Tools[0].Kind == spec.KindPersistent && (want == "non-zero exit" || want == "empty command") {
				continue // they end the shell every case of a persistent tool shares (apitools.go)
			}
			if !seen[tool+"/"+want] {
				t.Errorf("%s: no case %q", id, want)
			}
		}
	}
	t.Logf("cases per variant: %v", counts)
	v := mustVariant(t, "tunacode")
	names := map[string]Case{}
	for _, c := range Cases(v) {
		names[c.Name] = c
	}
	for _, n := range []string{"bash/result at limit-1 (4999 chars)", "bash/result at limit (5000 chars)", "bash/result at limit+1 (5001 chars)",
		"bash/timeout with partial output (1s)", "bash/workdir relative", "bash/workdir missing", "bash/env parameter"} {
		if _, ok := names[n]; !ok {
			t.Errorf("tunacode: no case %q", n)
		}
	}
	ar := map[string]Case{}
	for _, c := range Cases(mustVariant(t, "agentrail")) {
		ar[c.Name] = c
	}
	if c, ok := ar["Bash/timeout with partial output (1000ms)"]; !ok || c.NoSurvivors {
		t.Errorf("agentrail: a timeout that moves the process to the background may leave it running: %+v", c)
	}
	if _, ok := ar["Bash/stdout at limit+1 (1048577 bytes)"]; !ok {
		t.Error("agentrail: no case at the 1 MiB limit")
	}
}

func mustVariant(t *testing.T, id string) *spec.Variant {
	t.Helper()
	v, err := variants.Spec(id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
