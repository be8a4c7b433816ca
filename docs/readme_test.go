package docs_test

// The commands of README.md (and of docs/spec.md, which has no module blocks) are tests, so that their
// sample outputs cannot drift. The conventions:
//
//   - A ```sh block is a list of commands, run by TestREADME in order, as one bash script per block, in a
//     scratch directory that links to every top-level entry of this checkout (so that `variants/...` and
//     `conformance/examples/...` resolve, while files a command writes stay out of the checkout). A line
//     ending in a backslash continues on the next. A comment at the end of a command line is the shell's.
//   - The `# ` lines right after a command are its output, stdout and stderr together in order: every
//     line must match exactly, a `# ...` line matches any number of lines (none included), and a line
//     ending in ` ...` matches a line that starts with what comes before. A command without output lines
//     may print anything. `#` alone is an empty line.
//   - A command must exit 0, unless its output ends with `# (exit status N)`: then it must exit N. go run
//     prints `exit status N` itself, and exits 1.
//   - A command ending in `&` runs in the background; the next command starts once the `-addr HOST:PORT`
//     the background command names accepts connections, and the block's processes are killed at its end.
//     The address 127.0.0.1:8931 is replaced by a free port of the machine.
//   - A command that runs python3, node or npm is skipped, with a message, when the machine has none; one
//     that runs an agent CLI npm installed (a path under node_modules/.bin), when it is not there; one that
//     runs the sandbox (-sandbox, sandbox check), when the machine cannot sandbox (runtime/sandbox.Check).
//   - `agentbash` is the command built from this checkout, on PATH, and so are `go run ./cmd/agentbash`,
//     `go build -o FILE ./cmd/agentbash` and `go install ./cmd/agentbash` (a shell function stands in for
//     them with that one binary, and prints what go run prints on a non-zero exit);
//     TestREADMEFirstLines runs the README's first command with the real go command.
//   - A ```sh module block runs, with the real go command, in a fresh Go module (the same for the whole
//     README; the dependencies come from this machine's module cache, which the module's own build has
//     filled), with $AGENTBASH set to this checkout. A code block whose info string names a file (```go internal/myshell/generate.go,
//     ```yaml spec internal/myshell/myshell.yaml) is written there before the blocks that follow run,
//     unless the path is a file of this checkout: then the block must be that file's content
//     (```json examples/mcp/.mcp.json). The module's blocks are skipped under -short.
//   - The few commands that must not run in a test are listed in notRun below, each with its reason; a
//     listed command that the README no longer has fails the test.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/dockerimage"
	"github.com/agentbash/agentbash/runtime/sandbox"
)

const readme = "../README.md"

// notRun are the README's commands that a test must not run, with the reason.
var notRun = map[string]string{
	"make test": "it runs this test, and every other one",
	"go install github.com/agentbash/agentbash/cmd/agentbash@latest": "it needs the network, and the module is not published yet",
	"git clone https://github.com/agentbash/agentbash":               "it needs the network: the test uses this checkout",
}

func init() {
	notRun["dockerd -H tcp://127.0.0.1:23750 --data-root /var/lib/docker-remote --exec-root /run/docker-remote --pidfile /run/docker-remote.pid &"] =
		"it starts a Docker Engine: .ci/docker starts that one for the tests (with its data root elsewhere)"
}

// shCommand is a command of a sh block and its expected output.
type shCommand struct {
	line   int    // of the command in README.md
	text   string // the command, continuation lines joined with newlines
	output []string
	hasOut bool
}

// parseSh splits a sh block into commands and their expected output.
func parseSh(t *testing.T, b block) []*shCommand {
	t.Helper()
	var out []*shCommand
	lines := strings.Split(strings.TrimSuffix(b.text, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.TrimSpace(l) == "":
			continue
		case l == "#" || strings.HasPrefix(l, "# "):
			if len(out) == 0 {
				t.Errorf("%s: output line %q before any command", b, l)
				continue
			}
			c := out[len(out)-1]
			c.hasOut = true
			c.output = append(c.output, strings.TrimPrefix(strings.TrimPrefix(l, "#"), " "))
			continue
		}
		c := &shCommand{line: b.line + 1 + i, text: l}
		for strings.HasSuffix(lines[i], "\\") && i+1 < len(lines) {
			i++
			c.text += "\n" + lines[i]
		}
		out = append(out, c)
	}
	return out
}

