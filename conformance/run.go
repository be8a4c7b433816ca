package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentbash/agentbash/conformance/cases"
	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// Option configures a run.
type Option func(*options)

type options struct {
	trusted  bool
	filter   func(Case) bool
	skip     func(Case) bool
	deadline time.Duration
	parallel int
	tools    map[string]string
	onResult func(Result)
	baseline *Baseline
	scale    float64
	refOpts  []runtime.Option
	startup  time.Duration
}

// Trusted sends the cases that carry a Hazard (commands a policy blocks, as written) to the target too.
// Use it only for a target known to check its policies before anything could run a command, such as
// `agentbash serve`; without it those cases are skipped on every target but InProcess.
func Trusted() Option { return func(o *options) { o.trusted = true } }

// Filter runs only the cases for which keep returns true; the others are not listed.
func Filter(keep func(Case) bool) Option { return func(o *options) { o.filter = keep } }

// Exclude leaves out the cases for which drop returns true (`-skip`); they are not listed.
func Exclude(drop func(Case) bool) Option { return func(o *options) { o.skip = drop } }

// Deadline sets the time a target has to answer each request (default: the case's MaxElapsed plus 10 s);
// past it the case fails and a wire target is killed.
func Deadline(d time.Duration) Option { return func(o *options) { o.deadline = d } }

// Parallel runs up to n cases at once (default 1), each on its own workspaces: the target then has up to n
// requests in flight and must match answers by id. Ignored for a target that serves one workspace.
func Parallel(n int) Option { return func(o *options) { o.parallel = n } }

// ToolNames maps the spec's tool names to the target's, for a target that names a tool differently
// (`-tool bash=run_command`).
func ToolNames(m map[string]string) Option { return func(o *options) { o.tools = m } }

// OnResult is called with each case's result as soon as it is judged (from the goroutine that ran it).
func OnResult(f func(Result)) Option { return func(o *options) { o.onResult = f } }

// WithBaseline judges the run against expected failures: a listed case that fails is an expected failure
// (status xfail), a listed case that passes fails as stale, an unlisted failure fails as before.
func WithBaseline(b *Baseline) Option { return func(o *options) { o.baseline = b } }

// TimeScale multiplies every case's time bound (and so its deadline) by f, for a machine slower than the
// bounds assume (a loaded CI runner, a race-detector build): the bounds are there to catch a target that
// hangs, not to time it.
func TimeScale(f float64) Option { return func(o *options) { o.scale = f } }

// Reference adds runtime options to the reference's engines (`agentbash conformance -executor docker`: the
// reference runs its commands in containers, to compare in-container behaviour). Cases whose command
// would do harm (a Hazard) still run on an executor that starts nothing (executor.go).
func Reference(opts ...runtime.Option) Option {
	return func(o *options) { o.refOpts = append(o.refOpts, opts...) }
}

// StartupDeadline bounds a target's start-up for a case (an MCP stdio server started and past its
// initialize handshake, a model target's host asking the model; default 2 minutes), apart from the case's own time bound, which runs from its first
// tools/call: a server that takes seconds to start does not fail a case on time.
func StartupDeadline(d time.Duration) Option { return func(o *options) { o.startup = d } }

// DefaultStartupDeadline is the StartupDeadline when none is given.
const DefaultStartupDeadline = 2 * time.Minute

// Session is one run of the suite against a target: the target open, a root for the workspaces, the cases.
// Check runs a whole session; conformancetest runs one case per subtest with it.
type Session struct {
	v       *spec.Variant
	target  Target
	conn    target.Conn
	caps    target.Capabilities
	o       options
	root    string
	trusted bool
	cases   []Case
	started time.Time
	fixedWS string
	beside  bool // the reference's workspaces are made beside fixedWS (Capabilities.BesideWorkspace)

	mu     sync.Mutex
	n      int
	report *Report
}

