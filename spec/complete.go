package spec

import "time"

// Defaults the loader fills in for what a spec leaves out.
const (
	// DefaultGrace is Shell.Grace when the spec gives none (or 0).
	DefaultGrace = 500 * time.Millisecond
	// DefaultRetain is Background.Retain when the spec gives none.
	DefaultRetain = 100
	// DefaultMaxLive is Background.MaxLive when the spec gives none: the registry is always bounded.
	DefaultMaxLive = 64
)

// The failures the runtime raises when a spec does not name its own.
var (
	// DefaultInvalidParam is Tool.InvalidParam when the spec gives none.
	DefaultInvalidParam = Failure{Type: "ValidationError", Message: "invalid parameter {{.Param}}: {{.Problem}}"}
	// DefaultPolicyFail is Policy.Fail when the spec gives none.
	DefaultPolicyFail = Failure{Type: "PolicyError", Message: "{{.Message}}"}
	// DefaultUnknownID is Background.UnknownID when the spec gives none.
	DefaultUnknownID = Failure{Type: "ToolError", Message: "unknown shell_id: {{.ID}}"}
	// DefaultLimitError is Background.LimitError when the spec gives none.
	DefaultLimitError = Failure{Type: "ToolError", Message: "background limit reached"}
	// DefaultSpawnError is the spawn_error case of an exec tool that has none: the spawn error is raised.
	DefaultSpawnError = Failure{Type: "OSError", Message: "{{.Message}}"}
)

// Complete makes a variant the normalized model every other package reads: it runs the semantic checks,
// fills every default (tool kinds, roles, grace, decoding, failures, ...) and derives the Go model of each
// tool (the names and result types a generated adapter uses), failing on what a generated adapter could not
// express. Load and Parse call it; a host that builds a Variant in Go calls it (runtime.New does) before
// reading the variant. It is idempotent: a completed variant is returned as it is.
func (v *Variant) Complete() error {
	if v.completed {
		return nil
	}
	if errs := v.check(); len(errs) > 0 {
		return errs
	}
	v.fillDefaults()
	if errs := v.deriveGo(); len(errs) > 0 {
		return errs
	}
	v.completed = true
	return nil
}

// Completed reports whether Complete has succeeded on v.
func (v *Variant) Completed() bool { return v.completed }

func (v *Variant) fillDefaults() {
	if v.Shell.Grace == 0 {
		v.Shell.Grace = Duration(DefaultGrace)
	}
	if v.Shell.SignalExit == "" {
		v.Shell.SignalExit = SignalNegative
	}
	if r := v.Redact; r != nil {
		for i := range r.Rules {
			if r.Rules[i].Replace == "" {
				r.Rules[i].Replace = "[REDACTED:{{.Name}}]"
			}
		}
	}
	for i := range v.Policies {
		p := &v.Policies[i]
		if p.Fail == nil {
			f := DefaultPolicyFail
			p.Fail = &f
		} else if p.Fail.Message == "" {
			p.Fail.Message = DefaultPolicyFail.Message
		}
		p.fillDefaults()
	}
	if b := v.Background; b != nil {
		if b.Poll == "" {
			b.Poll = PollAll
		}
		if b.Retain <= 0 {
			b.Retain = DefaultRetain
		}
		if b.MaxLive <= 0 {
			b.MaxLive = DefaultMaxLive
		}
		if b.UnknownID == nil {
			f := DefaultUnknownID
			b.UnknownID = &f
		}
		if b.LimitError == nil {
			f := DefaultLimitError
			b.LimitError = &f
		}
	}
	if s := v.Sessions; s != nil {
		s.fillDefaults()
	}
	for i := range v.Tools {
		v.Tools[i].fillDefaults()
	}
}

// kind is the tool's kind, exec when the spec gives none: what fillDefaults fills, and what the checks
// (which run before it) read.
func (t *Tool) kind() Kind {
	if t.Kind == "" {
		return KindExec
	}
	return t.Kind
}

func (t *Tool) fillDefaults() {
	t.Kind = t.kind()
	t.fillCoerce()
	if t.NullParams == "" {
		t.NullParams = NullAbsent
	}
	if t.InvalidParam == nil {
		f := DefaultInvalidParam
		t.InvalidParam = &f
	}
	for i := range t.Params {
		if t.Params[i].Role == "" {
			t.Params[i].Role = RoleNone
		}
	}
	if tm := t.Timeout; tm != nil {
		if tm.OnNull == "" {
			tm.OnNull = OnNullDefault
		}
		if tm.NonPositive == "" {
			tm.NonPositive = NonPositiveExpire
		}
	}
	if t.Output == nil {
		t.Output = &Output{}
	}
	o := t.Output
	if o.Capture == "" {
		o.Capture = CaptureSeparate
	}
	if o.Decode == "" {
		o.Decode = DecodeReplace
	}
	if o.Newlines == "" {
		o.Newlines = NewlinesKeep
	}
	o.Truncate.fillDefaults()
	if o.Budget != nil {
		o.Budget.fillDefaults()
	}
	o.Spill.fillDefaults()
	if t.Session != nil {
		t.Session.fillDefaults()
	}
	if t.Wait != nil && t.Wait.Unit == "" {
		t.Wait.Unit = Milliseconds
	}
	t.Results.Spill.fillDefaults()
	for name, sh := range t.Results.Cases {
		if sh.Truncate != nil {
			sh.Truncate.fillDefaults()
			t.Results.Cases[name] = sh
		}
	}
	if t.Kind == KindExec || t.Kind == KindSessionStart {
		if _, ok := t.Results.Cases[OutcomeSpawnError]; !ok {
			f := DefaultSpawnError
			t.Results.Cases[OutcomeSpawnError] = Shape{Raise: &f}
		}
	}
	t.fillAPIDefaults()
}

func (tr *Truncate) fillDefaults() {
	if tr == nil {
		return
	}
	switch {
	case tr.Keep == KeepHead && tr.Head == 0:
		tr.Head = tr.Limit
	case tr.Keep == KeepTail && tr.Tail == 0:
		tr.Tail = tr.Limit
	}
	if tr.CutDecode == "" {
		tr.CutDecode = CutReplace
	}
}
