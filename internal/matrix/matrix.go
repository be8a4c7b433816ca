// Package matrix sets variants side by side, to choose among them: the facts a host and its model meet
// (shell, timeout, output limits and truncation, decoding, policies, background processes, errors, result,
// host frameworks), read from each spec. `agentbash matrix` prints it; the README embeds the markdown form.
package matrix

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/spec"
)

// Column is one variant's facts, each a short text.
type Column struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Tools      string `json:"tools"`
	Shell      string `json:"shell"`
	Timeout    string `json:"timeout"`
	OnExpiry   string `json:"on_expiry"`
	Capture    string `json:"capture"`
	Limit      string `json:"limit"`
	Truncation string `json:"truncation"`
	Marker     string `json:"marker"`
	Decoding   string `json:"decoding"`
	Policies   string `json:"policies"`
	Redaction  string `json:"redaction"`
	Background string `json:"background"`
	Sessions   string `json:"sessions"`
	Sandbox    string `json:"sandbox"`
	Errors     string `json:"errors"`
	Result     string `json:"result"`
	Hosts      string `json:"hosts"`
}

// rows names the facts in the order the markdown shows them.
var rows = []struct {
	name string
	get  func(*Column) string
}{
	{"tools", func(c *Column) string { return c.Tools }},
	{"shell", func(c *Column) string { return c.Shell }},
	{"timeout (unit, default, range)", func(c *Column) string { return c.Timeout }},
	{"on timeout", func(c *Column) string { return c.OnExpiry }},
	{"output capture", func(c *Column) string { return c.Capture }},
	{"output limit", func(c *Column) string { return c.Limit }},
	{"truncation kept", func(c *Column) string { return c.Truncation }},
	{"truncation marker", func(c *Column) string { return c.Marker }},
	{"decoding", func(c *Column) string { return c.Decoding }},
	{"policy engines", func(c *Column) string { return c.Policies }},
	{"secrets redacted", func(c *Column) string { return c.Redaction }},
	{"background processes", func(c *Column) string { return c.Background }},
	{"interactive sessions", func(c *Column) string { return c.Sessions }},
	{"sandbox", func(c *Column) string { return c.Sandbox }},
	{"error kinds", func(c *Column) string { return c.Errors }},
	{"result", func(c *Column) string { return c.Result }},
	{"host frameworks", func(c *Column) string { return c.Hosts }},
}

