package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// Option configures a run.
type Option func(*options)

type options struct {
	trusted  bool
	filter   func(Case) bool
	deadline time.Duration
	extra    []Case
	refOpts  []runtime.Option
	dir      string
}

// Trusted sends the cases that carry a Hazard (policy examples a policy blocks, as written) to the target
// too. Use it only for a target known to check its policies before anything could run a command, such as
// `agentbash target`; without it those cases are skipped on every target but InProcess.
func Trusted() Option { return func(o *options) { o.trusted = true } }

// Filter runs only the cases for which keep returns true.
func Filter(keep func(Case) bool) Option { return func(o *options) { o.filter = keep } }

// Deadline sets the time a target has to answer each request (default: the case's MaxElapsed plus 10 s);
// past it the case fails and a wire target is killed.
func Deadline(d time.Duration) Option { return func(o *options) { o.deadline = d } }

// WithCases adds cases of one's own after the derived ones.
func WithCases(cs ...Case) Option {
	return func(o *options) { o.extra = append(o.extra, cs...) }
}

// Reference passes runtime options to the reference engines (for example WithEnv, or WithShell for a
// host whose shell differs).
func Reference(opts ...runtime.Option) Option {
	return func(o *options) { o.refOpts = append(o.refOpts, opts...) }
}

// TempDir makes the run's workspaces under dir instead of the system's temporary directory.
func TempDir(dir string) Option { return func(o *options) { o.dir = dir } }

// session is one run: the target open, a root for the workspaces, a counter for them.
type session struct {
	v       *spec.Variant
	target  Target
	conn    Conn
	o       options
	root    string
	n       int
	trusted bool
	cases   []Case
	started time.Time
}

func open(ctx context.Context, v *spec.Variant, target Target, opts []Option) (*session, error) {
	s := &session{v: v, target: target, started: time.Now()}
	for _, o := range opts {
		o(&s.o)
	}
	// The spec must compile for the reference to run at all.
	probe, err := runtime.New(v, s.o.refOpts...)
	if err != nil {
		return nil, fmt.Errorf("conformance: the reference cannot run %s: %w", v.ID, err)
	}
	probe.Close()
	for _, c := range append(Cases(v), s.o.extra...) {
		if s.o.filter == nil || s.o.filter(c) {
			s.cases = append(s.cases, c)
		}
	}
	if t, ok := target.(Trusting); ok && t.ChecksPoliciesFirst() {
		s.trusted = true
	}
	s.trusted = s.trusted || s.o.trusted
	s.root, err = os.MkdirTemp(s.o.dir, "agentbash-conformance-")
	if err != nil {
		return nil, err
	}
	// Resolve the root, so that the workspaces' paths and their resolved forms are the same length.
	if r, err := filepath.EvalSymlinks(s.root); err == nil {
		s.root = r
	}
	s.conn, err = target.Open(ctx)
	if err != nil {
		os.RemoveAll(s.root)
		return nil, fmt.Errorf("conformance: opening %s: %w", target.Name(), err)
	}
	return s, nil
}

func (s *session) close() error {
	err := s.conn.Close()
	os.RemoveAll(s.root)
	return err
}

// format is a tool's result format.
func (s *session) format(tool string) string {
	if t := s.v.Tool(tool); t != nil {
		return string(t.Results.Format)
	}
	return ""
}

func (s *session) report() *Report {
	return &Report{Variant: s.v.ID, Target: s.target.Name()}
}

// Check runs every case of v (as Cases derives them, filtered and extended by the options) on the
// reference and on the target, and reports. The error is for a run that could not start: a spec the
// runtime cannot compile, a target that cannot be started.
func Check(ctx context.Context, v *spec.Variant, target Target, opts ...Option) (*Report, error) {
	s, err := open(ctx, v, target, opts)
	if err != nil {
		return nil, err
	}
	r := s.report()
	for _, c := range s.cases {
		if ctx.Err() != nil {
			break
		}
		r.add(s.run(ctx, c))
	}
	if err := s.close(); err != nil {
		r.CloseError = err.Error()
	}
	r.ElapsedMS = time.Since(s.started).Milliseconds()
	return r, nil
}

