package conformance

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentbash/agentbash/conformance/cases"
	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// Status is a case's outcome.
type Status string

// The outcomes of a case.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
	// XFail is a failure the baseline expects: it does not fail the run.
	XFail Status = "xfail"
)

// Verdict is how the run's baseline judged a case, if it did.
type Verdict string

// The baseline's verdicts.
const (
	// Expected: the case failed and the baseline lists it (XFail).
	Expected Verdict = "expected"
	// Raced: the case failed as one of the baseline's races explains (XFail).
	Raced Verdict = "race"
	// Stale: the baseline lists the case as failing, but it passed (Fail).
	Stale Verdict = "stale"
)

// Result is one case's outcome.
type Result struct {
	Case   string `json:"case"`
	Tool   string `json:"tool"`
	Group  string `json:"group,omitempty"`
	Status Status `json:"status"`
	// Reason says why a case was skipped, why the target gave no answer, or the baseline's word.
	Reason string `json:"reason,omitempty"`
	// Baseline is how the baseline judged the case (empty when it did not: no baseline, or a case it does
	// not list and no race explains).
	Baseline Verdict `json:"baseline,omitempty"`
	// Diff describes how the target's answer differs from the reference's, after masking (every call
	// that differs, for a case of several calls).
	Diff string `json:"diff,omitempty"`
	// Summary is what went wrong on one line: the first difference (`$.stdout: want "a\n" got "b\n"`),
	// why there was no answer, or the first problem.
	Summary string `json:"summary,omitempty"`
	// Problems are failed properties (elapsed time, processes left running), of the target or of the
	// reference (prefixed "reference:").
	Problems []string `json:"problems,omitempty"`
	// Params are the parameters sent (with the target's workspace path).
	Params json.RawMessage `json:"params,omitempty"`
	// Want and Got are the masked answers of the reference and the target, for failed cases (long texts
	// clipped).
	Want *Shown `json:"want,omitempty"`
	Got  *Shown `json:"got,omitempty"`
	// ElapsedMS is how long the target took to answer.
	ElapsedMS int64 `json:"elapsed_ms"`
	// Features are the spec features the case exercised (when it was sent).
	Features []string `json:"-"`
}

// failed reports a result that failed, expected or not.
func (r Result) failed() bool { return r.Status == Fail || r.Status == XFail }

// Text is what went wrong, for people: the parameters, the reason, the diff and the problems.
func (r Result) Text() string {
	var parts []string
	if len(r.Params) > 0 {
		parts = append(parts, "params: "+clip(string(r.Params), 300))
	}
	for _, p := range []string{r.Reason, r.Diff} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	parts = append(parts, r.Problems...)
	return strings.Join(parts, "\n")
}

// headline is what went wrong on one line: the summary, else the first line of the reason or the diff.
func (r Result) headline() string {
	for _, s := range []string{r.Summary, r.Reason, r.Diff, strings.Join(r.Problems, "\n")} {
		if s != "" {
			return firstLine(s)
		}
	}
	return "failed"
}

// Shown is a masked answer as a report shows it.
type Shown struct {
	Result any                `json:"result,omitempty"`
	Error  *runtime.ToolError `json:"error,omitempty"`
	// Invalid is a result that was not valid JSON.
	Invalid string `json:"invalid,omitempty"`
}

// shown clips every string of a masked answer to keep reports readable.
func shown(m Masked) *Shown {
	s := &Shown{Error: m.Error, Invalid: clipMiddle(m.Invalid, 4096)}
	if m.HasResult {
		s.Result = clipValue(m.Result)
	}
	return s
}

func clipValue(v any) any {
	switch x := v.(type) {
	case string:
		return clipMiddle(x, 4096)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clipValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clipValue(e)
		}
		return out
	}
	return v
}

func clipMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n/2] + fmt.Sprintf("<... %d bytes clipped ...>", len(s)-n) + s[len(s)-n/2:]
}

// Report is the outcome of a run of the suite.
type Report struct {
	Variant string   `json:"variant"`
	Target  string   `json:"target"`
	Results []Result `json:"results"`
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Skipped int      `json:"skipped"`
	// Expected counts the failures the baseline expects (status xfail).
	Expected int `json:"expected_failures,omitempty"`
	// Groups sums the results by tool and kind of check.
	Groups []Group `json:"groups,omitempty"`
	// Features are the spec's features (see Features) and those the cases sent exercised.
	Features *FeatureCount `json:"features,omitempty"`
	// Warnings are what the target did that was tolerated (a log line on stdout, an answer to no request),
	// and baseline entries that match no case.
	Warnings []string `json:"warnings,omitempty"`
	// Stale lists the baseline's entries that name no case of the spec (renamed or gone).
	Stale []string `json:"stale,omitempty"`
	// ElapsedMS is the run's wall time.
	ElapsedMS int64 `json:"elapsed_ms"`
	// CloseError is what went wrong when the target was ended (it did not exit at EOF, say).
	CloseError string `json:"close_error,omitempty"`
}