// Of reads a variant's facts.
func Of(v *spec.Variant) Column {
	c := Column{ID: v.ID, Title: v.Title, Hosts: dash(strings.Join(v.Hosts, ", "))}
	var names []string
	for _, t := range v.Tools {
		names = append(names, t.Name)
	}
	c.Tools = strings.Join(names, ", ")
	c.Shell = strings.Join(v.Shell.Argv, " ")
	if v.Shell.User != nil {
		c.Shell = userShell(v.Shell)
	}
	if v.Shell.Embedded {
		c.Shell = "embedded (mvdan.cc/sh)"
	}
	t := primary(v)
	c.Timeout, c.OnExpiry = "none", "-"
	if tm := t.Timeout; tm != nil {
		c.Timeout = fmt.Sprintf("%s, %s", tm.Unit, num(tm.Default))
		rule := tm.OutOfRange // the checks require it with min or max
		switch {
		case tm.Min != nil && tm.Max != nil:
			c.Timeout += fmt.Sprintf(", %s–%s (%s)", num(*tm.Min), num(*tm.Max), rule)
		case tm.Min != nil:
			c.Timeout += fmt.Sprintf(", ≥ %s (%s)", num(*tm.Min), rule)
		case tm.Max != nil:
			c.Timeout += fmt.Sprintf(", ≤ %s (%s)", num(*tm.Max), rule)
		}
		switch tm.Expiry {
		case spec.ExpiryBackground:
			c.OnExpiry = "moves to the background"
		default:
			c.OnExpiry = "process group killed"
		}
	}
	c.Capture, c.Limit, c.Truncation, c.Marker, c.Decoding = "-", "none", "-", "-", "-"
	if o := t.Output; o != nil {
		c.Capture = "stdout and stderr apart"
		if o.Capture == spec.CaptureCombined {
			c.Capture = "combined"
		}
		c.Decoding = "UTF-8, " + string(o.Decode)
		if o.Newlines == spec.NewlinesUniversal {
			c.Decoding += ", universal newlines"
		}
		if o.Strip {
			c.Decoding += ", stripped"
		}
		if o.Sanitize != "" {
			c.Decoding += ", sanitized " + string(o.Sanitize)
		}
		if tr := o.Truncate; tr != nil {
			scope := "per stream"
			if o.Capture == spec.CaptureCombined {
				scope = "combined"
			}
			c.Limit = fmt.Sprintf("%d %s %s", tr.Limit, tr.Unit, scope)
			c.Truncation, c.Marker = kept(tr), marker(tr)
		}
	}
	for _, name := range t.Outcomes() {
		if tr := t.Results.Cases[name].Truncate; tr != nil {
			c.Limit = fmt.Sprintf("%d %s of the whole result", tr.Limit, tr.Unit)
			c.Truncation, c.Marker = kept(tr), marker(tr)
		}
	}
	if sp := t.Output.Spill; sp != nil {
		c.Limit, c.Truncation = spillLimit(sp)+", the whole output saved to a file", spillKept(&sp.Preview)
		c.Marker = "-"
		if sp.Preview.Marker != "" {
			c.Marker = strconv.Quote(sp.Preview.Marker)
		}
	}
	if sp := t.Results.Spill; sp != nil {
		limit := fmt.Sprintf("over %d %s of the whole result, saved to a file", sp.Over.Limit, sp.Over.Unit)
		if t.Output.Truncate != nil {
			limit = c.Limit + "; " + limit
		}
		c.Limit = limit
		c.Truncation = fmt.Sprintf("head %d and tail %d %s of a spilled result", sp.Head, sp.Tail, sp.Over.Unit)
		c.Marker = "-"
		if sp.Marker != "" {
			c.Marker = strconv.Quote(sp.Marker)
		}
	}
	if y := yield(t); y != "" {
		c.Timeout, c.OnExpiry = "none; a yield window: "+y, "the command runs on as a session"
	}
	if b := t.Output.Budget; b != nil {
		c.Limit = budget(t, b)
		c.Truncation = "head and tail, half the budget each"
		c.Marker = strconv.Quote(b.Marker)
	}
	c.Policies = policies(v)
	c.Background = background(v)
	c.Sessions = sessions(v)
	c.Sandbox = sandboxed(v)
	c.Errors = errorKinds(v)
	c.Redaction = redaction(v)
	c.Result = result(t)
	apiShapes(&c, t)
	return c
}

// primary is the first tool that runs commands (the first tool if none does).
func primary(v *spec.Variant) *spec.Tool {
	for i := range v.Tools {
		if k := v.Tools[i].Kind; k == spec.KindExec || k == spec.KindSessionStart || k.IsAPIShape() {
			return &v.Tools[i]
		}
	}
	return &v.Tools[0]
}

// yield describes a tool's yield window (unit, default, range), or "".
func yield(t *spec.Tool) string {
	if t.Session == nil || t.Session.Yield == nil {
		return ""
	}
	y := t.Session.Yield
	s := fmt.Sprintf("%s, %s", y.Unit, num(y.Default))
	switch {
	case y.Min != nil && y.Max != nil:
		s += fmt.Sprintf(", %s–%s (clamp)", num(*y.Min), num(*y.Max))
	case y.Min != nil:
		s += fmt.Sprintf(", ≥ %s (clamp)", num(*y.Min))
	case y.Max != nil:
		s += fmt.Sprintf(", ≤ %s (clamp)", num(*y.Max))
	}
	return s
}

// budget describes an output budget.
func budget(t *spec.Tool, b *spec.Budget) string {
	s := fmt.Sprintf("%d %s", b.Default, b.Unit)
	if b.Unit == spec.BudgetTokens {
		s += fmt.Sprintf(" (%d bytes each)", b.BytesPerToken)
	}
	s += " combined"
	if p := t.Param(spec.RoleBudget); p != nil {
		s += ", the model's " + p.Name
		if b.Max != nil {
			s += fmt.Sprintf(" up to %d", *b.Max)
		}
	}
	return s
}

