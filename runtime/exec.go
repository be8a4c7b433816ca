package runtime

import (
	"encoding/json"
	"io"
	"io/fs"
	"strings"
	"syscall"
	"time"

	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// safetyCap bounds a stream that its spec does not truncate: memory stays bounded whatever the output.
const safetyCap = 8 << 20

// streams are the captures of one run: stdout and stderr, or one combined stream.
type streams struct {
	out      *spec.Output
	combined bool
	stdout   *textcap.Capture
	stderr   *textcap.Capture
	output   *textcap.Capture
	// rope marks streams held whole-or-head/tail for a result-level truncation.
	rope bool
	// alone marks streams that only a spill sizes (no truncation: held whole up to the safety bound).
	alone bool
	// window counts the combined output's lines for a budget (output.budget), and holds its capture.
	window *window
	// seq reads stdout and stderr, captured apart, as one text (capture: sequential; sequential.go).
	seq *seqCapture
}

func newStreams(t *tool) *streams {
	o := t.spec.Output
	s := &streams{out: o, combined: o.Capture == spec.CaptureCombined}
	cfg := textcap.Config{Decode: decodeMode(o.Decode), Universal: o.Newlines == spec.NewlinesUniversal, Strip: o.Strip,
		StripANSI: o.StripANSI, StripBlankLines: o.StripLeading == spec.StripBlankLines}
	if o.Binary != nil {
		cfg.BinarySniff = o.Binary.Sample
	}
	switch {
	case o.Truncate != nil:
		cfg.Unit, cfg.Head, cfg.Tail = capacity(o.Truncate)
	case len(t.spec.ResultTruncates()) > 0:
		s.rope = true
		cfg.Unit, cfg.Head, cfg.Tail = resultCapacity(t)
	case t.spec.Results.Spill != nil:
		// A result spill saves the whole rendered result: the streams are kept whole up to the runtime's
		// bound, the same as a tool with no limit (the call holds the output and the text rendered around
		// it: docs/spec.md "Spilled results").
		cfg.Unit, cfg.Head = textcap.Bytes, safetyCap
	default:
		cfg.Unit, cfg.Head = textcap.Bytes, safetyCap
	}
	if sp := o.Spill; sp != nil {
		s.alone = o.Truncate == nil && !s.rope
		spillCapacity(&cfg, sp, s.alone)
	}
	if s.combined {
		s.output = textcap.New(cfg)
	} else {
		s.stdout, s.stderr = textcap.New(cfg), textcap.New(cfg)
	}
	if o.Capture == spec.CaptureSequential {
		s.seq = newSeqCapture(s.stdout, s.stderr, cfg.Head, cfg.Tail)
	}
	return s
}

// spillCapacity sizes a capture for a spill: counting lines, with room for the preview's head and tail
// (one unit more, to see where the line before it ends), and, when nothing else sizes it, the safety bound
// in the spill's unit and the whole of an output within the bound.
func spillCapacity(cfg *textcap.Config, sp *spec.Spill, alone bool) {
	cfg.CountLines = true
	if alone {
		cfg.Unit = sizeUnit(sp.Preview.Unit)
		cfg.Head = safetyCap
		if cfg.Unit == textcap.Chars {
			cfg.Head = safetyCap / 4
		}
		cfg.Head = max(cfg.Head, sp.Over.Limit)
	}
	p := sp.Preview
	switch p.Keep {
	case spec.KeepHead:
		cfg.Head = max(cfg.Head, p.Head)
	case spec.KeepTail:
		cfg.Tail = max(cfg.Tail, p.Tail+1)
	case spec.KeepHeadTail:
		cfg.Head = max(cfg.Head, p.Head+p.Tail)
		cfg.Tail = max(cfg.Tail, p.Tail+1)
	}
}

// spillHead is the head, in the capture's unit, that a capture sized by its spill alone needs once the
// file has started: the whole of an output within the bound's limit (one unit more), the preview's head,
// and both ends when they may meet (the tail's ring stays as it is). It is 0, the capture keeping its
// safety bound, when an output over the limit may still be answered whole: a bound in lines only, an
// outcome that does not spill, or a timeout that moves the run to the background.
func spillHead(t *spec.Tool, alone bool) int {
	sp := t.Output.Spill
	if !alone || sp == nil || sp.Over.Limit <= 0 {
		return 0
	}
	for _, o := range []spec.Outcome{spec.OutcomeSuccess, spec.OutcomeFailure, spec.OutcomeTimeout} {
		if !sp.Spills(o) {
			return 0
		}
	}
	if t.Timeout != nil && t.Timeout.Expiry == spec.ExpiryBackground {
		return 0
	}
	unit := sizeUnit(sp.Preview.Unit)
	n := sp.Over.Limit + 1
	if unit == textcap.Bytes && sp.Over.Unit != spec.Bytes {
		n *= 4 // a character is up to 4 bytes
	}
	p := sp.Preview
	switch p.Keep {
	case spec.KeepHead:
		n = max(n, p.Head)
	case spec.KeepHeadTail:
		n = max(n, p.Head+p.Tail)
	}
	return n
}

// resultCapacity sizes the stream captures for every result-level truncation of the tool: the largest
// head and tail any case needs (the spec checks that they share one unit).
func resultCapacity(t *tool) (unit textcap.Unit, head, tail int) {
	for _, tr := range t.spec.ResultTruncates() {
		u, h, tl := capacity(tr)
		unit, head, tail = u, max(head, h), max(tail, tl)
	}
	return unit, head, tail
}

// capacity is what a capture must keep for a truncation rule to be applied exactly.
func capacity(tr *spec.Truncate) (textcap.Unit, int, int) {
	return sizeUnit(tr.Unit), max(tr.Limit, tr.Head, tr.TailThreshold), tr.Tail
}

func sizeUnit(u spec.SizeUnit) textcap.Unit {
	if u == spec.Chars {
		return textcap.Chars
	}
	return textcap.Bytes
}

func decodeMode(d spec.Decode) textcap.Decode {
	switch d {
	case spec.DecodeStrict:
		return textcap.Strict
	case spec.DecodeIgnore:
		return textcap.Ignore
	case spec.DecodeRaw:
		return textcap.Raw
	}
	return textcap.Replace
}

func (s *streams) writers() (stdout, stderr io.Writer) {
	if s.seq != nil {
		return s.seq.out, s.seq.err
	}
	if s.window != nil {
		return s.window, s.window
	}
	if s.combined {
		return s.output, s.output
	}
	return s.stdout, s.stderr
}

func (s *streams) close() {
	for _, c := range []*textcap.Capture{s.stdout, s.stderr, s.output} {
		if c != nil {
			c.Close()
		}
	}
}

// exec runs the command: in the foreground until exit or timeout, or into the background registry.
func (c *call) exec() (json.RawMessage, error) {
	t := c.t
	script, err := c.script()
	if err != nil {
		return nil, err
	}
	argv := append(append([]string(nil), c.e.cfg.argv...), script)
	carryPrefix := ""
	var writable []string
	var wrap *wrapped
	if w := c.e.v.Shell.Wrap; w != nil && c.argv == nil && !c.direct && !c.e.v.Shell.Embedded {
		text, wr, err := c.wrapCommand(w, script)
		if err != nil {
			return nil, err
		}
		wrap = wr
		defer func() { wrap.remove() }() // a background shell takes it over (wrap is nil then)
		argv[len(argv)-1] = text
		if wr.pidsFile != "" {
			writable = append(writable, wr.pidsFile)
		}
	}
	if c.direct {
		argv = append([]string(nil), c.argv...) // role argv: the program itself, no shell
		if c.e.cfg.shellSet {
			argv = append(append([]string(nil), c.e.cfg.argv...), c.argv...)
		}
	} else if c.argv != nil {
		argv = append(append([]string(nil), c.e.cfg.argv...), c.argv...)
	} else if len(t.spec.Carry) > 0 && !c.e.v.Shell.Embedded {
		prefix, err := c.e.carry.prefix()
		if err != nil {
			return nil, err
		}
		carryPrefix = prefix
		argv[len(argv)-1] = carryCommand(argv[len(argv)-1], prefix, t.spec.Carry)
		defer removeCarryFiles(prefix) // what save did not read: a timeout, a cancel, a spawn error
		if c.e.sandbox != nil || c.e.starter != nil {
			// The sandbox lets the shell write these two files, and nothing else of the directory; an
			// executor that runs the shell elsewhere makes them there and brings them back.
			files, err := createCarryFiles(prefix)
			if err != nil {
				return nil, err
			}
			writable = append(writable, files...)
		}
	}
	background := c.wantsBackground()
	env := c.env()
	st := newStreams(t)
	c.limitStreams(st)
	if b := t.spec.Output.Budget; b != nil && !background {
		n, err := c.budgetValue()
		if err != nil {
			return nil, err
		}
		c.budget = n
		st.budgeted(b, n)
		c.window = st.window
	}
	if background {
		// A background shell keeps its own bounded buffers, one per stream, for later polls.
		st = newBackgroundStreams(c.e.v.Background)
	}
	stdout, stderr := st.writers()
	var lg *bgLog
	if c.e.logs() && (background || t.spec.Timeout != nil && t.spec.Timeout.Expiry == spec.ExpiryBackground) {
		// The log is kept from the start: a run the timeout moves to the background has it whole.
		stdout, stderr, lg = c.teeLog(stdout, stderr)
	}
	if !background && st.combined && t.spec.Output.Spill != nil {
		sf, err := c.newSpill()
		if err != nil {
			return nil, err
		}
		c.spill = sf
		defer sf.finish(false) // a run that did not end in a result: nothing spills
		if n := spillHead(t.spec, st.alone); n > 0 {
			// Once the file holds the output, the capture keeps only what the preview and the bound need.
			out := st.output
			sf.started = func() { out.LimitHead(n) }
		}
		stdout = io.MultiWriter(stdout, sf)
		stderr = stdout
	}
	if p := t.spec.Param(spec.RoleCapture); p != nil {
		if capture, ok := c.params[p.Name].(bool); ok && !capture {
			stdout, stderr = c.e.cfg.terminal, c.e.cfg.terminal
		}
	}
	var active chan struct{}
	if tm := t.spec.Timeout; tm != nil && tm.Idle && c.hasTimeout && !background {
		// An idle timeout starts again at every write.
		active = make(chan struct{}, 1)
		if stdout != nil {
			stdout = activity{stdout, active}
		}
		if stderr != nil {
			stderr = activity{stderr, active}
		}
	}
	ps := proc.Spec{Argv: argv, Dir: c.cwd, Env: env, Stdout: stdout, Stderr: stderr, Combined: st.combined,
		Grace: c.e.v.Shell.GraceDuration(), Session: c.e.v.Shell.Session, Sandbox: c.e.sandbox, Writable: writable}
	if c.e.v.Shell.Embedded && !c.direct {
		ps.Argv, ps.Embedded = nil, script
		if script == "" {
			ps.Embedded = "\n" // an empty script runs nothing and exits 0 (an empty Embedded is no script)
		}
	}
	if err := c.ctx.Err(); err != nil {
		return nil, err // the host gave up before anything started: start nothing (a background shell included)
	}
	if background {
		if err := c.e.bg.Reserve(); err != nil {
			return nil, c.failBackground(err)
		}
	}
	var p *proc.Process
	if c.cwdEmpty {
		err = &fs.PathError{Op: "chdir", Path: "", Err: syscall.ENOENT}
	} else {
		p, err = c.e.start(ps)
	}
	if err != nil {
		if background {
			c.e.bg.Unreserve()
		}
		if c.expiresBeforeSpawnError(err) {
			// The host's timer fires before it sees the spawn fail: the expiry outcome, with no process.
			c.data.TimedOut = true
			if t.backgroundsAtExpiry(c.data.Command) {
				return c.render(spec.OutcomeBackground)
			}
			return c.render(spec.OutcomeTimeout)
		}
		return c.spawnError(err)
	}
	c.data.Pid = p.Pid()
	c.data.Started = time.Now().UTC().Format(time.RFC3339)

	if background {
		sh, err := c.e.addShell(p, st, lg, c.data.Command, c.started)
		if err != nil {
			return nil, err // the engine closed during the call: the host's error, not the tool's
		}
		c.data.ShellID = sh.ID()
		c.data.Running = true
		if wrap != nil {
			// The shell's pids file goes when the shell does.
			go func(w *wrapped) { <-p.Done(); w.remove() }(wrap)
			wrap = nil
		}
		if err := c.waitBackground(sh, st); err != nil {
			return nil, err
		}
		if sep := c.e.v.Background.Log; lg != nil && c.t.spec.Wait != nil && c.data.Running && sep.AfterWait != "" && lg.size() > 0 {
			lg.write([]byte(sep.AfterWait))
		}
		return c.render(spec.OutcomeBackground)
	}

	// expire ends a run whose timeout expired: it moves to the background, or is killed.
	expire := func() (json.RawMessage, error) {
		c.data.TimedOut = true
		if t.backgroundsAtExpiry(c.data.Command) {
			if err := c.e.bg.Reserve(); err != nil {
				// No room in the registry: the run ends here rather than grow it past its bound.
				p.Kill()
				<-p.Done()
				st.close()
				return nil, c.failBackground(err)
			}
			sh, err := c.e.addShell(p, st, lg, c.data.Command, c.started)
			if err != nil {
				return nil, err // the engine closed during the call: the host's error, not the tool's
			}
			c.data.ShellID = sh.ID()
			c.data.Running = true
			c.fillStreams(st.snapshots())
			return c.render(spec.OutcomeBackground)
		}
		var snaps snapshots
		atExpiry := t.spec.Timeout != nil && t.spec.Timeout.OutputAtExpiry
		if atExpiry {
			snaps = st.snapshots() // what the host answers with: the command is stopped behind it
		}
		c.stop(p)
		st.close()
		c.data.WallTime = time.Since(c.started).Seconds()
		c.data.TimedOut = true
		c.fillExit(p.Exit())
		if !atExpiry {
			snaps = st.snapshots()
		}
		c.fillStreams(snaps)
		if err := c.applySpill(spec.OutcomeTimeout); err != nil {
			return nil, err
		}
		return c.render(spec.OutcomeTimeout)
	}
	if c.hasTimeout && c.expireNow {
		// A timeout that is already over expires before the command can be seen to finish, however fast
		// it is: Python's communicate() checks the time left before reading, Node's setTimeout(0) fires
		// before the child's exit is delivered.
		return expire()
	}
	var expired <-chan time.Time
	var timer *time.Timer
	if c.hasTimeout {
		timer = time.NewTimer(c.timeout)
		defer timer.Stop()
		expired = timer.C
	}
wait:
	for {
		select {
		case <-p.Done():
			break wait
		case <-active:
			timer.Reset(c.timeout) // output: an idle timeout starts again
		case <-expired:
			select {
			case <-p.Done(): // finished in the same instant: it is an exit
				break wait
			default:
				return expire()
			}
		case <-c.ctx.Done():
			p.Kill()
			<-p.Done()
			return nil, c.ctx.Err()
		}
	}
	st.close()
	c.data.WallTime = time.Since(c.started).Seconds()
	c.fillExit(p.Exit())
	if carryPrefix != "" {
		c.e.carry.save(c.workspace, carryPrefix)
	}
	c.data.BackgroundPids = wrap.backgroundPids(c.data.Pid)
	snaps := st.snapshots()
	if err := c.decodeFailure(snaps); err != nil {
		return nil, err
	}
	c.fillStreams(snaps)
	outcome := spec.OutcomeFailure
	if c.data.ExitCode == 0 && c.data.Signal == 0 {
		c.data.Success = true
		outcome = spec.OutcomeSuccess
	}
	if err := c.applySpill(outcome); err != nil {
		return nil, err
	}
	return c.render(outcome)
}

// stopSignals are the signals timeout.signal names.
var stopSignals = map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT,
	"SIGHUP": syscall.SIGHUP, "SIGQUIT": syscall.SIGQUIT}

