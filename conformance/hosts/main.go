// Command hosts is `make hosts`: it checks the shell tool of real agent CLIs against their specs, the suite
// playing the model. For each host of hosts.yaml that has a spec, it installs the pinned npm package into
// a cache directory (npm install --prefix DIR --ignore-scripts: the native binaries ship in per-platform
// optional packages, whose install needs no script), runs the conformance suite against it as `agentbash
// conformance SPEC -model API -- ARGV` would (batched: one host start carries the cases), and prints a
// table: cases, passed, failed, expected failures (the host's baseline) and skipped, then each failure's
// first report lines. A host npm cannot install is skipped with the reason; a host without a spec is
// listed, not run. Exit status 1 when a host failed a case its baseline does not list (or the baseline is
// stale).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentbash/agentbash/conformance"
	"github.com/agentbash/agentbash/conformance/cases"
	"github.com/agentbash/agentbash/conformance/model"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// defaultCache is where the packages are installed: $AGENTBASH_HOSTS_CACHE, or the user's cache directory.
func defaultCache() string {
	if d := os.Getenv("AGENTBASH_HOSTS_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "agentbash", "hosts")
	}
	return filepath.Join(os.TempDir(), "agentbash-hosts")
}

// row is one host's line of the table.
type row struct {
	h       Host
	status  string // ran, skipped (npm), no spec
	note    string
	report  *conformance.Report
	command string
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hosts", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "conformance/hosts/hosts.yaml", "the hosts `FILE`")
	cache := fs.String("cache", defaultCache(), "the `DIR` the npm packages are installed in (one folder per host)")
	only := fs.String("host", "", "check only the host of this `NAME`")
	runRE := fs.String("run", "", "run only the cases whose name matches `REGEXP`")
	record := fs.String("record", "", "record each host's requests and tool calls under `DIR`/NAME")
	npm := fs.String("npm", "npm", "the npm `COMMAND`")
	verbose := fs.Bool("v", false, "print a line per case as it is judged")
	retries := fs.Int("retries", 1, "run a case that failed unexpectedly up to `N` more times: one that then passes is reported as flaky, with its first failure, and does not fail the run")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	c, err := LoadConfig(*config)
	if err != nil {
		fmt.Fprintln(stderr, "hosts:", err)
		return 2
	}
	var keep *regexp.Regexp
	if *runRE != "" {
		if keep, err = regexp.Compile(*runRE); err != nil {
			fmt.Fprintln(stderr, "hosts: -run:", err)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	var rows []row
	for _, h := range c.Hosts {
		if *only != "" && h.Name != *only {
			continue
		}
		r := row{h: h}
		switch {
		case h.Spec == "":
			r.status, r.note = "no spec", "no spec yet: not installed, not run"
		default:
			bin, err := install(ctx, *npm, *cache, h, c.scriptPath(h), stderr)
			if err != nil {
				r.status, r.note = "skipped", "npm could not install "+h.NPM+": "+err.Error()
				fmt.Fprintf(stderr, "hosts: %s: skipped: %s\n", h.Name, r.note)
				break
			}
			r.status = "ran"
			rec := ""
			if *record != "" {
				rec = filepath.Join(*record, h.Name)
			}
			r.command = c.command(h, bin)
			fmt.Fprintf(stderr, "hosts: %s: %s\n", h.Name, r.command)
			r.report, err = c.check(ctx, h, bin, keep, rec, *verbose, stderr)
			for try := 1; err == nil && try <= *retries && ctx.Err() == nil; try++ {
				again, n := failedCases(r.report)
				if n == 0 {
					break
				}
				if rec != "" {
					rec = filepath.Join(*record, h.Name, fmt.Sprintf("retry%d", try))
				}
				fmt.Fprintf(stderr, "hosts: %s: running %d failed %s again\n", h.Name, n, plural(n, "case", "cases"))
				var rerun *conformance.Report
				if rerun, err = c.check(ctx, h, bin, again, rec, *verbose, stderr); err == nil {
					mergeRetry(r.report, rerun)
				}
			}
			if err != nil {
				r.status, r.note = "error", err.Error()
			}
		}
		rows = append(rows, r)
	}
	ok := printTable(stdout, c, rows)
	fmt.Fprintf(stdout, "hosts: done in %s\n", time.Since(start).Round(100*time.Millisecond))
	for _, line := range verdict(rows) {
		fmt.Fprintln(stdout, line)
	}
	if ctx.Err() != nil {
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}

// install installs a host's package at its pinned version under cache/NAME, unless it is there, and
// returns its command's path. A host that is a script (a Node program over the package) is copied into
// the install directory, where its imports find the package, and needs node.
func install(ctx context.Context, npm, cache string, h Host, script string, log io.Writer) (string, error) {
	dir := filepath.Join(cache, h.Name)
	bin := binPath(dir, h.Bin)
	if script != "" {
		if _, err := exec.LookPath("node"); err != nil {
			return "", fmt.Errorf("node is not installed, and the host is a Node script (%v)", err)
		}
		bin = filepath.Join(dir, filepath.Base(script))
	}
	if installedVersion(dir, h.Package()) == h.Version() {
		if script != "" {
			return bin, copyScript(script, bin)
		}
		if _, err := os.Stat(bin); err == nil {
			return bin, nil
		}
	}
	if _, err := exec.LookPath(npm); err != nil {
		return "", fmt.Errorf("%s is not installed (%v)", npm, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	fmt.Fprintf(log, "hosts: %s: npm install %s into %s\n", h.Name, h.NPM, dir)
	ictx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ictx, npm, "install", "--prefix", dir, "--ignore-scripts", "--no-audit", "--no-fund",
		"--no-save", "--loglevel=error", h.NPM)
	tail := model.NewTail(2048)
	cmd.Stdout, cmd.Stderr = tail, tail
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, lastLines(tail.String(), 5))
	}
	if v := installedVersion(dir, h.Package()); v != h.Version() {
		return "", fmt.Errorf("installed version %q, not %s", v, h.Version())
	}
	if script != "" {
		return bin, copyScript(script, bin)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("the package has no command %s: %v", h.Bin, err)
	}
	return bin, nil
}

// copyScript copies a host's script to its place in the install directory (each run: the script is the
// repository's, the copy only where Node resolves its imports).
func copyScript(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// scriptPath is a host's script, "" for a host that is its package's command.
func (c *Config) scriptPath(h Host) string {
	if h.Script == "" {
		return ""
	}
	return c.path(h.Script)
}

// binPath is a host's command under an install directory: a name in node_modules/.bin, or a path under
// node_modules with {platform} (Node's platform-arch: linux-x64, darwin-arm64) replaced, for a package whose
// command is a stub its install script would replace by the native binary of a per-platform package.
func binPath(dir, bin string) string {
	if !strings.Contains(bin, "/") {
		return filepath.Join(dir, "node_modules", ".bin", bin)
	}
	arch := map[string]string{"amd64": "x64", "386": "ia32"}[goruntime.GOARCH]
	if arch == "" {
		arch = goruntime.GOARCH
	}
	bin = strings.ReplaceAll(bin, "{platform}", goruntime.GOOS+"-"+arch)
	return filepath.Join(dir, "node_modules", filepath.FromSlash(bin))
}

// installedVersion is the version of the package installed under dir ("" if none).
func installedVersion(dir, pkg string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json"))
	if err != nil {
		return ""
	}
	m := regexp.MustCompile(`"version"\s*:\s*"([^"]+)"`).FindSubmatch(b)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// argv is a host's command line with {bin} replaced.
func argv(h Host, bin string) []string {
	out := make([]string, len(h.Argv))
	for i, a := range h.Argv {
		out[i] = strings.ReplaceAll(a, "{bin}", bin)
	}
	return out
}

// command is the `agentbash conformance` command line that runs the same check.
func (c *Config) command(h Host, bin string) string {
	parts := []string{"agentbash", "conformance", h.Spec, "-model", h.API}
	for p, tmpl := range h.Files {
		parts = append(parts, "-host-file", p+"="+c.path(tmpl))
	}
	for from, to := range h.Tools {
		parts = append(parts, "-tool", from+"="+to)
	}
	if h.Skip != "" {
		parts = append(parts, "-skip", h.Skip)
	}
	if h.Baseline != "" {
		parts = append(parts, "-baseline", c.path(h.Baseline))
	}
	if h.PerCase {
		parts = append(parts, "-host-per-case")
	}
	if h.Trusted {
		parts = append(parts, "-trusted")
	}
	parts = append(parts, "--")
	parts = append(parts, argv(h, bin)...)
	for i, p := range parts {
		if strings.ContainsAny(p, " '\"$*?()[]{}|&;<>") {
			parts[i] = "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}

// check runs the suite against a host.
func (c *Config) check(ctx context.Context, h Host, bin string, keep *regexp.Regexp, record string, verbose bool, log io.Writer) (*conformance.Report, error) {
	v, err := c.Variant(h)
	if err != nil {
		return nil, err
	}
	files, err := c.Files(h)
	if err != nil {
		return nil, err
	}
	t := conformance.Model(model.API(h.API), argv(h, bin)...)
	t.Files, t.PerCase, t.Record = files, h.PerCase, record
	for _, tool := range v.Tools {
		name := tool.Name
		if to, ok := h.Tools[name]; ok {
			name = to
		}
		t.Tools = append(t.Tools, name)
	}
	opts := []conformance.Option{}
	if len(h.Tools) > 0 {
		opts = append(opts, conformance.ToolNames(h.Tools))
	}
	if h.Skip != "" {
		re := regexp.MustCompile(h.Skip)
		opts = append(opts, conformance.Exclude(func(c conformance.Case) bool { return re.MatchString(c.Name) }))
	}
	if keep != nil {
		opts = append(opts, conformance.Filter(func(c conformance.Case) bool { return keep.MatchString(c.Name) }))
	}
	if h.TimeScale > 0 {
		opts = append(opts, conformance.TimeScale(h.TimeScale))
	}
	if h.Trusted {
		opts = append(opts, conformance.Trusted())
	}
	if h.Baseline != "" {
		b, err := conformance.LoadBaseline(c.path(h.Baseline))
		if err != nil {
			return nil, err
		}
		opts = append(opts, conformance.WithBaseline(b))
	}
	if verbose {
		opts = append(opts, conformance.OnResult(func(r conformance.Result) {
			fmt.Fprintf(log, "%-5s %s %s (%s)\n", strings.ToUpper(string(r.Status)), h.Name, r.Case, time.Duration(r.ElapsedMS)*time.Millisecond)
		}))
	}
	return conformance.Check(ctx, v, t, opts...)
}

// printTable prints the table and each failure's first report lines; it reports whether every host that
// ran passed (its baseline's expected failures aside).
func printTable(w io.Writer, c *Config, rows []row) bool {
	ok := true
	fmt.Fprintf(w, "hosts: the shell tools of agent CLIs against their specs, the suite playing the model (versions pinned %s)\n", c.Pinned)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "host\tpackage\tspec\tapi\tcases\tpass\tfail\txfail\tskip\ttime\tstatus")
	for _, r := range rows {
		if r.report == nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t%s\n", r.h.Name, r.h.NPM, dash(r.h.Spec), r.h.API, r.note)
			if r.status == "error" {
				ok = false
			}
			continue
		}
		rep := r.report
		status := "ok"
		if !rep.OK() {
			status, ok = "FAILED", false
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", r.h.Name, r.h.NPM, r.h.Spec, r.h.API, len(rep.Results),
			rep.Passed, rep.Failed, rep.Expected, rep.Skipped, (time.Duration(rep.ElapsedMS) * time.Millisecond).Round(100*time.Millisecond), status)
	}
	tw.Flush()
	for _, r := range rows {
		if r.report == nil {
			continue
		}
		rep := r.report
		for _, res := range rep.Results {
			if res.Status != conformance.Fail {
				continue
			}
			fmt.Fprintf(w, "\n%s: FAIL %s\n%s\n", r.h.Name, res.Case, indent(firstLines(res.Text(), 12), "    "))
		}
		if r.h.Skip != "" {
			fmt.Fprintf(w, "%s: %d cases left out (%s): %s\n", r.h.Name, c.leftOut(r.h), r.h.Skip, strings.Join(strings.Fields(r.h.SkipReason), " "))
		}
		for _, res := range rep.Results {
			if res.Status == conformance.XFail {
				fmt.Fprintf(w, "%s: XFAIL %s: %s\n", r.h.Name, res.Case, firstLines(res.Reason, 1))
			}
		}
		for _, s := range rep.Stale {
			fmt.Fprintf(w, "\n%s: STALE baseline entry: %s\n", r.h.Name, s)
		}
		if rep.CloseError != "" {
			fmt.Fprintf(w, "\n%s: ending the host: %s\n", r.h.Name, rep.CloseError)
		}
		for _, wn := range rep.Warnings {
			fmt.Fprintf(w, "%s: warning: %s\n", r.h.Name, firstLines(wn, 3))
		}
		if !rep.OK() {
			fmt.Fprintf(w, "%s: reproduce with:\n    %s\n", r.h.Name, r.command)
		}
	}
	return ok
}

// failedCases matches exactly the cases of a report that failed unexpectedly (not a stale baseline entry,
// which passed), and counts them.
func failedCases(rep *conformance.Report) (*regexp.Regexp, int) {
	var names []string
	for _, res := range rep.Results {
		if res.Status == conformance.Fail && res.Baseline != conformance.Stale {
			names = append(names, regexp.QuoteMeta(res.Case))
		}
	}
	if len(names) == 0 {
		return nil, 0
	}
	return regexp.MustCompile("^(" + strings.Join(names, "|") + ")$"), len(names)
}

// mergeRetry takes into rep the cases of a second run that no longer fail: each replaces its failed
// result, and a warning says it is flaky, with what its first run got.
func mergeRetry(rep, rerun *conformance.Report) {
	again := map[string]conformance.Result{}
	for _, res := range rerun.Results {
		again[res.Case] = res
	}
	for i, res := range rep.Results {
		second, ok := again[res.Case]
		if res.Status != conformance.Fail || !ok || second.Status == conformance.Fail || second.Status == conformance.Skip {
			continue
		}
		rep.Failed--
		switch second.Status {
		case conformance.Pass:
			rep.Passed++
		case conformance.XFail:
			rep.Expected++
		}
		for j := range rep.Groups {
			if g := &rep.Groups[j]; g.Tool == res.Tool && g.Name == res.Group {
				g.Failed--
				if second.Status == conformance.Pass {
					g.Passed++
				} else {
					g.Expected++
				}
			}
		}
		first := res.Summary
		if first == "" {
			first = firstLine(res.Reason)
		}
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("FLAKY %s: failed, then %s on a second run; the first run: %s", res.Case, second.Status, first))
		rep.Results[i] = second
	}
	if rep.CloseError == "" && rerun.CloseError != "" {
		rep.CloseError = "on a second run: " + rerun.CloseError
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// verdict is the run's last lines: one per host that did not pass, naming why (its failed cases, stale
// baseline entries, what went wrong closing it, or the error that stopped it), so that the tail of a log
// says what failed however long the table and its notes were.
func verdict(rows []row) []string {
	var out []string
	for _, r := range rows {
		switch {
		case r.report == nil && r.status == "error":
			out = append(out, fmt.Sprintf("hosts: FAILED %s: %s", r.h.Name, firstLine(r.note)))
		case r.report != nil && !r.report.OK():
			why := r.report.Why()
			var failed []string
			for _, res := range r.report.Results {
				if res.Status == conformance.Fail {
					failed = append(failed, res.Case)
				}
			}
			line := fmt.Sprintf("hosts: FAILED %s: %s", r.h.Name, strings.Join(why, "; "))
			if len(failed) > 0 {
				line += " (" + strings.Join(failed, ", ") + ")"
			}
			out = append(out, line)
		}
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// leftOut counts the cases of a host's spec that its skip leaves out.
func (c *Config) leftOut(h Host) int {
	v, err := c.Variant(h)
	if err != nil || h.Skip == "" {
		return 0
	}
	re := regexp.MustCompile(h.Skip)
	n := 0
	for _, cs := range cases.Cases(v) {
		if re.MatchString(cs.Name) {
			n++
		}
	}
	return n
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d more lines)", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