// Group sums the results of one kind of check of one tool.
type Group struct {
	Tool     string `json:"tool"`
	Name     string `json:"name"`
	Passed   int    `json:"passed"`
	Failed   int    `json:"failed"`
	Skipped  int    `json:"skipped"`
	Expected int    `json:"expected_failures,omitempty"`
}

// FeatureCount says how many of the spec's features the cases sent exercised, and which were not.
type FeatureCount struct {
	Total     int      `json:"total"`
	Exercised int      `json:"exercised"`
	Missing   []string `json:"missing,omitempty"`
}

func (r *Report) add(res Result) {
	r.Results = append(r.Results, res)
	switch res.Status {
	case Pass:
		r.Passed++
	case Fail:
		r.Failed++
	case Skip:
		r.Skipped++
	case XFail:
		r.Expected++
	}
}

// Ran counts the cases that were sent (passed or failed, expected or not).
func (r *Report) Ran() int { return r.Passed + r.Failed + r.Expected }

// summarize fills the groups and the feature count.
func (r *Report) summarize(v *spec.Variant) {
	r.Groups = nil
	idx := map[[2]string]int{}
	exercised := map[string]bool{}
	for _, res := range r.Results {
		k := [2]string{res.Tool, res.Group}
		i, ok := idx[k]
		if !ok {
			i = len(r.Groups)
			idx[k] = i
			r.Groups = append(r.Groups, Group{Tool: res.Tool, Name: res.Group})
		}
		g := &r.Groups[i]
		switch res.Status {
		case Pass:
			g.Passed++
		case Fail:
			g.Failed++
		case Skip:
			g.Skipped++
		case XFail:
			g.Expected++
		}
		if res.Status != Skip {
			for _, f := range res.Features {
				exercised[f] = true
			}
		}
	}
	all := cases.Features(v)
	fc := &FeatureCount{Total: len(all)}
	for _, f := range all {
		if exercised[f] {
			fc.Exercised++
		} else {
			fc.Missing = append(fc.Missing, f)
		}
	}
	r.Features = fc
}

// OK reports that the run passed: no case failed (expected failures aside), no baseline entry is stale
// and the target closed cleanly.
func (r *Report) OK() bool { return len(r.Why()) == 0 }

// Why says why the run did not pass, one reason a line (nothing when it passed): the failed cases, the
// stale baseline entries, and what went wrong closing the target outside any case.
func (r *Report) Why() []string {
	var why []string
	if r.Failed > 0 {
		why = append(why, fmt.Sprintf("%d %s failed", r.Failed, plural(r.Failed, "case", "cases")))
	}
	if len(r.Stale) > 0 {
		why = append(why, fmt.Sprintf("%d baseline %s name no case of the spec", len(r.Stale), plural(len(r.Stale), "entry", "entries")))
	}
	if r.CloseError != "" {
		why = append(why, "closing the target: "+firstLine(r.CloseError))
	}
	return why
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Summary renders the report for people: every failed case with its differences and problems, every
// skipped case with its reason, the expected failures, a line per case group, the spec features
// exercised, the target's warnings, and a last line "N passed, M failed" (", K skipped" when some were).
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "conformance of %s: %s (%d cases, %s)\n", r.Variant, r.Target, len(r.Results),
		(time.Duration(r.ElapsedMS) * time.Millisecond).String())
	for _, res := range r.Results {
		switch res.Status {
		case Fail:
			fmt.Fprintf(&b, "FAIL %s\n", res.Case)
			b.WriteString(indent(res.Text(), "    ") + "\n")
		case Skip:
			fmt.Fprintf(&b, "SKIP %s: %s\n", res.Case, res.Reason)
		case XFail:
			fmt.Fprintf(&b, "XFAIL %s: %s\n", res.Case, res.Reason)
		}
	}
	for _, s := range r.Stale {
		fmt.Fprintf(&b, "STALE baseline entry %q: the spec has no such case\n", s)
	}
	if len(r.Groups) > 0 {
		b.WriteString("by group:\n")
		for _, g := range r.Groups {
			fmt.Fprintf(&b, "    %-12s %-18s %3d passed, %d failed", g.Tool, g.Name, g.Passed, g.Failed)
			if g.Skipped > 0 {
				fmt.Fprintf(&b, ", %d skipped", g.Skipped)
			}
			if g.Expected > 0 {
				fmt.Fprintf(&b, ", %d expected failures", g.Expected)
			}
			b.WriteString("\n")
		}
	}
	if f := r.Features; f != nil {
		fmt.Fprintf(&b, "spec features exercised: %d of %d\n", f.Exercised, f.Total)
		for _, m := range f.Missing {
			fmt.Fprintf(&b, "    not exercised: %s\n", m)
		}
	}
	for _, w := range r.Warnings {
		b.WriteString("warning: " + indent(w, "    ")[4:] + "\n")
	}
	if r.CloseError != "" {
		fmt.Fprintf(&b, "closing the target: %s\n", r.CloseError)
	}
	if r.Expected > 0 {
		fmt.Fprintf(&b, "%d expected failures (baseline)\n", r.Expected)
	}
	if why := r.Why(); len(why) > 0 {
		fmt.Fprintf(&b, "the run fails: %s\n", strings.Join(why, "; "))
	}
	fmt.Fprintf(&b, "%d passed, %d failed", r.Passed, r.Failed)
	if r.Skipped > 0 {
		fmt.Fprintf(&b, ", %d skipped", r.Skipped)
	}
	b.WriteString("\n")
	return b.String()
}

