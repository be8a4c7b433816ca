// Command mutate is `make mutate`: it applies each of a fixed list of small wrong changes (mutants.go) to
// a copy of the repository, one at a time, runs the tests of the packages that own the behaviour, and
// prints which mutants the tests kill and the score. It never changes the working tree.
//
//	go run ./internal/mutate            # every mutant
//	go run ./internal/mutate -run rye   # the mutants whose name matches
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

func main() {
	only := flag.String("run", "", "apply only the mutants whose name matches this regular expression")
	timeout := flag.Duration("timeout", 5*time.Minute, "time the tests of one mutant may take (past it, the mutant counts as killed: a hang is caught)")
	flag.Parse()
	var match *regexp.Regexp
	if *only != "" {
		var err error
		if match, err = regexp.Compile(*only); err != nil {
			fatal(err)
		}
	}
	if err := checkAll("."); err != nil {
		fatal(err)
	}
	dir, err := os.MkdirTemp("", "agentbash-mutate-")
	if err != nil {
		fatal(err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil { // /proc/PID/cwd is the physical path
		fatal(err)
	}
	defer func() {
		reapLeftovers(dir)
		os.RemoveAll(dir)
	}()
	if err := copyTree(".", dir); err != nil {
		fatal(err)
	}
	killed, total := 0, 0
	var survivors []string
	for _, m := range mutants {
		if match != nil && !match.MatchString(m.name) {
			continue
		}
		total++
		start := time.Now()
		dead, out, err := run(dir, m, *timeout)
		if err != nil {
			fatal(fmt.Errorf("%s: %v", m.name, err))
		}
		verdict := "SURVIVED"
		if dead {
			verdict = "killed"
			killed++
		} else {
			survivors = append(survivors, m.name)
		}
		fmt.Printf("%-8s %-55s %5.1fs  %s\n", verdict, m.name, time.Since(start).Seconds(), strings.Join(m.packages, " "))
		if !dead && os.Getenv("MUTATE_VERBOSE") != "" {
			fmt.Println(out)
		}
	}
	fmt.Printf("\nmutation score: %d of %d killed (%.0f%%)\n", killed, total, 100*float64(killed)/float64(max(total, 1)))
	for _, s := range survivors {
		fmt.Println("survivor:", s)
	}
}

// run applies m in the copy dir, runs its packages' tests, and restores the file. dead reports a failing
// test (or a build failure, or a hang past timeout).
func run(dir string, m mutant, timeout time.Duration) (dead bool, out string, err error) {
	path := filepath.Join(dir, m.file)
	orig, err := os.ReadFile(path)
	if err != nil {
		return false, "", err
	}
	mutated, err := apply(string(orig), m)
	if err != nil {
		return false, "", err
	}
	if err := os.WriteFile(path, []byte(mutated), 0o644); err != nil {
		return false, "", err
	}
	// A spec is compiled into the generated adapters: a changed YAML file reaches them through go generate,
	// as it does for one who edits it (and the adapters are regenerated again once it is restored).
	regen := strings.HasSuffix(m.file, ".yaml")
	defer func() {
		os.WriteFile(path, orig, 0o644)
		if regen {
			if b, gerr := generate(dir); gerr != nil && err == nil {
				err = fmt.Errorf("regenerating after the mutant: %v\n%s", gerr, b)
			}
		}
	}()
	if regen {
		if b, err := generate(dir); err != nil {
			return true, "go generate ./variants: " + err.Error() + "\n" + string(b), nil // the generator refuses it
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-count=1"}, m.packages...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), runMarker)
	b, err := cmd.CombinedOutput()
	out = string(b)
	if n := reapLeftovers(dir); n > 0 {
		out += fmt.Sprintf("\nmutate: killed %d processes the tests left behind\n", n)
	}
	if ctx.Err() != nil {
		return true, out, nil
	}
	return err != nil, out, nil
}

// generate regenerates the built-in adapters in the copy dir.
func generate(dir string) ([]byte, error) {
	cmd := exec.Command("go", "generate", "./variants")
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// apply returns src with m applied; old must occur exactly once.
func apply(src string, m mutant) (string, error) {
	if n := strings.Count(src, m.old); n != 1 {
		return "", fmt.Errorf("mutant %q: %q occurs %d times in %s, want once (the code moved: update mutants.go)", m.name, m.old, n, m.file)
	}
	return strings.Replace(src, m.old, m.new, 1), nil
}

// checkAll checks that every mutant applies to the tree at root.
func checkAll(root string) error {
	for _, m := range mutants {
		src, err := os.ReadFile(filepath.Join(root, m.file))
		if err != nil {
			return fmt.Errorf("mutant %q: %v", m.name, err)
		}
		if _, err := apply(string(src), m); err != nil {
			return err
		}
		if len(m.packages) == 0 {
			return fmt.Errorf("mutant %q names no packages", m.name)
		}
	}
	return nil
}

// copyTree copies the files git knows (tracked, and untracked but not ignored) from src to dst.
func copyTree(src, dst string) error {
	out, err := exec.Command("git", "-C", src, "ls-files", "-co", "--exclude-standard", "-z").Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		fi, err := os.Lstat(filepath.Join(src, name))
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted, or a link: nothing the tests read through here
		}
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, name)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, name), data, fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(2)
}
