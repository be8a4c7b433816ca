package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/spec"
)

var sessionTokenRE = lazyRegexp(`"<SESSION:(\d+)>"`)

// play makes a case's calls in order on one side: each step's session tokens are replaced by the ids the
// side's own answers gave. It stops at the first call the side gave no answer to. The copies of a repeated
// step are sent at once: with many, when it is not nil, as one (parallel tool calls in one answer of a
// model), else with a call of do each.
func (s *Session) play(ctx context.Context, c Case, first json.RawMessage, ws string, do func(ctx context.Context, tool string, params json.RawMessage) (target.Answer, error),
	many func(ctx context.Context, tool string, params json.RawMessage, n int) ([]target.Answer, error)) ([]target.Answer, []json.RawMessage, error) {
	var answers []target.Answer
	var sent []json.RawMessage
	for i, st := range c.Calls() {
		params := st.Params
		if i == 0 {
			params = first
		} else {
			params = withWorkspace(s.withSessions(params, st.Tool, answers, c), ws)
		}
		n := max(st.Repeat, 1)
		got := make([]target.Answer, n)
		errs := make([]error, n)
		if many != nil && n > 1 {
			as, err := many(ctx, st.Tool, params, n)
			for k := range n {
				errs[k] = err
				if err == nil {
					got[k] = as[k]
				}
			}
		} else {
			var wg sync.WaitGroup
			for k := range n {
				wg.Go(func() { got[k], errs[k] = do(ctx, st.Tool, params) })
			}
			wg.Wait()
		}
		for k := range n {
			if errs[k] != nil {
				return answers, sent, fmt.Errorf("call %d (%s): %w", len(answers)+1, st.Tool, errs[k])
			}
			answers = append(answers, got[k])
			sent = append(sent, params)
		}
	}
	return answers, sent, nil
}

// withSessions replaces the session tokens of a step's parameters with the ids of earlier answers.
func (s *Session) withSessions(params json.RawMessage, tool string, answers []target.Answer, c Case) json.RawMessage {
	numeric := false
	if t := s.v.Tool(tool); t != nil {
		for _, r := range []spec.Role{spec.RoleSessionID, spec.RoleShellID} {
			if p := t.Param(r); p != nil && (p.Type == spec.TypeInteger || p.Type == spec.TypeNumber) {
				numeric = true
			}
		}
	}
	return json.RawMessage(sessionTokenRE.ReplaceAllStringFunc(string(params), func(tok string) string {
		n, _ := strconv.Atoi(sessionTokenRE.FindStringSubmatch(tok)[1])
		id := ""
		if n < len(answers) {
			id = idOf(s.v, c.CallTool(n), answers[n], true)
		}
		if numeric {
			if _, err := strconv.ParseInt(id, 10, 64); err != nil {
				return "0" // no id: a number no session has
			}
			return id
		}
		if id == "" {
			id = "conformance-no-session"
		}
		b, _ := json.Marshal(id)
		return string(b)
	}))
}

// sessionIDOf finds the session id in an answer of a tool, where the tool's running case puts .SessionID:
// for a JSON result, the field whose value is it; for a text, the word after the text that precedes it.
func sessionIDOf(v *spec.Variant, tool string, a target.Answer) string {
	return idOf(v, tool, a, false)
}

// idOf is sessionIDOf, or with shells also a background shell's id, where the background case puts
// .ShellID (or .Pid, which names the shell with ids: pid), for a later call of the case to name it. (The
// masker does not hide those: a pid is masked as one.)
func idOf(v *spec.Variant, tool string, a target.Answer, shells bool) string {
	t := v.Tool(tool)
	if t == nil || a.Result == nil {
		return ""
	}
	// A session's id is where the running case puts .SessionID; a background shell's, where the background
	// case puts .ShellID (or .Pid, which names the shell with ids: pid).
	idField, data := ".SessionID", func(id string) spec.Data {
		return spec.Data{SessionID: id, Running: true, Nonce: "0123456789abcdef", Tool: tool, Params: map[string]any{}}
	}
	sh, ok := t.Results.Cases[spec.OutcomeRunning]
	if !ok {
		if sh, ok = t.Results.Cases[spec.OutcomeBackground]; !ok || !shells || v.Background == nil {
			return ""
		}
		idField, data = ".ShellID", func(id string) spec.Data {
			pid, _ := strconv.Atoi(id)
			return spec.Data{ShellID: id, Pid: pid, Running: true, Nonce: "0123456789abcdef", Tool: tool, Params: map[string]any{}}
		}
		if v.Background.IDs == spec.IDsPID && !templateNames(sh, ".ShellID") {
			idField = ".Pid"
		}
	}
	const sentinel = "7391546028"
	if sh.Text != nil {
		tmpl, err := spec.ParseTemplate("running", *sh.Text)
		if err != nil {
			return ""
		}
		text, err := spec.Execute(tmpl, data(sentinel))
		if err != nil {
			return ""
		}
		at := strings.Index(text, sentinel)
		if at < 0 {
			return ""
		}
		before := text[:at]
		if nl := strings.LastIndexByte(before, '\n'); nl >= 0 {
			before = before[nl+1:]
		}
		var got string
		if json.Unmarshal(a.Result, &got) != nil {
			return ""
		}
		re := regexp.MustCompile(`(?m)` + regexp.QuoteMeta(before) + `([\w.-]+)`)
		if before == "" {
			re = regexp.MustCompile(`(?m)^([\w.-]+)`)
		}
		if m := re.FindStringSubmatch(got); m != nil {
			return m[1]
		}
		return ""
	}
	path := fieldPath(sh.Fields, func(f spec.Field) bool { return strings.Contains(f.Value, idField) })
	if path == nil {
		return ""
	}
	var obj any
	d := json.NewDecoder(strings.NewReader(string(a.Result)))
	d.UseNumber()
	if d.Decode(&obj) != nil {
		return ""
	}
	for _, key := range path {
		m, ok := obj.(map[string]any)
		if !ok {
			return ""
		}
		obj = m[key]
	}
	switch x := obj.(type) {
	case json.Number:
		return x.String()
	case string:
		if idField != ".SessionID" && !shellIDText.MatchString(x) {
			return "" // a text that shows the id among other words, not the id
		}
		return x
	}
	return ""
}

// shellIDText is what a background shell's id looks like: a uuid, a number, a word.
var shellIDText = lazyRegexp(`^[\w.-]+$`)

// templateNames reports whether a result case's text or one of its fields names a data field.
func templateNames(sh spec.Shape, field string) bool {
	if sh.Text != nil {
		return strings.Contains(*sh.Text, field)
	}
	return fieldPath(sh.Fields, func(f spec.Field) bool { return strings.Contains(f.Value, field) }) != nil
}

// fieldPath finds the path of the first field (through objects) that match accepts.
func fieldPath(fields []spec.Field, match func(spec.Field) bool) []string {
	for _, f := range fields {
		if f.Type == spec.TypeObject {
			if p := fieldPath(f.Fields, match); p != nil {
				return append([]string{f.Name}, p...)
			}
			continue
		}
		if match(f) {
			return []string{f.Name}
		}
	}
	return nil
}