// Open starts a session: it checks that the reference can run v, derives the cases and opens the target.
func Open(ctx context.Context, v *spec.Variant, target Target, opts ...Option) (*Session, error) {
	s := &Session{v: v, target: target, started: time.Now()}
	for _, o := range opts {
		o(&s.o)
	}
	if s.o.parallel < 1 {
		s.o.parallel = 1
	}
	// The spec must compile for the reference to run at all.
	probe, err := runtime.New(v)
	if err != nil {
		return nil, fmt.Errorf("conformance: the reference cannot run %s: %w", v.ID, err)
	}
	probe.Close()
	for _, c := range cases.Cases(v) {
		if s.o.scale > 0 {
			c.MaxElapsed = time.Duration(float64(c.MaxElapsed) * s.o.scale)
		}
		if (s.o.filter == nil || s.o.filter(c)) && (s.o.skip == nil || !s.o.skip(c)) {
			s.cases = append(s.cases, c)
		}
	}
	s.root, err = os.MkdirTemp("", "agentbash-conformance-")
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
	s.caps = s.conn.Capabilities()
	s.trusted = s.caps.ChecksPoliciesFirst || s.o.trusted
	if s.caps.FixedWorkspace != "" {
		s.fixedWS = s.caps.FixedWorkspace
		s.o.parallel = 1
		s.beside = s.caps.BesideWorkspace
	}
	s.report = &Report{Variant: v.ID, Target: target.Name()}
	if s.fixedWS != "" && !s.beside {
		if err := s.checkWorkspace(ctx); err != nil {
			s.conn.Close()
			os.RemoveAll(s.root)
			return nil, err
		}
	}
	if s.fixedWS != "" && len(s.fixedWS) < len(s.workspace(1, 'r')) {
		s.report.Warnings = append(s.report.Warnings, fmt.Sprintf("the target's workspace %s is shorter than the reference's %s: a result that shows the path and is cut at a limit may be cut elsewhere (serve a longer path)",
			s.fixedWS, s.workspace(1, 'r')))
	}
	return s, nil
}

// Cases are the cases the session runs, in order.
func (s *Session) Cases() []Case { return s.cases }

// Close ends the target and the session and returns the report: every result in case order, the
// groups, the features exercised, the target's warnings, and the baseline's verdict.
func (s *Session) Close() *Report {
	r := s.report
	if err := s.conn.Close(); err != nil {
		r.CloseError = err.Error()
	}
	if s.caps.Warnings != nil {
		r.Warnings = s.caps.Warnings() // after Close: what the target did as it ended counts
	}
	os.RemoveAll(s.root)
	order := map[string]int{}
	for i, c := range s.cases {
		order[c.Name] = i
	}
	slices.SortStableFunc(r.Results, func(a, b Result) int { return order[a.Case] - order[b.Case] })
	r.summarize(s.v)
	if s.o.baseline != nil {
		r.Stale = s.o.baseline.stale(cases.Cases(s.v))
	}
	r.ElapsedMS = time.Since(s.started).Milliseconds()
	return r
}

// Check runs every case of v (as cases.Cases derives them, filtered by the options) on the
// reference and on the target, and reports. The error is for a run that could not start: a spec the
// runtime cannot compile, a target that cannot be started.
func Check(ctx context.Context, v *spec.Variant, target Target, opts ...Option) (*Report, error) {
	s, err := Open(ctx, v, target, opts...)
	if err != nil {
		return nil, err
	}
	sem := make(chan struct{}, s.o.parallel)
	var wg sync.WaitGroup
	for _, c := range s.cases {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			s.Run(ctx, c)
		})
	}
	wg.Wait()
	return s.Close(), nil
}

// format is a tool's result format.
func (s *Session) format(tool string) string {
	if t := s.v.Tool(tool); t != nil {
		return string(t.Results.Format)
	}
	return ""
}

// side is one run of a case: the reference's or the target's.
type side struct {
	ws      string
	params  json.RawMessage
	answers []target.Answer   // one per call (a case with steps makes several)
	sent    []json.RawMessage // the parameters of each call
	err     error
	elapsed time.Duration
	left    []string // processes left running in the workspace
}

// Run runs one case on both sides, judges it, records the result in the report and returns it. It is
// safe for concurrent use when the session is Parallel.
func (s *Session) Run(ctx context.Context, c Case) Result {
	res := s.run(ctx, c)
	if s.o.baseline != nil {
		res = s.o.baseline.judge(res)
	}
	s.mu.Lock()
	s.report.add(res)
	s.mu.Unlock()
	if s.o.onResult != nil {
		s.o.onResult(res)
	}
	return res
}

