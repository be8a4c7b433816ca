package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Baseline lists the failures a target is known to have, each with its reason, as the MCP conformance
// suite does: a run against a baseline fails on a failure it does not list, and on a listed case that now
// passes (the baseline is stale and should lose that entry). It is a YAML file:
//
//	variant: toolregistry
//	failures:
//	  - case: "bash/timeout with partial output (1s)"
//	    reason: leaves sleep running after the timeout (upstream issue 12)
type Baseline struct {
	// Variant is the spec the baseline is for (informational).
	Variant string `yaml:"variant,omitempty"`
	// Target describes the target (informational).
	Target string `yaml:"target,omitempty"`
	// Failures are the expected failures.
	Failures []ExpectedFailure `yaml:"failures"`
	// Races are failures a race in the target may cause in any case: a failure of a case they name whose
	// answer they recognise is expected, and a pass is not news.
	Races []Race `yaml:"races,omitempty"`
}

// Race is a failure a race in the target may cause in any of several cases (output lost at random, two
// streams merged in the order their chunks arrive): a failed case whose name matches Cases and whose
// answer (the target's, masked, as JSON text for a result that is not a text) matches Got; or, with
// Reordered, holds the reference's words in another order; or, with Lost, holds only some of the
// reference's words; is an expected failure. Each that is given must hold.
type Race struct {
	Cases     string `yaml:"cases"`
	Got       string `yaml:"got,omitempty"`
	Reordered bool   `yaml:"reordered,omitempty"`
	Lost      bool   `yaml:"lost,omitempty"`
	Reason    string `yaml:"reason"`

	cases, got *regexp.Regexp
}

// match reports whether a failed result is this race's.
func (r *Race) match(res Result) bool {
	if res.Status != Fail || res.Got == nil || !r.cases.MatchString(res.Case) {
		return false
	}
	if r.got != nil && !r.got.MatchString(shownText(res.Got)) {
		return false
	}
	if r.Reordered && (res.Want == nil || !sameWords(res.Want, res.Got)) {
		return false
	}
	if r.Lost && (res.Want == nil || !fewerWords(res.Want, res.Got)) {
		return false
	}
	return true
}

// shownText is an answer as one text: the result's text, or its JSON, or the error's message.
func shownText(s *Shown) string {
	switch v := s.Result.(type) {
	case string:
		return v
	case nil:
		if s.Error != nil {
			return s.Error.Message
		}
		return s.Invalid
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// sameWords reports whether two answers differ but hold the same words (see words), each as often, in
// another order: what two streams merged as their chunks arrive make of the same output.
func sameWords(a, b *Shown) bool {
	return shownText(a) != shownText(b) && slices.Equal(words(a), words(b))
}

// fewerWords reports whether answer b holds only some of answer a's words (each at most as often as a
// does, in any order, and fewer in all): what an answer made before all the output was read holds.
func fewerWords(a, b *Shown) bool {
	have := map[string]int{}
	wa := words(a)
	for _, w := range wa {
		have[w]++
	}
	wb := words(b)
	for _, w := range wb {
		if have[w] == 0 {
			return false
		}
		have[w]--
	}
	return len(wb) < len(wa)
}

// words are the words of an answer, sorted: the runs of characters between white space in its text, or in
// every string of a result that is not a text, with that result's keys and other values.
func words(s *Shown) []string {
	var w []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			w = append(w, strings.Fields(v)...)
		case map[string]any:
			for k, e := range v {
				w = append(w, k+":")
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		default:
			w = append(w, fmt.Sprint(v))
		}
	}
	if s.Result != nil {
		walk(s.Result)
	} else {
		walk(shownText(s))
	}
	slices.Sort(w)
	return w
}

// ExpectedFailure is one case a target is known to fail, and why. Flaky marks a case that fails only
// sometimes (a race in the target): passing it does not make the baseline stale.
type ExpectedFailure struct {
	Case   string `yaml:"case"`
	Reason string `yaml:"reason"`
	Flaky  bool   `yaml:"flaky,omitempty"`
}

// LoadBaseline reads a baseline file; every entry needs a case and a reason.
func LoadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var b Baseline
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	for i, f := range b.Failures {
		if f.Case == "" || strings.TrimSpace(f.Reason) == "" {
			return nil, fmt.Errorf("%s: failures[%d]: every entry needs a case and a reason", path, i)
		}
		if seen[f.Case] {
			return nil, fmt.Errorf("%s: failures[%d]: case %q is listed twice", path, i, f.Case)
		}
		seen[f.Case] = true
	}
	for i := range b.Races {
		r := &b.Races[i]
		if r.Cases == "" || (r.Got == "" && !r.Reordered && !r.Lost) || strings.TrimSpace(r.Reason) == "" {
			return nil, fmt.Errorf("%s: races[%d]: every race needs cases, what it recognises (got, reordered or lost) and a reason", path, i)
		}
		if r.Reordered && r.Lost {
			return nil, fmt.Errorf("%s: races[%d]: reordered and lost cannot both hold (the same words, and fewer): give each its own race", path, i)
		}
		if r.cases, err = regexp.Compile(r.Cases); err != nil {
			return nil, fmt.Errorf("%s: races[%d].cases: %w", path, i, err)
		}
		if r.Got != "" {
			if r.got, err = regexp.Compile(r.Got); err != nil {
				return nil, fmt.Errorf("%s: races[%d].got: %w", path, i, err)
			}
		}
	}
	return &b, nil
}