// stop ends a run the timeout kills and waits for its end: the spec's timeout.signal first, then SIGKILL
// once the shell's grace has passed (or the call was cancelled), or at once without a signal.
func (c *call) stop(p *proc.Process) {
	if tm := c.t.spec.Timeout; tm != nil && tm.Signal != "" {
		p.Signal(stopSignals[tm.Signal], c.e.v.Shell.GraceDuration())
		grace := time.NewTimer(c.e.v.Shell.GraceDuration())
		defer grace.Stop()
		select {
		case <-p.Done():
			return
		case <-grace.C:
		case <-c.ctx.Done():
		}
	}
	p.Kill()
	<-p.Done()
}

// expiresBeforeSpawnError reports a timeout that is already over, for a spec whose host sees its timer
// before a spawn error (timeout.expiry_first), unless the error has a case of its own (a failure the host
// sees at once).
func (c *call) expiresBeforeSpawnError(err error) bool {
	tm := c.t.spec.Timeout
	if tm == nil || !tm.ExpiryFirst || !c.hasTimeout || !c.expireNow {
		return false
	}
	c.setErrno(err)
	_, own := c.resultCases().Cases[spec.SpawnErrorOf(c.data.ErrnoName)]
	return !own
}

func (c *call) wantsBackground() bool {
	p := c.t.spec.Param(spec.RoleBackground)
	if p == nil {
		return false
	}
	b, _ := c.params[p.Name].(bool)
	return b
}