func (s *Session) run(ctx context.Context, c Case) Result {
	res := Result{Case: c.Name, Tool: c.Tool, Group: c.Group}
	if c.Skip != "" {
		res.Status, res.Reason = Skip, c.Skip
		return res
	}
	if c.Hazard != "" && !s.trusted {
		res.Status = Skip
		res.Reason = "not sent: " + c.Hazard + " (send it only to a target that checks policies first: Trusted, -trusted)"
		return res
	}
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	// Each case has its own directory of workspaces, so that what a command sees of the workspace's parent
	// (ls -la ..) does not depend on the cases running beside it.
	ref := &side{ws: s.workspace(n, 'r')}
	tgt := &side{ws: s.workspace(n, 't')}
	defer os.RemoveAll(s.caseDir(n))
	if s.fixedWS != "" {
		if c.OwnWorkspace {
			res.Status, res.Reason = Skip, "the target serves one workspace of its own, and the case names the workspace"
			return res
		}
		tgt.ws = s.fixedWS
		if err := emptyDir(tgt.ws); err != nil {
			res.Status, res.Reason = Fail, "emptying the target's workspace: "+err.Error()
			return res
		}
	} else {
		defer os.RemoveAll(tgt.ws)
	}
	defer os.RemoveAll(ref.ws)
	for _, sd := range []*side{ref, tgt} {
		if err := setup(sd.ws, c.Setup); err != nil {
			res.Status, res.Reason = Fail, "setting up the workspace: "+err.Error()
			return res
		}
	}
	if err := s.resetWorkspaces(ref.ws, tgt.ws); err != nil {
		res.Status, res.Reason = Fail, "setting up the workspace: "+err.Error()
		return res
	}
	defer s.resetWorkspaces(ref.ws, tgt.ws)
	params := c.Params
	if c.Size != nil {
		probe := s.workspace(n, 'p')
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
	res.Features = c.AllFeatures()
	var before []int
	if s.fixedWS != "" {
		before = pidsIn(tgt.ws)
	}

	deadline := s.o.deadline
	if deadline == 0 {
		deadline = c.MaxElapsed + 10*time.Second
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		cctx, cancel := context.WithTimeout(ctx, deadline)
		defer cancel()
		opts, refused := s.referenceOptions(c, ref.ws)
		eng, err := runtime.New(s.v, opts...)
		if err != nil {
			ref.err = err
			return
		}
		start := time.Now()
		ref.answers, ref.sent, ref.err = s.play(cctx, c, ref.params, ref.ws, func(ctx context.Context, tool string, params json.RawMessage) (target.Answer, error) {
			return target.AnswerOf(eng.Call(ctx, tool, params))
		}, nil)
		ref.elapsed = time.Since(start)
		if err := refused(); err != nil && ref.err == nil {
			ref.err = err
		}
		if c.NoSurvivors {
			ref.left = survivors(ref.ws)
		}
		eng.Close()
	})
	var endProblems []string
	wg.Go(func() {
		if s.caps.Prepare != nil {
			startup := s.o.startup
			if startup <= 0 {
				startup = DefaultStartupDeadline
			}
			pctx, cancel := context.WithTimeout(ctx, startup)
			err := s.caps.Prepare(pctx, tgt.ws)
			cancel()
			if err != nil {
				tgt.err = fmt.Errorf("the target did not start for the case (start-up bound %s): %w", startup, err)
			}
		}
		if tgt.err == nil {
			cctx, cancel := context.WithTimeout(ctx, deadline)
			start := time.Now()
			request := func(name string, params json.RawMessage) target.Request {
				format := s.format(name)
				if to, ok := s.o.tools[name]; ok {
					name = to // the target's name for the spec's tool
				}
				return target.Request{Tool: name, Params: params, Workspace: tgt.ws, Format: format, Case: c.Name, Hazard: c.Hazard != ""}
			}
			var many func(ctx context.Context, name string, params json.RawMessage, n int) ([]target.Answer, error)
			if s.caps.CallParallel != nil {
				many = func(ctx context.Context, name string, params json.RawMessage, n int) ([]target.Answer, error) {
					reqs := make([]target.Request, n)
					for k := range reqs {
						reqs[k] = request(name, params)
					}
					return s.caps.CallParallel(ctx, reqs)
				}
			}
			tgt.answers, tgt.sent, tgt.err = s.play(cctx, c, tgt.params, tgt.ws, func(ctx context.Context, name string, params json.RawMessage) (target.Answer, error) {
				return s.conn.Call(ctx, request(name, params))
			}, many)
			tgt.elapsed = time.Since(start)
			cancel()
		}
		// Whatever the answer, nothing the case started is left behind: what runs in its workspace is
		// killed (and reported, for a case that asks for no survivors), then the conn ends what it holds
		// for the workspace (an MCP server and every process it started).
		own := before
		if s.caps.OwnPIDs != nil {
			own = append(own, s.caps.OwnPIDs()...)
		}
		left := killSurvivors(tgt.ws, own...)
		if c.NoSurvivors {
			tgt.left = left
		}
		if s.caps.EndCase != nil {
			for _, p := range s.caps.EndCase(tgt.ws) {
				if !c.NoSurvivors && strings.HasPrefix(p, "left a process running") {
					continue
				}
				endProblems = append(endProblems, p)
			}
		}
	})
	wg.Wait()
	res.ElapsedMS = tgt.elapsed.Milliseconds()

	if ref.err != nil {
		res.Status, res.Reason = Fail, "the reference gave no answer: "+ref.err.Error()
		res.Problems = append(res.Problems, endProblems...)
		res.Summary = firstLine(res.Reason)
		return res
	}
	if tgt.err != nil {
		res.Status, res.Reason = Fail, "no answer: "+tgt.err.Error()
		for _, p := range tgt.left {
			res.Problems = append(res.Problems, "left a process running in the workspace: "+p+"; killed it")
		}
		res.Problems = append(res.Problems, endProblems...)
		res.Summary = firstLine(res.Reason)
		return res
	}
	var want, got Masked
	refIDs, tgtIDs := s.sessionIDs(c, ref.answers), s.sessionIDs(c, tgt.answers)
	var diffs []string
	for i := range ref.answers {
		ra, ta := ref.answers[i], tgt.answers[i]
		if s.caps.View != nil {
			f := s.format(c.CallTool(i))
			ra, ta = s.caps.View(ra, f), s.caps.View(ta, f)
		}
		w := NewMasker(ref.ws).Name(filepath.Base(ref.ws)).SessionIDs(refIDs...).Masks(s.v.Masks).Answer(ra)
		g := NewMasker(tgt.ws).Name(filepath.Base(tgt.ws)).SessionIDs(tgtIDs...).Masks(s.v.Masks).Answer(ta)
		if i == 0 {
			want, got = w, g
		}
		d, first := compare(w, g)
		if d == "" {
			continue
		}
		if len(ref.answers) > 1 {
			at := fmt.Sprintf("call %d of %d (%s", i+1, len(ref.answers), c.CallTool(i))
			d = fmt.Sprintf("%s, params %s): %s", at, clip(string(tgt.sent[i]), 200), d)
			first = at + "): " + first
		}
		if len(diffs) == 0 {
			want, got = w, g
			res.Summary = first
		}
		diffs = append(diffs, d)
	}
	res.Diff = strings.Join(diffs, "\n")
	for _, sd := range []struct {
		who string
		sd  *side
	}{{"reference: ", ref}, {"", tgt}} {
		if sd.sd.elapsed > c.MaxElapsed {
			res.Problems = append(res.Problems, fmt.Sprintf("%stook %s, more than the %s allowed", sd.who,
				sd.sd.elapsed.Round(time.Millisecond), c.MaxElapsed))
		}
		for _, p := range sd.sd.left {
			if sd.who == "" {
				p += "; killed it"
			}
			res.Problems = append(res.Problems, sd.who+"left a process running in the workspace: "+p)
		}
	}
	res.Problems = append(res.Problems, endProblems...)
	if res.Summary == "" && len(res.Problems) > 0 {
		res.Summary = res.Problems[0]
	}
	res.Status = Pass
	if res.Diff != "" || len(res.Problems) > 0 {
		res.Status = Fail
		res.Want, res.Got = shown(want), shown(got)
	}
	return res
}