// key is a command without its trailing shell comment, as notRun lists it.
func (c *shCommand) key() string {
	s := c.text
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func (c *shCommand) background() bool { return strings.HasSuffix(c.key(), "&") }

// wantStatus is the exit status the output's last line asks for (0 by default).
func (c *shCommand) wantStatus() (int, []string) {
	if n := len(c.output); n > 0 {
		if m := regexp.MustCompile(`^\(exit status (\d+)\)$`).FindStringSubmatch(c.output[n-1]); m != nil {
			code, _ := strconv.Atoi(m[1])
			return code, c.output[:n-1]
		}
	}
	return 0, c.output
}

// matchOutput reports whether got matches the expected lines (see the conventions above).
func matchOutput(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	w := want[0]
	if w == "..." {
		for i := 0; i <= len(got); i++ {
			if matchOutput(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	if prefix, ok := strings.CutSuffix(w, " ..."); ok {
		if !strings.HasPrefix(got[0], prefix) {
			return false
		}
	} else if got[0] != w {
		return false
	}
	return matchOutput(want[1:], got[1:])
}

// readmeBlocks returns README.md's code blocks.
func readmeBlocks(t *testing.T) []block {
	t.Helper()
	blocks, _ := readBlocks(t, readme)
	return blocks
}

// fileBlock returns the path a code block names (```go PATH, ```yaml spec PATH, ```json PATH), or "".
func fileBlock(b block) string {
	w := b.words()
	switch {
	case len(w) == 2 && w[0] != "sh" && w[0] != "yaml" && strings.Contains(w[1], "."):
		return w[1]
	case len(w) == 3 && w[0] == "yaml" && w[1] == "spec":
		return w[2]
	}
	return ""
}

// agentbashFunctions stands in for `go run|build|install ./cmd/agentbash` with the binary built by the test.
const agentbashFunctions = `go() {
	case "$1 $2" in
	"run ./cmd/agentbash")
		shift 2
		"$AGENTBASH_BIN" "$@"; s=$?
		if [ $s -ne 0 ]; then echo "exit status $s" >&2; return 1; fi
		return 0;;
	"install ./cmd/agentbash")
		cp "$AGENTBASH_BIN" "$(command go env GOBIN)/agentbash"; return;;
	esac
	if [ "$1 $2" = "build -o" ] && [ "$4" = ./cmd/agentbash ] && [ $# -eq 4 ]; then
		cp "$AGENTBASH_BIN" "$3"; return
	fi
	command go "$@"
}
`

// TestREADME runs the commands of README.md and docs/spec.md and compares their output (see the conventions
// above).
func TestREADME(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	scratch := filepath.Join(tmp, "checkout")
	module := filepath.Join(tmp, "app")
	for _, d := range []string{bin, scratch, module} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Symlink(filepath.Join(repo, e.Name()), filepath.Join(scratch, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	// The binary the go function stands in with; `go install ./cmd/agentbash` (the README's) puts it on PATH.
	agentbash := filepath.Join(tmp, "agentbash")
	build := exec.Command("go", "build", "-o", agentbash, "./cmd/agentbash")
	build.Dir = repo
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the Docker executor's agent must be
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/agentbash: %v\n%s", err, out)
	}
	env := append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AGENTBASH_BIN="+agentbash,
		"AGENTBASH="+repo,
		"GOBIN="+bin,
		"GOWORK=off", "GOTOOLCHAIN=local",
		"GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"),
		"TMPDIR="+tmp,
	)
	port := freePort(t)

	seen := map[string]bool{}
	// README.md first: its install step puts agentbash on PATH for the commands of docs/spec.md.
	for _, doc := range []string{readme, specDoc} {
		blocks, _ := readBlocks(t, doc)
		for _, b := range blocks {
			w := b.words()
			if p := fileBlock(b); p != "" {
				if data, err := os.ReadFile(filepath.Join(repo, p)); err == nil {
					if string(data) != b.text {
						t.Errorf("%s: the block is not %s as it is in the repository", b, p)
					}
					continue
				}
				if doc != readme {
					t.Errorf("%s: %s is not a file of the repository", b, p)
					continue
				}
				if testing.Short() {
					continue
				}
				dst := filepath.Join(module, p)
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dst, []byte(b.text), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if len(w) == 0 || w[0] != "sh" {
				continue
			}
			inModule := len(w) == 2 && w[1] == "module" && doc == readme
			if len(w) > 1 && !inModule {
				t.Errorf("%s: a sh block is `sh` (or, in README.md, `sh module`), not %q", b, b.info)
				continue
			}
			var run []*shCommand
			// The commands of a block that runs containers go together (the image the first ones build,
			// the files the others list): what one of them misses skips the block.
			docker, cmds := "", parseSh(t, b)
			for _, c := range cmds {
				if _, ok := notRun[c.key()]; !ok && docker == "" {
					docker = missingDocker(c.text)
				}
			}
			for _, c := range cmds {
				if _, ok := notRun[c.key()]; ok {
					seen[c.key()] = true
					continue
				}
				if docker != "" {
					t.Logf("%s: %s: not running %s", b, docker, c.key())
					continue
				}
				if tool := missingTool(c.text); tool != "" {
					t.Logf("%s: %s is not installed: not running %s", b, tool, c.key())
					continue
				}
				if why := missingSandbox(c.text); why != "" {
					t.Logf("%s: this machine cannot sandbox (%s): not running %s", b, why, c.key())
					continue
				}
				c.text = strings.ReplaceAll(c.text, "127.0.0.1:8931", port)
				run = append(run, c)
			}
			if len(run) == 0 || inModule && testing.Short() {
				continue
			}
			dir := scratch
			if inModule {
				dir = module
			}
			runBlock(t, b, run, dir, env, !inModule)
		}
	}
	for c, why := range notRun {
		if !seen[c] {
			t.Errorf("notRun lists %q (%s), which the README no longer has", c, why)
		}
	}
	if testing.Short() {
		t.Log("-short: the README's module blocks (go mod tidy, go generate, go build in a fresh module) were not run")
	}
}

// runBlock runs a block's commands as one bash script and checks each command's status and output.
func runBlock(t *testing.T, b block, cmds []*shCommand, dir string, env []string, stand bool) {
	t.Helper()
	marker := fmt.Sprintf("@@readme-%d@@", time.Now().UnixNano())
	var script strings.Builder
	if stand {
		script.WriteString(agentbashFunctions)
	}
	for i, c := range cmds {
		fmt.Fprintf(&script, "printf '\\n%s start %d\\n'\n%s\n", marker, i, c.text)
		if c.background() {
			script.WriteString(waitForAddr(c.text))
			fmt.Fprintf(&script, "printf '\\n%s end %d 0\\n'\n", marker, i)
			continue
		}
		fmt.Fprintf(&script, "printf '\\n%s end %d %%d\\n' $?\n", marker, i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Background commands may hold the output: once the script is done, its whole group goes.
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		err = <-done
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	if err != nil && ctx.Err() != nil {
		t.Errorf("%s: the block did not finish in time:\n%s", b, out.String())
		return
	}
	outputs, statuses := splitOutputs(out.String(), marker, len(cmds))
	for i, c := range cmds {
		if c.background() {
			continue
		}
		where := fmt.Sprintf("%s:%d: %s", filepath.Base(b.file), c.line, c.key())
		status, want := c.wantStatus()
		if statuses[i] != status {
			t.Errorf("%s: exit status %d, want %d; output:\n%s", where, statuses[i], status, strings.Join(outputs[i], "\n"))
			continue
		}
		if c.hasOut && !matchOutput(want, outputs[i]) {
			t.Errorf("%s: the output is\n%s\n%s says\n%s", where, indent(outputs[i]), filepath.Base(b.file), indent(want))
		}
	}
}

// splitOutputs cuts the script's output at the markers into each command's lines and exit status (-1 when
// the command never ended).
func splitOutputs(all, marker string, n int) ([][]string, []int) {
	outputs := make([][]string, n)
	statuses := make([]int, n)
	for i := range statuses {
		statuses[i] = -1
	}
	cur := -1
	var buf []string
	for _, l := range strings.Split(all, "\n") {
		if rest, ok := strings.CutPrefix(l, marker+" "); ok {
			f := strings.Fields(rest)
			i, _ := strconv.Atoi(f[1])
			if f[0] == "start" {
				cur, buf = i, nil
				continue
			}
			// The marker's own leading newline ended the command's last line (or added an empty one).
			if len(buf) > 0 && buf[len(buf)-1] == "" {
				buf = buf[:len(buf)-1]
			}
			if i < n {
				outputs[i] = buf
				statuses[i], _ = strconv.Atoi(f[2])
			}
			cur, buf = -1, nil
			continue
		}
		if cur >= 0 {
			buf = append(buf, l)
		}
	}
	return outputs, statuses
}

// waitForAddr is a bounded wait, in bash, for the -addr HOST:PORT a background command listens on.
func waitForAddr(cmd string) string {
	m := regexp.MustCompile(`-addr (\S+):(\d+)`).FindStringSubmatch(cmd)
	if m == nil {
		return ""
	}
	return fmt.Sprintf("for i in $(seq 200); do (exec 3<>/dev/tcp/%s/%s) 2>/dev/null && break; sleep 0.05; done\n", m[1], m[2])
}

// freePort returns a loopback address no one listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// missingSandbox says what this machine lacks when the command runs agentbash's sandbox (-sandbox, sandbox
// check) and the machine cannot run workspace-write with and without the network; "" otherwise.
func missingSandbox(cmd string) string {
	if !regexp.MustCompile(`(^|\s)(-sandbox\s|sandbox check)`).MatchString(cmd) {
		return ""
	}
	for _, c := range []sandbox.Config{{Mode: sandbox.WorkspaceWrite}, {Mode: sandbox.WorkspaceWrite, Network: true}} {
		if why := sandbox.Unavailable(c); why != "" {
			return c.String() + ": " + why
		}
	}
	return ""
}

// missingDocker says what is missing when the command runs containers (docker, -executor docker, the
// image's root filesystem) and this machine cannot: no Docker Engine answering at the address the command
// names ($DOCKER_HOST or the default socket, or tcp://127.0.0.1:23750, which .ci/docker starts), or no
// apt-get and dpkg-deb to build the image from Debian packages, or $AGENTBASH_DOCKER off; "" otherwise.
func missingDocker(cmd string) string {
	if !regexp.MustCompile(`(^|[\s|$(])(docker\s|apt-get download|dpkg-deb|rootfs)|-executor docker`).MatchString(cmd) {
		return ""
	}
	if why := dockerimage.Off(); why != "" {
		return why
	}
	for _, tool := range []string{"docker", "apt-get", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool + " is not installed (bash .ci/docker start installs docker.io)"
		}
	}
	// The local engine always (the remote recipe uses the image the first block builds), and the one on
	// TCP when the command names it.
	hosts := []string{""}
	if strings.Contains(cmd, "tcp://127.0.0.1:23750") {
		hosts = append(hosts, "tcp://127.0.0.1:23750")
	}
	for _, host := range hosts {
		info := exec.Command("docker", "info")
		if host != "" {
			info.Env = append(os.Environ(), "DOCKER_HOST="+host)
		}
		if err := info.Run(); err != nil {
			if host == "" {
				host = "$DOCKER_HOST, or the local socket"
			}
			return "no Docker Engine answers at " + host + " (bash .ci/docker start starts it)"
		}
	}
	return ""
}

// missingTool returns python3, node or npm when the command runs one that the machine lacks, or the path of
// an agent CLI that npm installs (under node_modules/.bin) when it is not there (npm could not install it).
func missingTool(cmd string) string {
	for _, tool := range []string{"python3", "node", "npm"} {
		if regexp.MustCompile(`(^|\s)` + tool + `\s`).MatchString(cmd) {
			if _, err := exec.LookPath(tool); err != nil {
				return tool
			}
		}
	}
	for _, w := range strings.Fields(cmd) {
		if !strings.Contains(w, "/node_modules/.bin/") {
			continue
		}
		if rest, ok := strings.CutPrefix(w, "~/"); ok {
			home, _ := os.UserHomeDir()
			w = filepath.Join(home, rest)
		}
		if _, err := os.Stat(w); err != nil {
			return w
		}
	}
	return ""
}

func indent(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// TestREADMEFirstLines: the README opens with the two commands a fresh clone runs, the main job on an
// embedded spec and the tests; the first runs here with the real go command, in this checkout.
func TestREADMEFirstLines(t *testing.T) {
	blocks := readmeBlocks(t)
	if len(blocks) == 0 || blocks[0].info != "sh" {
		t.Fatal("README.md does not open with a sh block")
	}
	if blocks[0].line > 3 {
		t.Errorf("the first commands are on line %d: they belong at the top", blocks[0].line)
	}
	cmds := parseSh(t, blocks[0])
	if len(cmds) != 2 || !strings.HasPrefix(cmds[0].key(), "go run ./cmd/agentbash run ") || cmds[1].key() != "make test" {
		t.Fatalf("the first block is not `go run ./cmd/agentbash run ...` and `make test`:\n%s", blocks[0].text)
	}
	args := strings.Fields(strings.TrimPrefix(cmds[0].key(), "go "))
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmds[0].key(), err, out)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !matchOutput(cmds[0].output, got) {
		t.Errorf("%s printed\n%s\nthe README says\n%s", cmds[0].key(), out, indent(cmds[0].output))
	}
}

// The output matcher itself.
func TestMatchOutput(t *testing.T) {
	for _, tc := range []struct {
		want, got []string
		ok        bool
	}{
		{nil, nil, true},
		{nil, []string{"x"}, false},
		{[]string{"a"}, []string{"a"}, true},
		{[]string{"a"}, []string{"b"}, false},
		{[]string{"a"}, []string{"a", "b"}, false},
		{[]string{"..."}, nil, true},
		{[]string{"..."}, []string{"a", "b"}, true},
		{[]string{"...", "c"}, []string{"a", "b", "c"}, true},
		{[]string{"...", "c"}, []string{"a", "c", "b"}, false},
		{[]string{"a", "...", "c"}, []string{"a", "c"}, true},
		{[]string{"ab ..."}, []string{"abc"}, true},
		{[]string{"ab ..."}, []string{"xabc"}, false},
	} {
		if got := matchOutput(tc.want, tc.got); got != tc.ok {
			t.Errorf("matchOutput(%q, %q) = %v", tc.want, tc.got, got)
		}
	}
}
