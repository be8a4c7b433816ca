package runtime

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// The model APIs' tool shapes (spec/apitools.go): a program and its arguments run without a shell (role
// argv), a batch of commands each answered on its own (kind batch), the script a host wraps a command in
// (wrap), and the persistent shell (persistent.go).

// batchCall is a batch tool's call: its commands, the cases a command's run renders (results: batch.each,
// nil for the call itself), and what bounds a command's output: outLimit (the output_limit, 0: none) and
// share (its part of the runtime's bound, 0: the whole).
type batchCall struct {
	commands []string
	results  *spec.Results
	outLimit int
	share    int
}

// arrayProblem is what is wrong with a value sent for an array (of strings) parameter, or "".
func arrayProblem(v any) string {
	list, ok := v.([]any)
	if !ok {
		return "must be an array of strings"
	}
	for i, x := range list {
		if _, ok := x.(string); !ok {
			return fmt.Sprintf("element %d must be a string", i)
		}
	}
	return ""
}

// strings reads an array (of strings) parameter as sent: nil when absent or not such an array.
func (c *call) stringList(name string) []string {
	list, ok := c.params[name].([]any)
	if !ok || arrayProblem(list) != "" {
		return nil
	}
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = x.(string)
	}
	return out
}

// readAPIParams reads the parameters of these shapes once the parameters are parsed: the argv a program
// runs with (its words joined with spaces are .Command, what policies see), and a batch's commands.
func (c *call) readAPIParams() error {
	if p := c.t.spec.Param(spec.RoleArgv); p != nil {
		if argv := c.stringList(p.Name); argv != nil {
			c.argv, c.direct = argv, true
			c.data.Command = strings.Join(argv, " ")
		}
	}
	if c.t.spec.Kind != spec.KindBatch {
		return nil
	}
	c.bat = &batchCall{}
	p := c.t.spec.Param(spec.RoleCommands)
	c.bat.commands = c.stringList(p.Name)
	if b := c.t.spec.Batch; len(c.bat.commands) > b.MaxCommands {
		return c.invalid(p.Name, fmt.Sprintf("must hold at most %d commands", b.MaxCommands))
	}
	if p := c.t.spec.Param(spec.RoleOutputLimit); p != nil {
		if n, ok := c.params[p.Name].(json.Number); ok {
			v, err := n.Int64()
			if err != nil || v < 0 {
				return c.invalid(p.Name, "must be a non-negative integer")
			}
			c.bat.outLimit = int(min(v, spec.MaxSize))
		}
	}
	if c.bat.outLimit == 0 && c.t.spec.Batch.Limit != nil {
		if p := c.t.spec.Param(spec.RoleOutputLimit); p == nil || !c.present[p.Name] {
			c.bat.outLimit = c.t.spec.Batch.Limit.Default
		}
	}
	return nil
}

// empty reports a string parameter that is "", or an array parameter with no element (not_empty).
func (c *call) empty(name string) bool {
	if p := c.t.spec.ParamNamed(name); p != nil && p.Type == spec.TypeArray {
		list, _ := c.params[name].([]any)
		return len(list) == 0
	}
	return c.str(name) == ""
}

// resultCases are the cases the call renders: a batch command's each, or the tool's results.
func (c *call) resultCases() *spec.Results {
	if c.bat != nil && c.bat.results != nil {
		return c.bat.results
	}
	return &c.t.spec.Results
}

// script is the text the shell runs: the command, or the tool's wrap around it.
func (c *call) script() (string, error) {
	w := c.t.spec.Wrap
	if w == "" {
		return c.data.Command, nil
	}
	d := spec.Data{Command: c.data.Command, Cwd: c.cwd}
	s, err := c.t.tmpl.render(w, &d)
	if err != nil {
		return "", fmt.Errorf("agentbash: rendering wrap: %w", err)
	}
	return s, nil
}

// streamMarker renders a truncation marker knowing the stream it cuts (.Stream).
func (c *call) streamMarker(marker, stream string) func(total, kept, elided int64) string {
	return func(total, kept, elided int64) string {
		d := spec.Data{Total: total, Kept: kept, Elided: elided, Stream: stream}
		s, _ := c.t.tmpl.render(marker, &d)
		return s
	}
}

