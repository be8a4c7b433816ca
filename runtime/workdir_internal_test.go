package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pyRealpath answers as CPython 3.11's Path(p).resolve() does: these answers were printed by Python 3.11.7
// on the same tree ({root} its directory).
func TestPyRealpath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	for _, d := range []string{"ws/sub/deep", "outside"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"out": filepath.Join(root, "outside"), "loop": "loop2", "loop2": "loop",
		"inlink": "sub", "deeplink": "sub/deep", "rel": "../ws/sub"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ path, want, err string }{
		{"nope/../sub", "{root}/ws/sub", ""},
		{"out/../ws/sub", "{root}/ws/sub", ""},
		{"out", "{root}/outside", ""},
		{"loop", "", "RuntimeError: Symlink loop from '{root}/ws/loop'"},
		{"loop/x/..", "", "RuntimeError: Symlink loop from '{root}/ws/loop'"},
		{"notes.txt/..", "{root}/ws", ""},
		{"sub/./missing/..", "{root}/ws/sub", ""},
		{"inlink/..", "{root}/ws", ""},
		{"deeplink/../..", "{root}/ws", ""},
		{"rel/deep/../..", "{root}/ws", ""},
		{"~", "{root}/ws/~", ""},
		{"a/b/../../sub", "{root}/ws/sub", ""},
		{"sub//deep/", "{root}/ws/sub/deep", ""},
		{"..", "{root}", ""},
		{"../outside/../ws", "{root}/ws", ""},
		{"inlink/../loop2/z", "", "RuntimeError: Symlink loop from '{root}/ws/loop2/z'"},
		{"sub\x00x", "", "ValueError: embedded null byte"},
	} {
		got, re := pyRealpath(ws + "/" + tc.path)
		gotErr := ""
		if re != nil {
			gotErr, got = re.class+": "+re.msg, ""
		}
		got, gotErr = strings.ReplaceAll(got, root, "{root}"), strings.ReplaceAll(gotErr, root, "{root}")
		if got != tc.want || gotErr != tc.err {
			t.Errorf("resolve(%q) = %q, %q; want %q, %q", tc.path, got, gotErr, tc.want, tc.err)
		}
	}
}
