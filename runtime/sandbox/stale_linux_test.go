package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A host killed before Close leaves its sandbox's temporary directory behind: the next host removes it
// (its pid is gone), and leaves alone the directories of live hosts, its own, and names of another form.
func TestRemoveStale(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()

	dir := t.TempDir()
	names := map[string]bool{ // name: removed
		tmpPrefix + strconv.Itoa(dead.Process.Pid) + "-123":          true,
		tmpPrefix + strconv.Itoa(live.Process.Pid) + "-123":          false,
		tmpPrefix + strconv.Itoa(os.Getpid()) + "-123":               false,
		tmpPrefix + "123456789":                                      false, // no pid field
		tmpPrefix + "x-123":                                          false,
		"other-" + strconv.Itoa(dead.Process.Pid) + "-123":           false,
		tmpPrefix + strconv.Itoa(dead.Process.Pid) + "-456/subdir/f": true,
	}
	for name := range names {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name), filepath.Base(name)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, tmpPrefix+strconv.Itoa(dead.Process.Pid)+"-123", "left"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := removeStale(dir); got != 2 {
		t.Errorf("removed %d directories, want 2", got)
	}
	for name, removed := range names {
		top, _, _ := strings.Cut(name, "/")
		if _, err := os.Stat(filepath.Join(dir, top)); removed != os.IsNotExist(err) {
			t.Errorf("%s: removed %v, want %v", top, os.IsNotExist(err), removed)
		}
	}
}
