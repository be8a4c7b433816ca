package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// `agentbash gen` and `agentbash spec validate` accept exactly the same specs, and refuse the others with
// the same positioned messages: every spec of spec/testdata (good, bad, and the earlier forms of the
// language) and the specs only a compiled policy refuses.
func TestGenAcceptsWhatValidateAccepts(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../spec/testdata/good/*.yaml", "../../spec/testdata/bad/*.yaml",
		"../../spec/testdata/compat/*/*.yaml", "testdata/invalid/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 80 {
		t.Fatalf("only %d specs", len(files))
	}
	refused := 0
	for _, f := range files {
		t.Run(strings.TrimPrefix(filepath.ToSlash(f), "../../"), func(t *testing.T) {
			var vout, verr bytes.Buffer
			vcode := cmdSpec([]string{"validate", f}, &vout, &verr)
			gcode, gout, gerr := runGen("-spec", f, "-out", "-")
			if (vcode == 0) != (gcode == 0) {
				t.Fatalf("validate exits %d, gen exits %d\nvalidate: %s%s\ngen: %s", vcode, gcode, vout.String(), verr.String(), gerr)
			}
			if vcode != 0 {
				refused++
				// validate prints the errors on stdout; gen prints the same after its name.
				if want := "agentbash gen: " + vout.String(); gerr != want {
					t.Errorf("gen says\n%s\nvalidate says\n%s", gerr, want)
				}
				if !strings.HasPrefix(vout.String(), f+":") {
					t.Errorf("the message does not start with the file and a position: %s", vout.String())
				}
				return
			}
			if !strings.HasPrefix(gout, "// Code generated") {
				t.Errorf("gen wrote no Go file: %.80q", gout)
			}
			// The notes on earlier forms of the language: the same in both.
			var vnotes, gnotes []string
			for _, l := range strings.Split(strings.TrimSpace(vout.String()), "\n") {
				if n, ok := strings.CutPrefix(l, "note: "); ok {
					vnotes = append(vnotes, n)
				}
			}
			for _, l := range strings.Split(strings.TrimSpace(gerr), "\n") {
				if n, ok := strings.CutPrefix(l, "agentbash gen: note: "); ok {
					gnotes = append(gnotes, n)
				} else if l != "" {
					t.Errorf("gen says more than notes: %s", l)
				}
			}
			if strings.Join(vnotes, "\n") != strings.Join(gnotes, "\n") {
				t.Errorf("notes differ:\nvalidate %q\ngen %q", vnotes, gnotes)
			}
		})
	}
	if refused < 70 {
		t.Errorf("only %d specs refused", refused)
	}
}