// env is the inherited environment with the env parameter's pairs merged over it.
func (c *call) env() []string {
	env := c.e.cfg.env
	if c.carries(spec.CarriedEnv) {
		if carried := c.e.carry.get(c.workspace).env; carried != nil {
			env = carried
		}
	}
	if len(c.t.spec.Env) > 0 {
		env = toolEnv(env, c.t.spec.Env)
	}
	p := c.t.spec.Param(spec.RoleEnv)
	if p == nil {
		return env
	}
	extra, _ := c.params[p.Name].(map[string]any)
	if len(extra) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(extra))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := extra[k]; !over {
			out = append(out, kv)
		}
	}
	for k, v := range extra {
		s, _ := v.(string)
		out = append(out, k+"="+s)
	}
	return out
}

func (c *call) fillExit(x proc.Exit) {
	c.data.Signal = int(x.Signal)
	c.data.ExitCode = c.exitCode(x)
	code := c.data.ExitCode
	c.sawExit = &code
}

// exitCode is the exit code as the source reports it: signal_exit applied to a signal's end.
func (c *call) exitCode(x proc.Exit) int {
	if x.Signal == 0 {
		return x.Code
	}
	sig := int(x.Signal)
	switch c.e.v.Shell.SignalExit {
	case spec.SignalZero:
		return 0
	case spec.SignalMinusOne:
		return -1
	case spec.SignalShell:
		// mutate: signal-exit-shell
		return 128 + sig
	case spec.SignalOne:
		return 1
	default:
		// mutate: signal-exit-negative
		return -sig
	}
}

