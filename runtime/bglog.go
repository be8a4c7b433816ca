package runtime

import (
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// A background shell's log (background.log): its stdout and stderr, two pipes, merged in the order their
// chunks arrive, of which the last limit bytes are kept in a ring. A poll reads it (with poll: new, from
// where the last poll stopped), a list tool describes the registry's shells.

// bgLog is the merged log of one background shell. Memory: at most limit bytes, allocated as the log
// grows.
type bgLog struct {
	mu    sync.Mutex
	limit int
	buf   []byte // the ring: len(buf) <= limit; once full, start is where the oldest byte is
	start int
	total int64         // bytes ever written
	more  chan struct{} // closed (and replaced) by every write: a reader waiting for new output
}

func newBgLog(limit int) *bgLog {
	return &bgLog{limit: max(limit, 1), more: make(chan struct{})}
}

// write appends a chunk, as one piece: chunks of the two pipes do not interleave within themselves.
func (l *bgLog) write(b []byte) {
	if len(b) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total += int64(len(b))
	if len(b) >= l.limit {
		// The chunk alone fills the log: keep its end.
		l.buf = append(l.buf[:0], b[len(b)-l.limit:]...)
		l.start = 0
	} else if room := l.limit - len(l.buf); room > 0 {
		n := min(room, len(b))
		l.buf = append(l.buf, b[:n]...)
		b = b[n:]
	}
	for len(b) > 0 { // the ring is full: overwrite the oldest bytes
		n := copy(l.buf[l.start:], b)
		b = b[n:]
		l.start = (l.start + n) % l.limit
	}
	close(l.more)
	l.more = make(chan struct{})
}

// since returns the kept bytes from position from on (in total's terms), whether bytes after from were
// dropped before them, and the total.
func (l *bgLog) since(from int64) (text []byte, dropped bool, total int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := l.total - int64(len(l.buf)) // the position of the oldest kept byte
	skip := 0
	if from > first {
		skip = int(min(from-first, int64(len(l.buf))))
	}
	out := make([]byte, 0, len(l.buf)-skip)
	if len(l.buf) < l.limit || l.start == 0 {
		out = append(out, l.buf[skip:]...)
	} else {
		ordered := append(append(make([]byte, 0, len(l.buf)), l.buf[l.start:]...), l.buf[:l.start]...)
		out = append(out, ordered[skip:]...)
	}
	return out, from < first, l.total
}

// size is how many bytes were written.
func (l *bgLog) size() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// changed is closed by the next write.
func (l *bgLog) changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.more
}

// logTee writes each chunk to the stream's capture and to the log.
type logTee struct {
	w   io.Writer
	log *bgLog
}

func (t logTee) Write(b []byte) (int, error) {
	t.log.write(b)
	if t.w == nil {
		return len(b), nil
	}
	return t.w.Write(b)
}

// logs reports whether the variant's background shells keep a log.
func (e *Engine) logs() bool { return e.v.Background != nil && e.v.Background.Log != nil }

// teeLog starts a log for a run that is, or may become, a background shell, and tees its streams into it.
func (c *call) teeLog(stdout, stderr io.Writer) (io.Writer, io.Writer, *bgLog) {
	lg := newBgLog(c.e.v.Background.Log.Limit)
	return logTee{stdout, lg}, logTee{stderr, lg}, lg
}

// readWait waits, before a poll reads, as the tool's wait block and its yield parameter say: the whole
// delay, or (read.until: output) until the first new output or the shell's exit.
func (c *call) readWait(sh *bgShell) error {
	w := c.t.spec.Wait
	if w == nil {
		return nil
	}
	v := w.Default
	if prm := c.t.spec.Param(spec.RoleYield); prm != nil {
		if n, ok := c.params[prm.Name].(json.Number); ok {
			f, err := n.Float64()
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return c.invalid(prm.Name, "must be a number")
			}
			v = max(f, 0)
		}
	}
	d := w.Window(v, false)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	var more <-chan struct{}
	var exited <-chan struct{}
	if r := c.t.spec.Read; r != nil && r.Until == spec.ReadUntilOutput && sh.log != nil {
		exited = sh.Done()
		sh.mu.Lock()
		seen := sh.logSeen
		sh.mu.Unlock()
		more = sh.log.changed()
		if sh.log.size() > seen {
			return nil // output the last read did not see: read it now
		}
	}
	select {
	case <-timer.C:
	case <-more:
	case <-exited:
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
	return nil
}

// readLog fills a poll's log data: the log (or, with poll: new, what arrived since the last poll), its
// lines and their last ones.
func (c *call) readLog(sh *bgShell, n int) {
	lg := sh.log
	if lg == nil {
		return
	}
	pollNew := c.e.v.Background.Poll == spec.PollNew
	from := int64(0)
	p := piece{open: c.data.Running}
	sh.mu.Lock() // polls of a shell read its log in turn
	defer sh.mu.Unlock()
	if pollNew {
		from, p.carry = sh.logRead, sh.logCarry
	}
	raw, dropped, total := lg.since(from)
	p.text, p.after = textcap.Sanitize(string(raw), true), dropped
	if c.e.v.Background.Log.StripANSI {
		p.text = textcap.StripANSI(p.text)
	}
	var carry string
	c.data.Log, carry = c.redactPiece(p)
	sh.logSeen = total
	if pollNew {
		sh.logRead, sh.logCarry = total, carry
	}
	c.data.LogBytes, c.data.LogTruncated = total, dropped
	lines := strings.Split(c.data.Log, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if dropped && len(lines) > 0 {
		lines = lines[1:] // the first line was cut where the log's front was dropped
	}
	tail := lines
	if n > 0 && n < len(lines) {
		tail = lines[len(lines)-n:]
	}
	c.data.LogLineCount, c.data.LogTailLines = int64(len(lines)), int64(len(tail))
	c.data.LogTail = strings.Join(tail, "\n")
}

// logLines is how many last lines a poll reads (0: all): the parameter with role lines (checked against
// its minimum, before anything is read), or read.lines.
func (c *call) logLines() (int, error) {
	n := 0
	if r := c.t.spec.Read; r != nil {
		n = r.Lines
	}
	prm, f, ok, err := c.numberParam(spec.RoleLines)
	if !ok {
		return n, nil
	}
	if err != nil {
		return 0, err
	}
	if m := prm.Minimum; m != nil && f < *m {
		return 0, c.invalid(prm.Name, "must be >= "+strconv.FormatFloat(*m, 'f', -1, 64))
	}
	if f < 1 {
		return 0, nil
	}
	return int(min(f, spec.MaxLogLines)), nil
}

// list renders the background registry, oldest first.
func (c *call) list() (json.RawMessage, error) {
	now := time.Now()
	for _, sh := range c.e.bg.All() {
		info := spec.ShellInfo{ID: sh.ID(), Pid: sh.p.Pid(), Command: sh.command, Running: true,
			Started: sh.Started().UTC().Format(time.RFC3339), Age: now.Sub(sh.Started()).Seconds()}
		if sh.Finished() {
			info.Running = false
			x := sh.p.Exit()
			info.ExitCode, info.Signal = c.exitCode(x), int(x.Signal)
		}
		c.data.Shells = append(c.data.Shells, info)
	}
	return c.render(spec.OutcomeOK)
}
