package spec

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Site is one place where a tool can fail: a check, a timeout or working-directory rule, a policy, the
// background registry, an undecodable output, or a result case that raises. Failure says how it reaches the
// host: raised as an error of class Failure.Type, or rendered as the result case Failure.Result.
type Site struct {
	// Tool is the tool that fails.
	Tool string
	// When says what happened, in words: "bash gets no command".
	When string
	// Pointer is where the spec says it (a JSON pointer: /tools/0/checks/0/fail).
	Pointer string
	// Failure is the failure (after Complete, never nil).
	Failure *Failure
}

// Raises reports whether the failure is raised as an error rather than rendered as a result.
func (s Site) Raises() bool { return s.Failure.Type != "" }

// Failures lists every place any tool of the variant can fail, tool by tool in spec order; the variant must
// be complete (defaults filled, so the runtime's own failures are listed too).
func (v *Variant) Failures() []Site {
	var out []Site
	add := func(t *Tool, when, ptr string, f *Failure) {
		if f != nil {
			out = append(out, Site{Tool: t.Name, When: when, Pointer: ptr, Failure: f})
		}
	}
	for i := range v.Tools {
		t := &v.Tools[i]
		tp := "/tools/" + strconv.Itoa(i)
		add(t, t.Name+" gets a parameter of the wrong type, or misses a required one", tp+"/invalid_param", t.InvalidParam)
		add(t, t.Name+" gets a parameter it does not declare", tp+"/unknown_params", t.UnknownParams)
		for j := range t.Params {
			p := &t.Params[j]
			for _, jt := range slices.Sorted(maps.Keys(p.OnType)) {
				o := p.OnType[jt]
				op := tp + "/params/" + strconv.Itoa(j) + "/on_type/" + jt
				add(t, fmt.Sprintf("%s gets %s of JSON type %s", t.Name, p.Name, jt), op+"/fail", o.Fail)
				add(t, fmt.Sprintf("%s gets %s as an array with an element that is not a string", t.Name, p.Name), op+"/element_fail", o.ElementFail)
			}
		}
		for _, rs := range v.runtimeSites(t, tp) {
			add(t, rs.When, rs.Pointer, rs.Failure)
		}
		if ws := t.Workspaces; ws != nil {
			add(t, t.Name+" names a workspace that is not configured", tp+"/workspaces/unknown", ws.Unknown)
			add(t, t.Name+" names no workspace where several are configured", tp+"/workspaces/ambiguous", ws.Ambiguous)
		}
		for j := range t.Checks {
			ch := &t.Checks[j]
			cp := tp + "/checks/" + strconv.Itoa(j)
			switch {
			case ch.Required != "":
				add(t, fmt.Sprintf("%s gets no %s", t.Name, ch.Required), cp+"/fail", ch.Fail)
			case ch.NotEmpty != "":
				add(t, fmt.Sprintf("%s gets an empty %s", t.Name, ch.NotEmpty), cp+"/fail", ch.Fail)
			case ch.NotBlank != "":
				add(t, fmt.Sprintf("%s gets a blank %s", t.Name, ch.NotBlank), cp+"/fail", ch.Fail)
			case ch.Policy != "":
				for k := range v.Policies {
					if p := &v.Policies[k]; p.Name == ch.Policy {
						add(t, fmt.Sprintf("%s's policy %s blocks a command", t.Name, p.Name), "/policies/"+strconv.Itoa(k)+"/fail", p.Fail)
					}
				}
			}
		}
		if tm := t.Timeout; tm != nil {
			add(t, t.Name+" gets a timeout out of range", tp+"/timeout/fail", tm.Fail)
		}
		if w := t.Workdir; w != nil {
			add(t, t.Name+" gets a relative working directory", tp+"/workdir/absolute", w.Absolute)
			add(t, t.Name+" gets a working directory outside the workspace", tp+"/workdir/confine", w.Confine)
			add(t, t.Name+" gets a working directory that does not exist", tp+"/workdir/must_exist", w.MustExist)
			add(t, t.Name+" gets a working directory that is not a directory", tp+"/workdir/must_be_dir", w.MustBeDir)
		}
		if o := t.Output; o != nil {
			add(t, t.Name+" reads output that does not decode", tp+"/output/decode_error", o.DecodeError)
		}
		if b := v.Background; b != nil {
			if t.Kind == KindPoll || t.Kind == KindKill {
				add(t, t.Name+" gets a shell id that is not known", "/background/unknown_id", b.UnknownID)
			}
			if t.Kind == KindExec && (t.Param(RoleBackground) != nil || (t.Timeout != nil && t.Timeout.Expiry == ExpiryBackground)) {
				add(t, t.Name+" would run more background processes than the limit", "/background/limit_error", b.LimitError)
			}
		}
		if ss := v.Sessions; ss != nil {
			switch t.Kind {
			case KindSessionStart:
				if ss.OnFull == OnFullPrune {
					break // a full registry prunes: nothing fails
				}
				add(t, t.Name+" would hold more sessions than the limit", "/sessions/limit_error", ss.LimitError)
			case KindSessionWrite, KindSessionRead, KindSessionKill:
				if st := t.Session; st != nil && st.UnknownID != nil {
					add(t, t.Name+" gets a session id that is not known", tp+"/session/unknown_id", st.UnknownID)
				} else {
					add(t, t.Name+" gets a session id that is not known", "/sessions/unknown_id", ss.UnknownID)
				}
			}
			if t.Kind == KindSessionWrite {
				add(t, t.Name+" writes to a session whose stdin is closed", "/sessions/stdin_closed", ss.StdinClosed)
			}
		}
		for _, o := range t.Outcomes() {
			sh := t.Results.Cases[o]
			if sh.Raise == nil {
				continue
			}
			when := fmt.Sprintf("%s ends with outcome %s", t.Name, o)
			if o == OutcomeSpawnError {
				when = t.Name + " cannot start its shell"
			} else if errno, ok := strings.CutPrefix(string(o), string(OutcomeSpawnError)+"."); ok {
				when = fmt.Sprintf("%s cannot start its shell (%s)", t.Name, errno)
			}
			add(t, when, tp+"/results/cases/"+escapePointer(string(o))+"/raise", sh.Raise)
		}
		for _, s := range t.batchSites(tp) {
			add(t, s.When, s.Pointer, s.Failure)
		}
	}
	if f := v.UnknownTool; f != nil {
		out = append(out, Site{When: "a call names a tool the variant does not have", Pointer: "/unknown_tool", Failure: f})
	}
	return out
}

// ErrorType is one error class a variant raises, with every place that raises it.
type ErrorType struct {
	// Name is the class name (ValueError, ModelRetry, ToolError).
	Name string
	// GoName is the Go type a generated adapter gives it.
	GoName string
	// Sites are the places that raise it, in Failures order.
	Sites []Site
}

// ErrorTypes lists the error classes the variant raises, sorted by name.
func (v *Variant) ErrorTypes() []ErrorType {
	byName := map[string]*ErrorType{}
	var names []string
	for _, s := range v.Failures() {
		if !s.Raises() {
			continue
		}
		et := byName[s.Failure.Type]
		if et == nil {
			et = &ErrorType{Name: s.Failure.Type, GoName: GoName(s.Failure.Type)}
			byName[et.Name] = et
			names = append(names, et.Name)
		}
		et.Sites = append(et.Sites, s)
	}
	slices.Sort(names)
	out := make([]ErrorType, len(names))
	for i, n := range names {
		out[i] = *byName[n]
	}
	return out
}