// snapshots are the streams' texts at one moment.
type snapshots struct {
	stdout, stderr, output *textcap.Snapshot
}

func (s *streams) snapshots() snapshots {
	var out snapshots
	snap := func(c *textcap.Capture) *textcap.Snapshot {
		if c == nil {
			return nil
		}
		s := c.Snapshot()
		return &s
	}
	out.stdout, out.stderr, out.output = snap(s.stdout), snap(s.stderr), snap(s.output)
	if s.seq != nil {
		out.output = s.seq.snapshot(out.stdout, out.stderr, s.window)
	}
	return out
}

// decodeFailure reports the first strict decoding error, stdout before stderr (Python decodes them in
// that order).
func (c *call) decodeFailure(s snapshots) error {
	o := c.t.spec.Output
	if o.DecodeError == nil {
		return nil
	}
	for _, sn := range []*textcap.Snapshot{s.output, s.stdout, s.stderr} {
		if sn != nil && sn.Err != nil {
			c.data.Message = sn.Err.Error()
			return c.fail(o.DecodeError)
		}
	}
	return nil
}

// fillStreams sets the stream texts, truncated per stream as the spec says.
func (c *call) fillStreams(s snapshots) {
	c.data.Stdout, c.data.StdoutTruncated, c.data.StdoutBytes = c.streamText(s.stdout, "stdout")
	c.data.Stderr, c.data.StderrTruncated, c.data.StderrBytes = c.streamText(s.stderr, "stderr")
	c.data.Output, c.data.OutputTruncated, c.data.OutputBytes = c.streamText(s.output, "output")
	if b := c.t.spec.Output.Budget; b != nil && s.output != nil && c.window != nil {
		c.data.Output, c.data.OutputTruncated = c.budgetText(b, c.budget, *s.output, c.window.lines(s.output.Bytes))
	}
	c.cutShared(s)
	c.data.Truncated = c.data.StdoutTruncated || c.data.StderrTruncated || c.data.OutputTruncated
	for _, sn := range []*textcap.Snapshot{s.stdout, s.stderr, s.output} {
		c.data.Binary = c.data.Binary || sn != nil && sn.Binary
	}
	c.snaps = s
}

