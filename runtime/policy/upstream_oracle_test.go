package policy

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"regexp"
	"testing"
)

// The upstream oracles: each source's deny check, written in the source's own language from the facts of
// its code (/work/shared/upstream-facts.md, the tunacode seed), with the patterns as the source writes
// them, not read from our YAML. TestUpstreamOracle runs every row of the upstream verdict tables through
// them (Python's re for toolregistry and tunacode, Node's RegExp for agentrail's dangerous patterns, Go's
// regexp for codegensandbox) and requires the table's verdict: the tables, and the boundary rows in them,
// are the engines' answers, so a change to a deny rule in a spec that the tables catch is a change from
// upstream. The programs only evaluate regular expressions on strings; no command is run.

// toolregistryOracle prints, for each command of the JSON list on its standard input, the ValueError
// message of toolregistry-hub's deny check, or null.
const toolregistryOracle = `import json, re, sys
PIPE = r"\b(?:curl|wget)\b.*\|\s*(?:bash|sh|zsh|dash)\b"
SPLIT = r"\s*(?:&&|\|\||;)\s*"
TABLE = [
    (r"\brm\s+.*-[a-zA-Z]*r[a-zA-Z]*f[a-zA-Z]*\s+[/~*]|\brm\s+.*-[a-zA-Z]*f[a-zA-Z]*r[a-zA-Z]*\s+[/~*]", "Recursive forced deletion of root, home, or wildcard paths"),
    (r"\bmkfs\b", "Filesystem formatting"),
    (r"\bdd\s+.*\bif=", "Raw disk image write"),
    (r">\s*/dev/sd[a-z]", "Device overwrite"),
    (r"\bsudo\b", "Privilege escalation via sudo"),
    (r"\bsu\s+-", "User switching via su"),
    (r"\bchmod\s+.*-[a-zA-Z]*R.*\b777\b.*\s+/", "Recursive world-writable permission on root"),
    (r"\bchown\s+.*-[a-zA-Z]*R", "Recursive ownership change"),
    (r"\beval\b", "Arbitrary code evaluation"),
    (r"\bexec\b", "Process replacement via exec"),
    (r":\(\)\s*\{.*:\|:.*\}", "Fork bomb"),
    (r"\bgit\s+push\s+.*--force\b", "Force push"),
    (r"\bgit\s+reset\s+--hard\b", "Hard reset"),
    (r"\bgit\s+clean\s+.*-[a-zA-Z]*f", "Force clean"),
    (r"\bshutdown\b", "System shutdown"),
    (r"\breboot\b", "System reboot"),
    (r"\bhalt\b", "System halt"),
    (r"\bkill\s+.*-9\s+1\b", "Killing init process"),
]
def check(cmd):
    if re.search(PIPE, cmd):
        return "Dangerous command blocked: pipe-to-shell execution detected"
    for seg in re.split(SPLIT, cmd):
        seg = seg.strip()
        if not seg:
            continue
        for pattern, reason in TABLE:
            if re.search(pattern, seg):
                return "Dangerous command blocked: " + reason
    return None
json.dump([check(c) for c in json.load(sys.stdin)], sys.stdout)
`

// tunacodeOracle prints, for each command, [policy, ModelRetry message] of tunacode's checks in their
// order (the destructive substrings are our policy tunacode_destructive, the rest tunacode_security), or
// null.
const tunacodeOracle = `import json, re, sys
DANGEROUS_PATTERNS = [r"rm\s+-rf\s+/", r"sudo\s+rm", r">\s*/dev/sd[a-z]", r"dd\s+.*of=/dev/", r"mkfs\.", r"fdisk", r":\(\)\{.*\}\;"]
STRICT = [r";\s*rm\s+", r"&&\s*rm\s+", r"` + "`[^`]*rm[^`]*`" + `", r"\$\([^)]*rm[^)]*\)", r":\(\)\{.*\}\;"]
def check(cmd):
    for s in ["rm -rf", "rm -r", "rm /", "dd if=", "mkfs", "fdisk"]:
        if s in cmd:
            return ["tunacode_destructive", "Command contains potentially destructive operations: " + cmd + "\nPlease confirm this is intentional and safe for your system."]
    sec = lambda m: ["tunacode_security", m]
    if not cmd.strip():
        return sec("Empty command not allowed")
    for p in DANGEROUS_PATTERNS:
        if re.search(p, cmd, re.IGNORECASE):
            return sec("Command contains dangerous pattern and is blocked: " + p)
    for p in STRICT:
        if re.search(p, cmd):
            return sec("Potentially unsafe pattern detected in command: " + p)
    if re.search(r"\$[^({a-zA-Z_]", cmd):
        return sec("Potentially unsafe character '$' in command")
    if ("{" in cmd or "}" in cmd) and not re.search(r"\$\{?\w+\}?", cmd):
        return sec("Potentially unsafe character '{' in command")
    for c in [";", "&", "` + "`" + `"]:
        if c in cmd:
            return sec("Potentially unsafe character '" + c + "' in command")
    return None
json.dump([check(c) for c in json.load(sys.stdin)], sys.stdout)
`