// sessions says how a variant's sessions start, are talked to and are bounded.
func sessions(v *spec.Variant) string {
	sv := v.Sessions
	if sv == nil {
		return "no"
	}
	var parts []string
	for i := range v.Tools {
		t := &v.Tools[i]
		switch t.Kind {
		case spec.KindSessionStart:
			s := t.Name + " starts them"
			switch {
			case t.Param(spec.RoleTTY) != nil:
				s += " (a PTY with " + t.Param(spec.RoleTTY).Name + ")"
			case t.Session.PTY:
				s += " (on a PTY)"
			}
			parts = append(parts, s)
		case spec.KindSessionWrite:
			s := t.Name + " writes (empty: a poll"
			if e := t.Session.Yield.Empty; e != nil && e.Min != nil && e.Max != nil {
				s += fmt.Sprintf(", %s–%s %s", num(*e.Min), num(*e.Max), t.Session.Yield.Unit)
			}
			parts = append(parts, s+")")
		case spec.KindSessionRead, spec.KindSessionKill, spec.KindSessionList:
			parts = append(parts, t.Name+" "+strings.TrimPrefix(string(t.Kind), "session_")+"s")
		}
	}
	limit := fmt.Sprintf("at most %d", sv.MaxLive)
	if sv.OnFull == spec.OnFullPrune {
		limit += ", the least recently used pruned"
		if sv.ProtectRecent > 0 {
			limit += fmt.Sprintf(" (%d most recent protected)", sv.ProtectRecent)
		}
	}
	ids := "sequential ids"
	if sv.IDs == spec.SessionIDsRandom {
		ids = fmt.Sprintf("random ids %d–%d", sv.FirstID, sv.LastID)
	}
	return strings.Join(append(parts, ids, limit), "; ")
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func kept(tr *spec.Truncate) string {
	switch tr.Keep {
	case spec.KeepTail:
		return fmt.Sprintf("tail (last %d)", or(tr.Tail, tr.Limit))
	case spec.KeepHeadTail:
		s := fmt.Sprintf("head %d and tail %d", tr.Head, tr.Tail)
		if tr.TailThreshold > 0 {
			s += fmt.Sprintf(" (tail past %d)", tr.TailThreshold)
		}
		return s
	}
	return fmt.Sprintf("head (first %d)", or(tr.Head, tr.Limit))
}

func or(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

func marker(tr *spec.Truncate) string { return strconv.Quote(tr.Marker) }

func policies(v *spec.Variant) string {
	var out []string
	for _, p := range v.Policies {
		s := string(p.Kind)
		n := 0
		for _, r := range p.Rules {
			n += max(len(r.Patterns)+len(r.Substrings), boolInt(r.Pattern != "" || r.Substring != ""))
		}
		rules := fmt.Sprintf("%d rules", n)
		if n == 1 {
			rules = "1 rule"
		}
		switch {
		case n > 0 && p.Kind == spec.PolicyRegex:
			s += fmt.Sprintf(" (%s, %s dialect)", rules, p.Dialect)
		case n > 0:
			s += " (" + rules + ")"
		case p.Kind == spec.PolicyPermission && p.Permission != nil:
			s += " (Tool(pattern) rules, host-set)"
		case p.Kind == spec.PolicyWildcard && p.Wildcard != nil:
			s += fmt.Sprintf(" (pattern table of %d, %s match wins)", len(p.Wildcard.Rules), p.Wildcard.Select)
		case p.Kind == spec.PolicyPriority && p.Priority != nil:
			if n := len(p.Priority.Rules); n == 1 {
				s += " (1 rule by priority)"
			} else {
				s += fmt.Sprintf(" (%d rules by priority)", n)
			}
		}
		out = append(out, s)
	}
	return dash(strings.Join(out, "; "))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func background(v *spec.Variant) string {
	var ways []string
	for _, t := range v.Tools {
		for _, p := range t.Params {
			if p.Role == spec.RoleBackground {
				ways = append(ways, t.Name+"("+p.Name+")")
			}
		}
		if t.Timeout != nil && t.Timeout.Expiry == spec.ExpiryBackground {
			ways = append(ways, "a timeout moves the process there")
		}
	}
	var tools []string
	for _, t := range v.Tools {
		if t.Kind == spec.KindPoll || t.Kind == spec.KindKill || t.Kind == spec.KindList {
			tools = append(tools, t.Name+" ("+string(t.Kind)+")")
		}
	}
	if len(ways) == 0 {
		return "no"
	}
	s := strings.Join(ways, "; ")
	if len(tools) > 0 {
		s += "; " + strings.Join(tools, ", ")
	} else {
		s += "; no tool reads them"
	}
	if b := v.Background; b != nil && b.MaxLive > 0 {
		s += fmt.Sprintf("; at most %d live", b.MaxLive)
	}
	return s
}

// errorKinds lists the error classes the tools raise, and says when failures come back as results.
func errorKinds(v *spec.Variant) string {
	raised := map[string]bool{}
	asResult := false
	for _, site := range v.Failures() {
		if site.Raises() {
			raised[site.Failure.Type] = true
		} else {
			asResult = true
		}
	}
	s := strings.Join(slices.Sorted(maps.Keys(raised)), ", ")
	if asResult {
		s += " (others as results)"
	}
	return dash(s)
}

func result(t *spec.Tool) string {
	r := t.Results
	switch {
	case r.Format == spec.FormatText:
		return "text"
	case r.Union:
		var names []string
		for _, o := range t.Outcomes() {
			names = append(names, string(o))
		}
		return "JSON object, a union on " + r.Discriminator + " (" + strings.Join(names, ", ") + ")"
	}
	fields := map[string]bool{}
	for _, sh := range r.Cases {
		for _, f := range sh.Fields {
			fields[f.Name] = true
		}
	}
	return "JSON object {" + strings.Join(slices.Sorted(maps.Keys(fields)), ", ") + "}"
}

// Markdown renders the columns as a markdown table, one column per variant.
func Markdown(cols []Column) string {
	var b strings.Builder
	b.WriteString("| |")
	for _, c := range cols {
		b.WriteString(" `" + c.ID + "` |")
	}
	b.WriteString("\n|---|")
	for range cols {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("| " + r.name + " |")
		for i := range cols {
			b.WriteString(" " + cell(r.get(&cols[i])) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// cell escapes a text for a table cell: pipes escaped, a quoted marker in a code span.
func cell(s string) string {
	if strings.HasPrefix(s, `"`) {
		return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// JSON renders the columns as an indented JSON array.
func JSON(cols []Column) ([]byte, error) {
	b, err := jsonenc.MarshalIndent(cols, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// redaction says whether the host scrubs what the tools answer, and by how many rules.
func redaction(v *spec.Variant) string {
	r := v.Redact
	if r == nil {
		return "no"
	}
	what := "results"
	if r.Errors {
		what = "results and errors"
	}
	return fmt.Sprintf("yes: %d rules on %s", len(r.Rules), what)
}

// sandboxed says how the variant's commands are confined by default: its sandbox block, or none (a host
// can still turn the sandbox on: -sandbox, runtime.WithSandbox).
func sandboxed(v *spec.Variant) string {
	sb := v.Sandbox
	if sb == nil {
		if v.Shell.Embedded {
			return "none (an embedded shell cannot be sandboxed)"
		}
		return "off (-sandbox MODE turns it on)"
	}
	s := string(sb.Mode)
	if sb.Network {
		s += ", network allowed"
	} else {
		s += ", no network"
	}
	if sb.BestEffort {
		s += ", best effort"
	}
	return s
}

// spillLimit is a spill's bound: "51200 bytes or 2000 lines".
func spillLimit(sp *spec.Spill) string {
	var parts []string
	if sp.Over.Limit > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", sp.Over.Limit, sp.Over.Unit))
	}
	if sp.Over.Lines > 0 {
		parts = append(parts, fmt.Sprintf("%d lines", sp.Over.Lines))
	}
	return "over " + strings.Join(parts, " or ")
}

// spillKept is what the model sees of a spilled output.
func spillKept(p *spec.Preview) string {
	lines := ""
	if p.Lines > 0 {
		lines = fmt.Sprintf(" within %d lines", p.Lines)
	}
	switch p.Keep {
	case spec.KeepTail:
		return fmt.Sprintf("tail (last %d %s%s) of a spilled output", p.Tail, p.Unit, lines)
	case spec.KeepHeadTail:
		return fmt.Sprintf("head %d and tail %d %s%s of a spilled output", p.Head, p.Tail, p.Unit, lines)
	}
	return fmt.Sprintf("head (first %d %s) of a spilled output", p.Head, p.Unit)
}

// userShell describes a shell chosen from the user's environment: "$SHELL (not fish, nu) -c, else bash -c,
// else /bin/sh -c".
func userShell(sh spec.Shell) string {
	rest := strings.Join(sh.Argv[1:], " ")
	with := func(prog string) string { return strings.TrimSpace(prog + " " + rest) }
	first := "$" + sh.User.Env
	if len(sh.User.Refuse) > 0 {
		first += " (not " + strings.Join(sh.User.Refuse, ", ") + ")"
	}
	out := with(first) + ", else " + with(sh.Argv[0])
	if sh.User.Fallback != "" {
		out += ", else " + with(sh.User.Fallback)
	}
	return out
}