func (c *call) streamText(sn *textcap.Snapshot, stream string) (string, bool, int64) {
	if sn == nil {
		return "", false, 0
	}
	o := c.t.spec.Output
	total := sn.Bytes
	sanitize := func(s string) string { return s }
	if o.Decode == spec.DecodeRaw && o.Sanitize != "" {
		sanitize = func(s string) string { return textcap.Sanitize(s, o.Sanitize == spec.SanitizePerByte) }
	}
	var text string
	truncated := false
	switch {
	case o.Truncate != nil:
		var err error
		l := c.limit(o.Truncate)
		l.Marker = c.streamMarker(o.Truncate.Marker, stream)
		text, truncated, err = c.cut(l, sn.Truncate, sanitize, c.data.Running)
		if err != nil {
			text = sanitize(sn.Head)
		}
	case !sn.Complete && !c.ropeStreams():
		// Beyond the runtime's safety bound: keep what was kept.
		text, truncated = sanitize(sn.Head), true
		text, _ = c.redactPiece(piece{text: text, open: true})
	default:
		text, _ = c.redactPiece(piece{text: sanitize(sn.Head), open: c.data.Running})
	}
	return text, truncated, total
}

func (c *call) ropeStreams() bool {
	return c.t.spec.Output.Truncate == nil && len(c.t.spec.ResultTruncates()) > 0
}

// limit turns a spec truncation into textcap's, with the marker rendered from the spec's template.
func (c *call) limit(tr *spec.Truncate) textcap.Limit {
	l := textcap.Limit{Unit: sizeUnit(tr.Unit), Limit: tr.Limit, Head: tr.Head, Tail: tr.Tail, TailThreshold: tr.TailThreshold}
	switch tr.Keep {
	case spec.KeepTail:
		l.Keep = textcap.Tail
	case spec.KeepHeadTail:
		l.Keep = textcap.HeadTail
	default:
		l.Keep = textcap.Head
	}
	switch {
	case c.t.spec.Output.Decode == spec.DecodeRaw:
		l.CutDecode = textcap.Raw // bytes kept as they are, whatever cut_decode says
	case tr.CutDecode == spec.CutIgnore:
		l.CutDecode = textcap.Ignore
	default:
		l.CutDecode = textcap.Replace
	}
	marker := tr.Marker
	l.Marker = func(total, kept, elided int64) string {
		d := spec.Data{Total: total, Kept: kept, Elided: elided}
		s, _ := c.t.tmpl.render(marker, &d)
		return s
	}
	return l
}