// agentrailOracle prints, for each command, agentrail's message when a dangerous pattern matches (the
// whole verdict when the host configures no permission policy), or null.
// agentrailOracle is shell-safety.ts's DANGEROUS_BASH_PATTERNS at eb5ebc18, the commit the spec cites.
const agentrailOracle = `const DANGEROUS = [/:\(\)\s*\{\s*:\|:&\s*\}\s*;/, /\brm\s+(-[a-z]*f[a-z]*\s+)*\/\s*($|\|)/i,
  /\brm\s+-rf\s+\/($|\s)/i, /\brm\s+-fr\s+\/($|\s)/i,
  /\bdd\s+.*of=\/dev\/(sd|hd|nvme|xvd|vd)/i, /\b(mkfs|mke2fs|mkswap)\b/i, />\s*\/dev\/(sd|hd|nvme|xvd|vd)/i,
  /\b(insmod|rmmod|modprobe)\b/i, /\bchmod\s+777\s+\//i];
const cmds = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cmds.map(c => DANGEROUS.some(r => r.test(c)) ? "Command matches a known-dangerous pattern" : null)));
`

// codegensandboxDeny is CodeGen-Sandbox's deny regex; the oracle is Go's regexp, which the source runs.
var codegensandboxDeny = regexp.MustCompile(`(?:^|[\s;&|(])\s*(sudo|su|shutdown|reboot|halt|poweroff|chroot|mount|umount|mkfs(?:\.\w+)?)(?:$|[\s;&|)])`)

func codegensandboxOracle(cmd string) string {
	m := codegensandboxDeny.FindStringSubmatch(cmd)
	if m == nil {
		return ""
	}
	q, _ := json.Marshal(m[1]) // Go's %q of a token of ASCII letters, digits, . and _
	return "command rejected: command uses denylisted token " + string(q)
}

// runOracle runs an oracle program (python3 -c or node -e) on the commands; it skips the test, naming the
// program, when it is not installed.
func runOracle(t *testing.T, prog, flag, src string, cmds []string, out any) {
	t.Helper()
	path, err := exec.LookPath(prog)
	if err != nil {
		t.Skipf("%s is not on PATH: the upstream %s oracle cannot run (install it to check the tables against the real engine)", prog, prog)
	}
	in, err := json.Marshal(cmds)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, flag, src)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", prog, err, stderr.String())
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("%s: %v in %q", prog, err, res)
	}
}

func TestUpstreamOracle(t *testing.T) {
	t.Run("toolregistry", func(t *testing.T) {
		var cmds []string
		for _, tc := range toolregistryTable {
			cmds = append(cmds, tc.cmd)
		}
		var got []*string
		runOracle(t, "python3", "-c", toolregistryOracle, cmds, &got)
		for i, tc := range toolregistryTable {
			if w := deref(got[i]); w != tc.want {
				t.Errorf("%q: the table says %q, Python's re says %q", tc.cmd, tc.want, w)
			}
		}
	})
	t.Run("tunacode", func(t *testing.T) {
		var cmds []string
		for _, tc := range tunacodeTable {
			cmds = append(cmds, tc.cmd)
		}
		var got [][]string
		runOracle(t, "python3", "-c", tunacodeOracle, cmds, &got)
		for i, tc := range tunacodeTable {
			want := []string{tc.policy, tc.want}
			if tc.want == "" {
				want = nil
			}
			if len(got[i]) != len(want) || (want != nil && (got[i][0] != want[0] || got[i][1] != want[1])) {
				t.Errorf("%q: the table says %q, Python's re says %q", tc.cmd, want, got[i])
			}
		}
	})
	t.Run("agentrail", func(t *testing.T) {
		var cmds []string
		var rows []int
		for i, tc := range agentrailTable {
			if tc.config == "none" { // no permission policy: the dangerous patterns alone decide
				cmds, rows = append(cmds, tc.cmd), append(rows, i)
			}
		}
		var got []*string
		runOracle(t, "node", "-e", agentrailOracle, cmds, &got)
		for k, i := range rows {
			tc := agentrailTable[i]
			want := tc.want
			if tc.decision == "allow" {
				want = ""
			}
			if w := deref(got[k]); w != want {
				t.Errorf("%q: the table says %s %q, Node's RegExp says %q", tc.cmd, tc.decision, want, w)
			}
		}
	})
	t.Run("codegensandbox", func(t *testing.T) {
		for _, tc := range codegensandboxTable {
			if w := codegensandboxOracle(tc.cmd); w != tc.want {
				t.Errorf("%q: the table says %q, Go's regexp says %q", tc.cmd, tc.want, w)
			}
		}
	})
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