// workspace is the path of case n's workspace of a kind (r the reference's, t the target's, p a probe):
// <root>/<n>/<kind>, padded so that it is as long as the target's fixed workspace, when it has one (a
// result that shows the path, then cut at a limit, is cut at the same place); beside a fixed workspace
// whose parent is the suite's (Capabilities.BesideWorkspace), <that parent>/<kind>.
// workspaceNames are the base names of the workspaces the suite makes, by kind (reference, target,
// probe): of one length, so that a path cut at a limit is cut alike, and distinctive, so that a name the
// tool answers (a workspace parameter's error) can be masked.
var workspaceNames = map[byte]string{'r': "ws-ref", 't': target.WorkspaceName, 'p': "ws-prb"}

func (s *Session) workspace(n int, kind byte) string {
	if s.beside {
		return filepath.Join(filepath.Dir(s.fixedWS), workspaceNames[kind])
	}
	dir := s.caseDir(n)
	name := workspaceNames[kind]
	if pad := len(s.fixedWS) - len(dir) - 1 - len(name); s.fixedWS != "" && pad > 0 {
		name += strings.Repeat("_", pad)
	}
	return filepath.Join(dir, name)
}

// caseDir holds a case's workspaces.
func (s *Session) caseDir(n int) string { return filepath.Join(s.root, fmt.Sprintf("%04d", n)) }