// Run runs every case of v on the reference and on target as subtests of t (in order: a target answers
// one call at a time), failing each case whose answer or properties differ, skipping the cases not sent.
// It returns the report.
func Run(t *testing.T, v *spec.Variant, target Target, opts ...Option) *Report {
	t.Helper()
	ctx := t.Context()
	s, err := open(ctx, v, target, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := s.report()
	for _, c := range s.cases {
		t.Run(c.Name, func(t *testing.T) {
			res := s.run(ctx, c)
			r.add(res)
			switch res.Status {
			case Skip:
				t.Skip(res.Reason)
			case Fail:
				t.Error(failureText(res))
			}
		})
	}
	if err := s.close(); err != nil {
		r.CloseError = err.Error()
		t.Errorf("closing %s: %v", target.Name(), err)
	}
	r.ElapsedMS = time.Since(s.started).Milliseconds()
	return r
}

func failureText(res Result) string {
	var parts []string
	if len(res.Params) > 0 {
		parts = append(parts, "params: "+clip(string(res.Params), 300))
	}
	for _, p := range []string{res.Reason, res.Diff} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	parts = append(parts, res.Problems...)
	return strings.Join(parts, "\n")
}

// side is one run of a case: the reference's or the target's.
type side struct {
	ws      string
	params  json.RawMessage
	ans     Answer
	err     error
	elapsed time.Duration
	left    []string // processes left running in the workspace
}

// run runs one case on both sides and judges it.
func (s *session) run(ctx context.Context, c Case) Result {
	res := Result{Case: c.Name, Tool: c.Tool}
	if c.Hazard != "" && !s.trusted {
		res.Status = Skip
		res.Reason = "not sent: " + c.Hazard + " (send it only to a target that checks policies first: Trusted, -trusted)"
		return res
	}
	s.n++
	ref := &side{ws: filepath.Join(s.root, fmt.Sprintf("r%04d", s.n))}
	tgt := &side{ws: filepath.Join(s.root, fmt.Sprintf("t%04d", s.n))}
	defer os.RemoveAll(ref.ws)
	defer os.RemoveAll(tgt.ws)
	for _, sd := range []*side{ref, tgt} {
		if err := setup(sd.ws, c.Setup); err != nil {
			res.Status, res.Reason = Fail, "setting up the workspace: "+err.Error()
			return res
		}
	}
	params := c.Params
	if c.Size != nil {
		probe := filepath.Join(s.root, fmt.Sprintf("p%04d", s.n))
		defer os.RemoveAll(probe)
		p, err := s.calibrate(ctx, c, probe)
		if err != nil {
			res.Status, res.Reason = Fail, "calibrating the output size on the reference: "+err.Error()
			return res
		}
		params = p
	}
	ref.params, tgt.params = withWorkspace(params, ref.ws), withWorkspace(params, tgt.ws)
	res.Params = tgt.params

	deadline := s.o.deadline
	if deadline == 0 {
		deadline = c.MaxElapsed + 10*time.Second
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		cctx, cancel := context.WithTimeout(ctx, deadline)
		defer cancel()
		eng, err := runtime.New(s.v, append(append([]runtime.Option(nil), s.o.refOpts...), runtime.WithWorkspace(ref.ws))...)
		if err != nil {
			ref.err = err
			return
		}
		start := time.Now()
		ref.ans, ref.err = answerOf(eng.Call(cctx, c.Tool, ref.params))
		ref.elapsed = time.Since(start)
		if c.NoSurvivors {
			ref.left = survivors(ref.ws)
		}
		eng.Close()
	})
	wg.Go(func() {
		cctx, cancel := context.WithTimeout(ctx, deadline)
		defer cancel()
		start := time.Now()
		tgt.ans, tgt.err = s.conn.Call(cctx, Request{Tool: c.Tool, Params: tgt.params, Workspace: tgt.ws, Format: s.format(c.Tool)})
		tgt.elapsed = time.Since(start)
		if c.NoSurvivors && tgt.err == nil {
			var own []int
			if o, ok := s.conn.(ownProcesses); ok {
				own = o.ownPIDs()
			}
			tgt.left = survivors(tgt.ws, own...)
		}
	})
	wg.Wait()
	res.ElapsedMS = tgt.elapsed.Milliseconds()

	if ref.err != nil {
		res.Status, res.Reason = Fail, "the reference gave no answer: "+ref.err.Error()
		return res
	}
	if tgt.err != nil {
		res.Status, res.Reason = Fail, "no answer: "+tgt.err.Error()
		return res
	}
	want := NewMasker(ref.ws).Answer(ref.ans)
	got := NewMasker(tgt.ws).Answer(tgt.ans)
	res.Diff = Compare(want, got)
	for _, sd := range []struct {
		who string
		sd  *side
	}{{"reference: ", ref}, {"", tgt}} {
		if sd.sd.elapsed > c.MaxElapsed {
			res.Problems = append(res.Problems, fmt.Sprintf("%stook %s, more than the %s allowed", sd.who,
				sd.sd.elapsed.Round(time.Millisecond), c.MaxElapsed))
		}
		for _, p := range sd.sd.left {
			res.Problems = append(res.Problems, sd.who+"left a process running in the workspace: "+p)
		}
	}
	res.Status = Pass
	if res.Diff != "" || len(res.Problems) > 0 {
		res.Status = Fail
		res.Want, res.Got = shown(want), shown(got)
	}
	return res
}