// JSON renders the report as indented JSON.
func (r *Report) JSON() ([]byte, error) {
	b, err := jsonenc.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// JUnit renders reports as a JUnit XML document: a testsuite per report, a testcase per case (classname
// "<variant>.<tool>.<group>"), a failure whose text is the case's diff, reason and problems, a skipped
// element for skipped cases and for expected failures (with the baseline's reason).
func JUnit(reports ...*Report) ([]byte, error) {
	type failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
	type skipped struct {
		Message string `xml:"message,attr"`
	}
	type errElem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Error     *errElem `xml:"error,omitempty"`
		Skipped   *skipped `xml:"skipped,omitempty"`
		SystemOut string   `xml:"system-out,omitempty"`
	}
	type testsuite struct {
		Name      string     `xml:"name,attr"`
		Tests     int        `xml:"tests,attr"`
		Failures  int        `xml:"failures,attr"`
		Errors    int        `xml:"errors,attr"`
		Skipped   int        `xml:"skipped,attr"`
		Time      string     `xml:"time,attr"`
		Cases     []testcase `xml:"testcase"`
		SystemErr string     `xml:"system-err,omitempty"`
	}
	type testsuites struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Time     string      `xml:"time,attr"`
		Suites   []testsuite `xml:"testsuite"`
	}
	secs := func(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }
	out := testsuites{Name: "agentbash conformance"}
	var total int64
	for _, r := range reports {
		ts := testsuite{Name: "conformance " + r.Variant + ": " + r.Target, Time: secs(r.ElapsedMS)}
		for _, res := range r.Results {
			tc := testcase{Name: res.Case, Classname: r.Variant + "." + res.Tool + "." + strings.ReplaceAll(res.Group, " ", "_"),
				Time: secs(res.ElapsedMS)}
			switch res.Status {
			case Fail:
				text := res.Text()
				tc.Failure = &failure{Message: res.headline(), Type: "mismatch", Text: text}
				ts.Failures++
			case Skip:
				tc.Skipped = &skipped{Message: res.Reason}
				ts.Skipped++
			case XFail:
				tc.Skipped = &skipped{Message: res.Reason}
				tc.SystemOut = res.Text()
				ts.Skipped++
			}
			ts.Cases = append(ts.Cases, tc)
		}
		ts.Tests = len(ts.Cases)
		// What fails the run outside any case is a testcase of its own with an error element.
		if r.CloseError != "" {
			ts.Cases = append(ts.Cases, testcase{Name: "closing the target", Classname: r.Variant + ".target", Time: "0.000",
				Error: &errElem{Message: firstLine(r.CloseError), Type: "close", Text: r.CloseError}})
			ts.Errors++
		}
		for _, st := range r.Stale {
			ts.Cases = append(ts.Cases, testcase{Name: "baseline entry " + st, Classname: r.Variant + ".baseline", Time: "0.000",
				Error: &errElem{Message: "stale baseline entry: the spec has no case " + strconv.Quote(st), Type: "stale"}})
			ts.Errors++
		}
		ts.Tests = len(ts.Cases)
		ts.SystemErr = strings.Join(r.Warnings, "\n")
		out.Tests += ts.Tests
		out.Failures += ts.Failures
		out.Errors += ts.Errors
		out.Skipped += ts.Skipped
		total += r.ElapsedMS
		out.Suites = append(out.Suites, ts)
	}
	out.Time = secs(total)
	b, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}