// calibrate chooses a sized case's count: it runs the reference on a probe workspace with a small count,
// measures the rendered result, and returns the parameters whose result will be Size.Want units long.
func (s *Session) calibrate(ctx context.Context, c Case, probe string) (json.RawMessage, error) {
	const small = 16
	if err := setup(probe, c.Setup); err != nil {
		return nil, err
	}
	eng, err := runtime.New(s.v, runtime.WithWorkspace(probe))
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	res, err := eng.Call(ctx, c.Tool, withWorkspace(c.WithCount(small), probe))
	if err != nil {
		return nil, err
	}
	var text string
	if err := json.Unmarshal(res, &text); err != nil {
		return nil, fmt.Errorf("sized cases need a text result: %w", err)
	}
	length := len(text)
	if c.Size.Unit == spec.Chars {
		length = utf8.RuneCountInString(text)
	}
	count := small + c.Size.Want - length
	if count < 0 {
		return nil, fmt.Errorf("the result without output is %d %s, longer than %d", length-small-c.Size.Fixed, c.Size.Unit, c.Size.Want)
	}
	return c.WithCount(count), nil
}

// withWorkspace replaces WorkspaceToken (as is, or with JSON's HTML escapes) by the path, JSON-escaped.
func withWorkspace(params json.RawMessage, ws string) json.RawMessage {
	q, _ := json.Marshal(ws)
	esc := strings.Trim(string(q), `"`)
	s := strings.ReplaceAll(string(params), cases.WorkspaceToken, esc)
	s = strings.ReplaceAll(s, cases.WorkspaceNameToken, filepath.Base(ws))
	s = strings.ReplaceAll(s, `\u003cWORKSPACE\u003e`, esc)
	return json.RawMessage(s)
}

// emptyDir removes everything in dir (creating it if it is missing).
func emptyDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// setup makes the workspace and its entries.
func setup(ws string, entries []cases.Entry) error {
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

// sessionIDs are the session ids a side's answers of a case gave (where each tool's running case puts
// .SessionID): the masker hides them wherever the answers' texts show them.
func (s *Session) sessionIDs(c Case, answers []target.Answer) []string {
	var ids []string
	for i, a := range answers {
		if id := sessionIDOf(s.v, c.CallTool(i), a); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// firstLine is the first line of a text.
func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// markerFile is the file checkWorkspace writes in a target's fixed workspace.
const markerFile = "agentbash-conformance-marker.txt"

// checkWorkspace makes sure that the target serves the workspace it was said to (-workspace): it writes a
// file with a random word there and has the target print it with the spec's first command tool. A target
// that serves another directory would pass cases against a workspace the suite never set up.
func (s *Session) checkWorkspace(ctx context.Context) error {
	var tool *spec.Tool
	for i := range s.v.Tools {
		t := &s.v.Tools[i]
		if (t.Kind == spec.KindExec || t.Kind == spec.KindSessionStart) && t.Param(spec.RoleCommand) != nil {
			tool = t
			break
		}
	}
	if tool == nil {
		return nil
	}
	word := fmt.Sprintf("agentbash-%d-%d", os.Getpid(), time.Now().UnixNano())
	if err := emptyDir(s.fixedWS); err != nil {
		return fmt.Errorf("conformance: emptying the target's workspace: %w", err)
	}
	if err := os.WriteFile(filepath.Join(s.fixedWS, markerFile), []byte(word+"\n"), 0o644); err != nil {
		return fmt.Errorf("conformance: writing a marker in the target's workspace: %w", err)
	}
	defer os.Remove(filepath.Join(s.fixedWS, markerFile))
	set := map[string]any{string(spec.RoleCommand): "cat " + markerFile}
	params := cases.Params(tool, set)
	name := tool.Name
	if to, ok := s.o.tools[name]; ok {
		name = to
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	a, err := s.conn.Call(cctx, target.Request{Tool: name, Params: params, Workspace: s.fixedWS, Format: string(tool.Results.Format), Case: "workspace check"})
	if err != nil {
		return fmt.Errorf("conformance: checking that the target serves %s: %w", s.fixedWS, err)
	}
	text := string(a.Result)
	if a.Error != nil {
		text += a.Error.Message
	}
	if !strings.Contains(text, word) {
		return fmt.Errorf("conformance: the target does not serve the workspace %s (-workspace): %s, written there, was not seen by `cat %s` through %s (it answered %s)",
			s.fixedWS, markerFile, markerFile, tool.Name, clip(text, 300))
	}
	return nil
}