func (b *Baseline) entry(name string) (ExpectedFailure, bool) {
	for _, f := range b.Failures {
		if f.Case == name {
			return f, true
		}
	}
	return ExpectedFailure{}, false
}

// race is the race that explains a failed result, or nil.
func (b *Baseline) race(res Result) *Race {
	for i := range b.Races {
		if b.Races[i].match(res) {
			return &b.Races[i]
		}
	}
	return nil
}

// judge applies the baseline to one result.
func (b *Baseline) judge(res Result) Result {
	e, listed := b.entry(res.Case)
	if !listed {
		if r := b.race(res); r != nil {
			res.Status, res.Baseline = XFail, Raced
			res.Reason = strings.TrimSpace("expected failure (baseline race: " + r.Reason + ")\n" + res.Reason)
		}
		return res
	}
	why := e.Reason
	if e.Flaky && res.Status == Pass {
		return res // it fails only sometimes: passing is not news
	}
	switch res.Status {
	case Fail:
		res.Status, res.Baseline = XFail, Expected
		res.Reason = strings.TrimSpace("expected failure (baseline: " + why + ")\n" + res.Reason)
	case Pass:
		res.Status, res.Baseline = Fail, Stale
		res.Reason = "stale baseline: the case is listed as an expected failure (" + why + ") but passes; remove it from the baseline (-update-baseline)"
	}
	return res
}

// stale lists the entries that name no case of the spec (a case renamed or gone); a case left out of this
// run (-run, -skip) is not stale.
func (b *Baseline) stale(all []Case) []string {
	exists := map[string]bool{}
	for _, c := range all {
		exists[c.Name] = true
	}
	var out []string
	for _, f := range b.Failures {
		if !exists[f.Case] {
			out = append(out, f.Case)
		}
	}
	return out
}

// UpdateBaseline returns the baseline that makes the report pass: its failures (expected or not), each with
// the reason old gives it, or else the first line of what went wrong; passing cases are left out. old may
// be nil.
func UpdateBaseline(old *Baseline, r *Report) *Baseline {
	nb := &Baseline{Variant: r.Variant, Target: r.Target, Failures: []ExpectedFailure{}}
	if old != nil {
		nb.Races = old.Races // kept as they are
	}
	for _, res := range r.Results {
		var prev ExpectedFailure
		listed := false
		if old != nil {
			prev, listed = old.entry(res.Case)
		}
		if listed && prev.Flaky && (res.Status == Pass || res.failed()) {
			nb.Failures = append(nb.Failures, prev) // it fails only sometimes: kept as it is
			continue
		}
		if !res.failed() || res.Baseline == Stale || res.Baseline == Raced {
			continue // it passes (now), or a race explains it
		}
		why := prev.Reason
		if !listed {
			why = reasonOf(res)
		}
		nb.Failures = append(nb.Failures, ExpectedFailure{Case: res.Case, Reason: why})
	}
	slices.SortStableFunc(nb.Failures, func(a, b ExpectedFailure) int { return strings.Compare(a.Case, b.Case) })
	return nb
}

// YAML renders the baseline as a YAML file.
func (b *Baseline) YAML() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("# agentbash conformance baseline: the failures this target is known to have, each with its reason.\n")
	buf.WriteString("# A failure not listed here fails the run; so does a listed case that passes (remove it).\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(b); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

// reasonOf is a new baseline entry's reason: what went wrong on one line, without what differs from run to
// run (pids, paths, durations).
func reasonOf(res Result) string {
	why := res.Summary
	if why == "" {
		why = res.headline()
	}
	why = NewMasker().Text(why)
	why = strings.ReplaceAll(why, " (pid "+pidToken+")", "")
	return strings.TrimSpace(why)
}
