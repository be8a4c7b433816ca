// Command thirdparty is `make thirdparty`: it checks third-party MCP servers published on npm against
// their specs (conformance/examples/thirdparty.yaml). For each server it installs the pinned package into
// a cache directory (npm install --prefix DIR --ignore-scripts), runs the conformance suite against it as
// `agentbash conformance SPEC -mcp -baseline BASELINE -- ARGV` does, with HOME, TMPDIR and the XDG
// directories in a directory of its own and, where `unshare -n` works, in a network namespace of its own
// (no network: a server's telemetry cannot leave the machine), and prints a table: cases, passed, failed,
// expected failures (its baseline), skipped, time, and processes left behind. After the runs it looks in
// /proc for any process a server started (their environment carries the suite's marker) or that runs in
// a directory of the run: there must be none. Exit status 1 when a server failed a case its baseline does
// not list, a baseline entry is stale, a package could not be installed, or a process was left behind.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentbash/agentbash/conformance"
	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate" // spec.Parse and Load check YAML specs against the JSON Schema
)

// Config is thirdparty.yaml.
type Config struct {
	Servers []Server `yaml:"servers"`
	dir     string
}

// Server is one third-party MCP server.
type Server struct {
	Name     string   `yaml:"name"`
	NPM      string   `yaml:"npm"`
	Bin      string   `yaml:"bin"`
	Argv     []string `yaml:"argv"`
	Env      []string `yaml:"env"`
	Spec     string   `yaml:"spec"`
	Baseline string   `yaml:"baseline"`
	Parallel int      `yaml:"parallel"`
	Deadline string   `yaml:"deadline"`
	Run      string   `yaml:"run"`
	// Slow servers are checked only when -server names them (make desktop-commander), not by make
	// thirdparty in CI.
	Slow bool `yaml:"slow"`
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func defaultCache() string {
	if d := os.Getenv("AGENTBASH_THIRDPARTY_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "agentbash", "thirdparty")
}

type row struct {
	s       Server
	version string
	r       *conformance.Report
	err     error
	left    []string
	took    time.Duration
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("thirdparty", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("config", "conformance/examples/thirdparty.yaml", "the servers' `FILE`")
	cache := fs.String("cache", defaultCache(), "the `DIR` the npm packages are installed in (one folder per server)")
	only := fs.String("server", "", "check only the server of this `NAME`")
	npm := fs.String("npm", "npm", "the npm `COMMAND`")
	verbose := fs.Bool("v", false, "print a line per case, and the servers' stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := load(*file)
	if err != nil {
		fmt.Fprintln(stderr, "thirdparty:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var rows []row
	for _, s := range cfg.Servers {
		if *only != "" && s.Name != *only || *only == "" && s.Slow {
			continue
		}
		r := row{s: s}
		start := time.Now()
		dir, version, err := install(ctx, *npm, *cache, s, stderr)
		r.version = version
		if err != nil {
			r.err = err
		} else {
			r.r, r.left, r.err = cfg.check(ctx, s, dir, *verbose, stderr)
		}
		r.took = time.Since(start)
		rows = append(rows, r)
	}
	// Nothing of any run may be left: every process a server started carries the marker.
	left := markedAnywhere(fmt.Sprintf("%s=%d-", target.ServerMarker, os.Getpid()))
	ok := printTable(stdout, rows)
	if len(left) > 0 {
		fmt.Fprintf(stdout, "left behind (in /proc, after every run): %s\n", strings.Join(left, ", "))
		ok = false
	} else {
		fmt.Fprintln(stdout, "left behind (in /proc, after every run): none")
	}
	if !ok {
		return 1
	}
	return 0
}

func load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.dir = filepath.Dir(path)
	return &c, nil
}

func (c *Config) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.dir, p)
}

// install installs a server's pinned package (once: an installed package of that version is kept) and
// returns its directory and the installed version.
func install(ctx context.Context, npm, cache string, s Server, log io.Writer) (string, string, error) {
	at := strings.LastIndex(s.NPM, "@")
	if at <= 0 {
		return "", "", fmt.Errorf("npm %q: want package@version", s.NPM)
	}
	pkg, want := s.NPM[:at], s.NPM[at+1:]
	dir := filepath.Join(cache, s.Name)
	if v := installedVersion(dir, pkg); v == want {
		return dir, v, nil
	}
	if _, err := exec.LookPath(npm); err != nil {
		return "", "", fmt.Errorf("%s is not installed (%v)", npm, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	fmt.Fprintf(log, "thirdparty: %s: npm install --ignore-scripts %s into %s\n", s.Name, s.NPM, dir)
	ictx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ictx, npm, "install", "--prefix", dir, "--ignore-scripts", "--no-audit", "--no-fund",
		"--no-save", "--loglevel=error", s.NPM)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("npm install %s: %v: %s", s.NPM, err, lastLines(out.String(), 5))
	}
	v := installedVersion(dir, pkg)
	if v != want {
		return "", "", fmt.Errorf("npm installed %s %q, not %s", pkg, v, want)
	}
	return dir, v, nil
}

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

// isolated is the command prefix that gives a server a network namespace of its own, when the machine
// lets this process make one.
func isolated() []string {
	if exec.Command("unshare", "-n", "true").Run() == nil {
		return []string{"unshare", "-n"}
	}
	return nil
}

// check runs the suite against a server; left lists the processes its runs left behind.
func (c *Config) check(ctx context.Context, s Server, dir string, verbose bool, log io.Writer) (*conformance.Report, []string, error) {
	v, err := spec.Load(c.path(s.Spec))
	if err != nil {
		return nil, nil, err
	}
	home, err := os.MkdirTemp("", "agentbash-thirdparty-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(home)
	tmp := filepath.Join(home, "tmp")
	for _, d := range []string{tmp, filepath.Join(home, ".config"), filepath.Join(home, ".cache"), filepath.Join(home, ".local", "share")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, nil, err
		}
	}
	env := append(os.Environ(), "HOME="+home, "TMPDIR="+tmp, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
	env = lastWins(append(env, s.Env...))
	bin := filepath.Join(dir, "node_modules", filepath.FromSlash(s.Bin))
	argv := isolated()
	for _, a := range s.Argv {
		argv = append(argv, strings.ReplaceAll(a, "{bin}", bin))
	}
	m := conformance.MCP(argv...)
	m.Env = env
	if verbose {
		m.Stderr = log
	}
	opts := []conformance.Option{conformance.Parallel(max(s.Parallel, 1))}
	if s.Parallel == 0 {
		opts[0] = conformance.Parallel(4)
	}
	if s.Deadline != "" {
		d, err := time.ParseDuration(s.Deadline)
		if err != nil {
			return nil, nil, fmt.Errorf("deadline: %w", err)
		}
		opts = append(opts, conformance.Deadline(d))
	}
	if s.Run != "" {
		re, err := regexp.Compile(s.Run)
		if err != nil {
			return nil, nil, fmt.Errorf("run: %w", err)
		}
		opts = append(opts, conformance.Filter(func(c conformance.Case) bool { return re.MatchString(c.Name) }))
	}
	if s.Baseline != "" {
		b, err := conformance.LoadBaseline(c.path(s.Baseline))
		if err != nil {
			return nil, nil, err
		}
		opts = append(opts, conformance.WithBaseline(b))
	}
	if verbose {
		opts = append(opts, conformance.OnResult(func(r conformance.Result) {
			fmt.Fprintf(log, "%-5s %s: %s (%s)\n", strings.ToUpper(string(r.Status)), s.Name, r.Case, time.Duration(r.ElapsedMS)*time.Millisecond)
		}))
	}
	fmt.Fprintf(log, "thirdparty: %s: %s\n", s.Name, c.command(s, argv))
	r, err := conformance.Check(ctx, v, m, opts...)
	left := markedAnywhere(fmt.Sprintf("%s=%d-", target.ServerMarker, os.Getpid()))
	left = append(left, runningIn(home)...)
	return r, left, err
}

// command is the `agentbash conformance` command line that runs the same check.
func (c *Config) command(s Server, argv []string) string {
	parts := []string{"agentbash", "conformance", c.path(s.Spec), "-mcp"}
	if s.Parallel > 1 {
		parts = append(parts, "-parallel", strconv.Itoa(s.Parallel))
	}
	if s.Deadline != "" {
		parts = append(parts, "-deadline", s.Deadline)
	}
	if s.Baseline != "" {
		parts = append(parts, "-baseline", c.path(s.Baseline))
	}
	parts = append(append(parts, "--"), argv...)
	return strings.Join(parts, " ")
}

// printTable prints a row per server and, under it, each unexpected failure's first lines; it reports
// whether every server passed.
func printTable(w io.Writer, rows []row) bool {
	ok := true
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tVERSION\tCASES\tPASSED\tFAILED\tEXPECTED\tSKIPPED\tTIME\tLEFT BEHIND\tRESULT")
	for _, r := range rows {
		if r.err != nil || r.r == nil {
			ok = false
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t-\t%s\t-\terror\n", r.s.Name, dash(r.version), r.took.Round(time.Second))
			continue
		}
		verdict := "ok"
		if !r.r.OK() || len(r.left) > 0 {
			verdict, ok = "FAIL", false
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%s\n", r.s.Name, r.version, len(r.r.Results), r.r.Passed, r.r.Failed,
			r.r.Expected, r.r.Skipped, r.took.Round(time.Second), len(r.left), verdict)
	}
	tw.Flush()
	for _, r := range rows {
		switch {
		case r.err != nil:
			fmt.Fprintf(w, "%s: %v\n", r.s.Name, r.err)
		case r.r != nil:
			for _, res := range r.r.Results {
				if res.Status == conformance.Fail {
					fmt.Fprintf(w, "%s: FAIL %s: %s\n", r.s.Name, res.Case, res.Summary)
				}
			}
			for _, why := range r.r.Why() {
				fmt.Fprintf(w, "%s: %s\n", r.s.Name, why)
			}
			for _, p := range r.left {
				fmt.Fprintf(w, "%s: left behind: %s\n", r.s.Name, p)
			}
		}
	}
	return ok
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// lastWins keeps the last entry of each variable of env (NAME=VALUE): a program's getenv may read the
// first of two (glibc does), so a value set over the inherited environment (HOME, SHELL) must replace it.
func lastWins(env []string) []string {
	last := map[string]int{}
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		last[name] = i
	}
	var out []string
	for i, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); last[name] == i {
			out = append(out, kv)
		}
	}
	return out
}