// calibrate chooses a sized case's count: it runs the reference on a probe workspace with a small count,
// measures the rendered result, and returns the parameters whose result will be Size.Want units long.
func (s *session) calibrate(ctx context.Context, c Case, probe string) (json.RawMessage, error) {
	const small = 16
	if err := setup(probe, c.Setup); err != nil {
		return nil, err
	}
	eng, err := runtime.New(s.v, append(append([]runtime.Option(nil), s.o.refOpts...), runtime.WithWorkspace(probe))...)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	res, err := eng.Call(ctx, c.Tool, withWorkspace(withCount(c.Params, small), probe))
	if err != nil {
		return nil, err
	}
	var text string
	if err := json.Unmarshal(res, &text); err != nil {
		return nil, fmt.Errorf("sized cases need a text result: %w", err)
	}
	length := len(text)
	if c.Size.Unit == "chars" {
		length = utf8.RuneCountInString(text)
	}
	count := small + c.Size.Want - length
	if count < 0 {
		return nil, fmt.Errorf("the result without output is %d %s, longer than %d", length-small-c.Size.Fixed, c.Size.Unit, c.Size.Want)
	}
	return withCount(c.Params, count), nil
}

// withCount puts a count in a sized case's parameters, right-aligned so that its width does not vary.
func withCount(params json.RawMessage, n int) json.RawMessage {
	return json.RawMessage(strings.ReplaceAll(string(params), countToken, fmt.Sprintf("%*d", countWidth, n)))
}

// withWorkspace replaces WorkspaceToken (as is, or with JSON's HTML escapes) by the path, JSON-escaped.
func withWorkspace(params json.RawMessage, ws string) json.RawMessage {
	q, _ := json.Marshal(ws)
	esc := strings.Trim(string(q), `"`)
	s := strings.ReplaceAll(string(params), WorkspaceToken, esc)
	s = strings.ReplaceAll(s, `\u003cWORKSPACE\u003e`, esc)
	return json.RawMessage(s)
}

// setup makes the workspace and its entries.
func setup(ws string, entries []Entry) error {
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if e.Path == "" || filepath.IsAbs(e.Path) || strings.Contains(e.Path, "..") {
			return fmt.Errorf("entry path %q must be relative and stay in the workspace", e.Path)
		}
		p := filepath.Join(ws, filepath.FromSlash(e.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		var err error
		switch {
		case e.Dir:
			err = os.MkdirAll(p, 0o755)
		case e.Symlink != "":
			err = os.Symlink(e.Symlink, p)
		default:
			err = os.WriteFile(p, []byte(e.Content), 0o644)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
