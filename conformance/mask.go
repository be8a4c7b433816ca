package conformance

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentbash/agentbash/conformance/cases"
	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// Placeholders that masked values become.
const (
	pidToken       = "<PID>"
	uuidToken      = "<UUID>"
	idToken        = "<ID>"
	timeToken      = "<TIME>"
	durationToken  = "<DURATION>"
	engineTmpToken = "<ENGINE_TMP>"
)

var (
	uuidRE = lazyRegexp(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	timeRE = lazyRegexp(`\b\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})`)
	// ls -l dates: "Nov 22 05:53", "Nov 22  2025".
	lsTimeRE = lazyRegexp(`\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d (?:\d\d:\d\d| \d{4})\b`)
	// The line of `ls -l` for the parent directory (..), after its time is masked: the workspace's parent is
	// not the case's, and differs between two workspaces (its owner, links, size, mode).
	lsParentRE = lazyRegexp(`(?m)^d[rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+\d+\s+<TIME>\s+\.\.$`)
	// The link-count column of an `ls -l` line: ls pads it to the widest count of the listing, which the
	// workspace's parent (..) may decide (12 links or 9).
	lsLinksRE = lazyRegexp(`(?m)^([bcdlps-][rwxsStT-]{9}[.+@]?) +(\d+) `)
	// "pid 123", "pid: 123", "pid=123", "(pid: 123)", "PID 123", "PGID: 123", "PIDs: 12, 13".
	pidRE = lazyRegexp(`(?i)\b(pids?|pgid)(\s*[:=]\s*|\s+)(\d+(?:, \d+)*)\b`)
	// A number of a list of pids.
	numberRE = lazyRegexp(`\d+`)
	// "shell_id: abc1", "shell id=abc1", "shellId: abc1": the id is a run of non-space with a digit.
	shellIDRE = lazyRegexp(`(?i)\b(shell[_ ]?id)(\s*[:=]\s*)([^\s,;"')\]}]+)`)
	// "session ID 1234", "process id 1234", "session_id: 7": a session's id is a number.
	sessionIDRE = lazyRegexp(`(?i)\b((?:session|process)[_ ]?id)(\s*[:=]\s*|\s+)(\d+)\b`)
	// "Chunk ID: 3fa2b1": a random chunk id.
	chunkIDRE = lazyRegexp(`(?i)\b(chunk[_ ]?id)(\s*[:=]\s*)([0-9A-Za-z-]+)`)
	// "id: bg_3f2b8c1e" on a line of its own: an id with a digit, which the text may name again (in a
	// file name).
	lineIDRE = lazyRegexp(`(?m)^(id)(:[ \t]*)(\S*\d\S*)$`)
	// An engine's temporary directory (runtime: os.MkdirTemp's agentbash-engine-*), which a result may
	// name (a spilled file's path): two engines have two.
	engineTmpRE = lazyRegexp(`/\S*?agentbash-engine-\d+`)
	// "Wall time: 0.2531 seconds", "Wall time: 0 seconds": a measured time, whole or not.
	wallTimeRE = lazyRegexp(`(?i)\b(wall[_ ]time)(\s*[:=]\s*)(\d+(?:\.\d+)?)`)
	// Fractional durations only ("0.53s", "12.5ms"): whole ones ("timed out after 1s") are contract text.
	durationRE = lazyRegexp(`\b\d+\.\d+\s?(?:ns|us|µs|ms|s|seconds)\b`)
	// Keys whose values cannot match between two runs.
	pidKeyRE      = lazyRegexp(`^(?i:pid)$|_(?i:pid)$|[a-z]Pid$`)
	idKeyRE       = lazyRegexp(`(?i)^(?:shell_?id|bash_?id|task_?id|process_?id|session_?id|chunk_?id)$`)
	durationKeyRE = lazyRegexp(`(?i)(?:duration|elapsed|took|runtime_ms|time_ms|started_at|ended_at|start_time|end_time|wall_?time)`)
)

// parentToken stands for the `ls -l` line of a workspace's parent directory.
const parentToken = "<PARENT_DIR_LINE>"

// Masker replaces what cannot match between two runs of the same case: the workspace path (as given and
// with symbolic links resolved) with "<WORKSPACE>", uuids with "<UUID>", pids after "pid" with "<PID>",
// shell ids after "shell_id", session ids after "session id" or "process id", chunk ids after "chunk id",
// and an id on a line "id: X" (wherever the text names it) with "<ID>", an engine's temporary directory
// with "<ENGINE_TMP>", RFC 3339 timestamps and ls -l dates with "<TIME>", fractional durations and the time
// after "wall time" with "<DURATION>", and the `ls -l` line of the parent directory (..) with
// "<PARENT_DIR_LINE>". In JSON, it also masks the values of keys named like pid, shell_id, session_id,
// chunk_id, duration and wall_time.
type Masker struct {
	paths    []string // longest first
	names    []string
	sessions []*regexp.Regexp
	rules    []maskRule
}

// maskRule is one of a spec's masks, compiled.
type maskRule struct {
	re      *regexp.Regexp
	replace string
}

// Masks also applies a spec's masks (spec.Variant.Masks), first, in their order: each match of a pattern
// becomes its replacement. A pattern that does not compile is skipped (spec.Load refuses it).
func (m *Masker) Masks(masks []spec.Mask) *Masker {
	for _, k := range masks {
		if re, err := regexp.Compile(k.Pattern); err == nil {
			m.rules = append(m.rules, maskRule{re, k.Replace})
		}
	}
	return m
}

// SessionIDs also masks these session ids (the ones a side's answers gave) where a text shows one after
// "process", "session", "pid", "id" or "#" ("Input executed in process 31158"), as "<SESSION_ID>": the
// reference numbers its sessions 1, 2, ..., a target by its own scheme (pids).
func (m *Masker) SessionIDs(ids ...string) *Masker {
	for _, id := range ids {
		if id == "" {
			continue
		}
		m.sessions = append(m.sessions, regexp.MustCompile(`(?i)(\b(?:process|session|pid|id)\b\s*[:#=]?\s*|#)`+regexp.QuoteMeta(id)+`\b`))
	}
	return m
}

// Name also masks a workspace's base name, as "<WORKSPACE_NAME>", where it stands alone (last of all).
// Give only a distinctive name: the suite's own workspaces have one.
func (m *Masker) Name(name string) *Masker {
	if name != "" {
		m.names = append(m.names, name)
	}
	return m
}

// NewMasker masks the given workspace paths.
func NewMasker(workspaces ...string) *Masker {
	m := &Masker{}
	seen := map[string]bool{}
	for _, ws := range workspaces {
		if ws == "" {
			continue
		}
		forms := []string{ws, filepath.Clean(ws)}
		if r, err := filepath.EvalSymlinks(ws); err == nil {
			forms = append(forms, r)
		}
		for _, f := range forms {
			if !seen[f] && f != "/" && f != "." {
				seen[f] = true
				m.paths = append(m.paths, f)
			}
		}
	}
	slices.SortFunc(m.paths, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return m
}

// Text masks a text.
func (m *Masker) Text(s string) string {
	for _, r := range m.rules {
		s = r.re.ReplaceAllString(s, r.replace)
	}
	for _, p := range m.paths {
		s = strings.ReplaceAll(s, p, cases.WorkspaceToken)
	}
	// Cheap tests first: a long output of plain text skips the expressions.
	dashes := strings.Count(s, "-")
	if dashes >= 4 {
		s = uuidRE.ReplaceAllString(s, uuidToken)
	}
	if dashes >= 2 && strings.Contains(s, ":") {
		s = timeRE.ReplaceAllString(s, timeToken)
	}
	if strings.Contains(s, ":") || strings.Contains(s, "  ") {
		s = lsTimeRE.ReplaceAllString(s, timeToken)
		if strings.Contains(s, timeToken+" ..") {
			s = lsParentRE.ReplaceAllString(s, parentToken)
		}
		if strings.Contains(s, timeToken) {
			s = lsLinksRE.ReplaceAllString(s, "$1 $2 ")
		}
	}
	for _, re := range m.sessions {
		s = re.ReplaceAllString(s, "${1}<SESSION_ID>")
	}
	if containsFold(s, "pid") || containsFold(s, "pgid") {
		s = pidRE.ReplaceAllStringFunc(s, func(x string) string {
			g := pidRE.FindStringSubmatch(x)
			return g[1] + g[2] + numberRE.ReplaceAllString(g[3], pidToken)
		})
	}
	if containsFold(s, "shell") {
		s = shellIDRE.ReplaceAllStringFunc(s, func(x string) string {
			g := shellIDRE.FindStringSubmatch(x)
			// An id we chose ("conformance-unknown") has no digit and stays.
			if g[3] == uuidToken || g[3] == pidToken || !strings.ContainsAny(g[3], "0123456789") {
				return x
			}
			return g[1] + g[2] + idToken
		})
	}
	if containsFold(s, "id") {
		s = sessionIDRE.ReplaceAllString(s, "${1}${2}"+idToken)
		s = chunkIDRE.ReplaceAllString(s, "${1}${2}"+idToken)
		var named []string
		s = lineIDRE.ReplaceAllStringFunc(s, func(x string) string {
			g := lineIDRE.FindStringSubmatch(x)
			if g[3] == uuidToken || g[3] == pidToken {
				return x
			}
			named = append(named, g[3])
			return g[1] + g[2] + idToken
		})
		for _, id := range named {
			s = strings.ReplaceAll(s, id, idToken) // where the text names it again
		}
	}
	if strings.Contains(s, "agentbash-engine-") {
		s = engineTmpRE.ReplaceAllString(s, engineTmpToken)
	}
	if containsFold(s, "time") {
		s = wallTimeRE.ReplaceAllString(s, "${1}${2}"+durationToken)
	}
	if hasDecimal(s) {
		s = durationRE.ReplaceAllString(s, durationToken)
	}
	// Last, and only as a word of its own: a name of digits (a temporary directory's "001") is not a
	// part of a number.
	for _, n := range m.names {
		s = replaceStandalone(s, n, cases.WorkspaceNameToken)
	}
	return s
}

// replaceStandalone replaces each occurrence of name in s that stands alone: not inside a longer word of
// letters, digits, '_' and '-' (a workspace "ws" is not masked in "aws-access-key").
func replaceStandalone(s, name, token string) string {
	var b strings.Builder
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			if b.Len() == 0 {
				return s
			}
			b.WriteString(s[i:])
			return b.String()
		}
		start, end := i+j, i+j+len(name)
		b.WriteString(s[i:start])
		if (start > 0 && isWordByte(s[start-1])) || (end < len(s) && isWordByte(s[end])) {
			b.WriteString(name)
		} else {
			b.WriteString(token)
		}
		i = end
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

// containsFold reports whether s contains the lower-case ASCII word in any case.
func containsFold(s, word string) bool {
	if strings.Contains(s, word) || strings.Contains(s, strings.ToUpper(word)) {
		return true
	}
	return strings.Contains(s, strings.ToUpper(word[:1])+word[1:]) || (len(s) < 4096 && strings.Contains(strings.ToLower(s), word))
}

// hasDecimal reports whether s has a digit, a point and a digit in a row.
func hasDecimal(s string) bool {
	for i := strings.IndexByte(s, '.'); i >= 0; {
		if i > 0 && i+1 < len(s) && isDigit(s[i-1]) && isDigit(s[i+1]) {
			return true
		}
		j := strings.IndexByte(s[i+1:], '.')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Value masks a decoded JSON value (from a decoder with UseNumber): strings as texts, and the values of
// keys that name pids, shell ids and durations.
func (m *Masker) Value(v any) any {
	switch x := v.(type) {
	case string:
		return m.Text(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = m.Value(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = m.keyed(k, e)
		}
		return out
	}
	return v
}

func (m *Masker) keyed(k string, v any) any {
	switch v.(type) {
	case map[string]any, []any, nil, bool:
		return m.Value(v)
	}
	switch {
	case pidKeyRE.MatchString(k):
		return pidToken
	case idKeyRE.MatchString(k):
		s, isString := v.(string)
		switch {
		case isString && uuidRE.MatchString(s):
			return uuidToken
		case isString && !strings.ContainsAny(s, "0123456789"):
			return m.Text(s) // an id we chose
		}
		return idToken
	case durationKeyRE.MatchString(k):
		if _, ok := v.(json.Number); ok {
			return durationToken
		}
	}
	return m.Value(v)
}

// Answer masks an answer: the result decoded as JSON and masked (or, when it does not decode, its text),
// and the error's message.
func (m *Masker) Answer(a target.Answer) Masked {
	out := Masked{}
	if a.Error != nil {
		out.Error = &runtime.ToolError{Type: a.Error.Type, Message: m.Text(a.Error.Message)}
	}
	if a.Result != nil {
		v, err := decodeJSON(a.Result)
		if err != nil {
			out.Invalid = m.Text(string(a.Result))
		} else {
			out.Result = m.Value(v)
			out.HasResult = true
		}
	}
	return out
}

// Masked is an answer after masking, ready to compare.
type Masked struct {
	Result    any
	HasResult bool
	// Invalid is a result that is not JSON, as text.
	Invalid string
	Error   *runtime.ToolError
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, &json.SyntaxError{Offset: d.InputOffset()}
	}
	return v, nil
}