// limitStreams sizes a batch command's captures: its output limit (stdout and stderr each keep up to the
// limit, which cutShared then shares), or its share of the runtime's bound.
func (c *call) limitStreams(st *streams) {
	if c.t.spec.Kind != spec.KindBatch || st.out.Truncate != nil {
		return
	}
	unit, head := textcap.Bytes, c.bat.share
	if c.bat.outLimit > 0 {
		head = c.bat.outLimit
		if c.t.spec.Batch.Limit.Unit == spec.Chars {
			unit = textcap.Chars
		}
	}
	if head <= 0 {
		return
	}
	cfg := textcap.Config{Decode: decodeMode(st.out.Decode), Universal: st.out.Newlines == spec.NewlinesUniversal,
		Strip: st.out.Strip, Unit: unit, Head: head}
	if st.combined {
		st.output = textcap.New(cfg)
	} else {
		st.stdout, st.stderr = textcap.New(cfg), textcap.New(cfg)
	}
	if st.seq != nil {
		st.seq = newSeqCapture(st.stdout, st.stderr, head, 0)
	}
}

// cutShared applies a batch command's output limit to its texts: stdout keeps its head up to the limit,
// stderr its head up to what stdout left (a combined or sequential text keeps its head).
func (c *call) cutShared(s snapshots) {
	if c.t.spec.Kind != spec.KindBatch || c.bat.outLimit <= 0 {
		return
	}
	chars := c.t.spec.Batch.Limit.Unit == spec.Chars
	left := c.bat.outLimit
	take := func(text *string, truncated *bool, sn *textcap.Snapshot) {
		if sn == nil {
			return
		}
		var n int
		*text, n = headUnits(*text, left, chars)
		if n < countUnits(sn.Head, chars) || !sn.Complete {
			*truncated = true
		}
		left -= n
	}
	if s.output != nil {
		take(&c.data.Output, &c.data.OutputTruncated, s.output)
		return
	}
	take(&c.data.Stdout, &c.data.StdoutTruncated, s.stdout)
	take(&c.data.Stderr, &c.data.StderrTruncated, s.stderr)
}

// headUnits is the first n units (code points, or bytes at a character boundary) of s, and their number.
func headUnits(s string, n int, chars bool) (string, int) {
	if n <= 0 {
		return "", 0
	}
	if !chars {
		if len(s) <= n {
			return s, len(s)
		}
		i := floorBoundary(s, n)
		return s[:i], i
	}
	k, i := 0, 0
	for i < len(s) && k < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	return s[:i], k
}

// countUnits is the length of s in characters (chars) or bytes.
func countUnits(s string, chars bool) int {
	if chars {
		return utf8.RuneCountInString(s)
	}
	return len(s)
}

// batch runs a batch's commands in order, each answered by the batch's each cases, and answers the ok case
// with the answers (.Answers).
func (c *call) batch() (json.RawMessage, error) {
	b := c.t.spec.Batch
	if len(c.bat.commands) > 0 {
		c.bat.share = max(64<<10, safetyCap/len(c.bat.commands))
	}
	base := c.data
	answers := make([]string, 0, len(c.bat.commands))
	for _, cmd := range c.bat.commands {
		if err := c.ctx.Err(); err != nil {
			return nil, err
		}
		sub := *c
		bc := *c.bat
		bc.results = &b.Each
		sub.bat = &bc
		sub.data = base
		sub.data.Command = cmd
		sub.snaps, sub.window, sub.sawExit, sub.outcome = snapshots{}, nil, nil, ""
		res, err := sub.exec()
		if err != nil {
			return nil, err
		}
		ans := string(res)
		if b.Each.Format == spec.FormatText {
			if err := json.Unmarshal(res, &ans); err != nil {
				return nil, fmt.Errorf("agentbash: a batch answer: %w", err)
			}
		}
		answers = append(answers, ans)
		if sub.data.TimedOut && b.AfterTimeout == spec.BatchStop {
			break
		}
	}
	c.data = base
	c.data.Answers = answers
	return c.render(spec.OutcomeOK)
}

// batchPolicy runs a policy check on each command of a batch, before any runs: the first command it
// refuses ends the call (.Command is that command).
func (c *call) batchPolicy(ch *spec.Check) error {
	for _, cmd := range c.bat.commands {
		c.data.Command = cmd
		if err := c.policyCheck(ch); err != nil {
			return err
		}
	}
	c.data.Command = ""
	return nil
}
