package conformance

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentbash/agentbash/runtime"
)

// Status is a case's outcome.
type Status string

// The outcomes of a case.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is one case's outcome.
type Result struct {
	Case   string `json:"case"`
	Tool   string `json:"tool"`
	Status Status `json:"status"`
	// Reason says why a case was skipped, or why the target gave no answer.
	Reason string `json:"reason,omitempty"`
	// Diff describes how the target's answer differs from the reference's, after masking.
	Diff string `json:"diff,omitempty"`
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
	// ElapsedMS is the run's wall time.
	ElapsedMS int64 `json:"elapsed_ms"`
	// CloseError is what went wrong when the target was ended (it did not exit at EOF, say).
	CloseError string `json:"close_error,omitempty"`
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
	}
}

// OK reports that no case failed.
func (r *Report) OK() bool { return r.Failed == 0 && r.CloseError == "" }

// Summary renders the report for people: every failed case with its differences and problems, every
// skipped case with its reason, and a last line "N passed, M failed" (", K skipped" when some were).
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "conformance of %s: %s (%d cases, %s)\n", r.Variant, r.Target, len(r.Results),
		(time.Duration(r.ElapsedMS) * time.Millisecond).String())
	for _, res := range r.Results {
		switch res.Status {
		case Fail:
			fmt.Fprintf(&b, "FAIL %s\n", res.Case)
			if len(res.Params) > 0 {
				fmt.Fprintf(&b, "    params: %s\n", clip(string(res.Params), 300))
			}
			if res.Reason != "" {
				b.WriteString(indent(res.Reason, "    ") + "\n")
			}
			if res.Diff != "" {
				b.WriteString(indent(res.Diff, "    ") + "\n")
			}
			for _, p := range res.Problems {
				b.WriteString(indent(p, "    ") + "\n")
			}
		case Skip:
			fmt.Fprintf(&b, "SKIP %s: %s\n", res.Case, res.Reason)
		}
	}
	if r.CloseError != "" {
		fmt.Fprintf(&b, "closing the target: %s\n", r.CloseError)
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
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}
