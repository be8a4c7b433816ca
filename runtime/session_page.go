package runtime

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"time"

	"github.com/agentbash/agentbash/runtime/textcap"
	"github.com/agentbash/agentbash/spec"
)

// Paged session reads (session.page): a session_read that answers lines of the session's whole output,
// kept from its start in the session's log, from a read position that only these reads move, as a host
// that keeps each process's output as an array of lines and reads it like a file does.

// pageLines splits a log as JavaScript's split("\n") splits the text a host appended chunk by chunk: no
// output is no line, a last "\n" leaves an empty last line. A front cut where the log dropped bytes is
// not a line.
func pageLines(text string, dropped bool) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	if dropped && len(lines) > 1 {
		lines = lines[1:]
	}
	return lines
}

// pageCount is len(pageLines(text, dropped)), counted without splitting the log (a waiting read counts at
// each change of it).
func pageCount(text []byte, dropped bool) int64 {
	if len(text) == 0 {
		return 0
	}
	n := int64(bytes.Count(text, []byte{'\n'})) + 1
	if dropped && n > 1 {
		n--
	}
	return n
}

// intParam reads an integral parameter with role r: absent is def; a non-integral or non-finite number is
// invalid.
func (c *call) intParam(r spec.Role, def int64) (int64, error) {
	prm, f, ok, err := c.numberParam(r)
	switch {
	case !ok:
		return def, nil
	case err != nil:
		return 0, err
	case math.IsInf(f, 0):
		return 0, c.invalid(prm.Name, "must be a number")
	}
	return int64(max(min(f, spec.MaxLogLines), -spec.MaxLogLines)), nil
}

// numberParam is the number sent for the parameter with role r: ok is false when the tool has no such
// parameter or the call sent no number for it; a number that does not read as one (NaN) is invalid.
func (c *call) numberParam(r spec.Role) (prm *spec.Param, f float64, ok bool, err error) {
	if prm = c.t.spec.Param(r); prm == nil {
		return nil, 0, false, nil
	}
	n, ok := c.params[prm.Name].(json.Number)
	if !ok {
		return prm, 0, false, nil
	}
	if f, err = n.Float64(); err != nil || math.IsNaN(f) {
		return prm, 0, true, c.invalid(prm.Name, "must be a number")
	}
	return prm, f, true, nil
}

// pageSession reads a page of the session's lines. From the read position (offset 0) on a running
// session it first waits the window: with session.until output, only until there are lines the position
// has not reached.
func (c *call) pageSession(s *session, window time.Duration) (json.RawMessage, error) {
	pg := c.t.spec.Session.Page
	offset, err := c.intParam(spec.RoleOffset, 0)
	if err != nil {
		return nil, err
	}
	def := int64(pg.Lines)
	if def <= 0 {
		def = spec.DefaultPageLines
	}
	length, err := c.intParam(spec.RoleLines, def)
	if err != nil {
		return nil, err
	}
	length = max(length, 0)
	s.calls.Lock()
	defer s.calls.Unlock()
	lg := s.log
	if lg == nil { // a session started by a tool that does not page: nothing was logged
		lg = newBgLog(1)
	}
	count := func() int64 {
		raw, dropped, _ := lg.since(0)
		return pageCount(raw, dropped)
	}
	start := time.Now()
	if offset == 0 && !s.exited() && window > 0 {
		timer := time.NewTimer(window)
		defer timer.Stop()
		untilOutput := c.t.spec.Session.Until == spec.ReadUntilOutput
	wait:
		for {
			more := lg.changed()
			if untilOutput && count() > s.pagePos {
				break
			}
			select {
			case <-more:
			case <-timer.C:
				break wait
			case <-s.p.Done():
				break wait
			case <-c.ctx.Done():
				return nil, c.ctx.Err()
			}
		}
	}
	c.data.WallTime = time.Since(start).Seconds()
	exited := s.exited()
	raw, dropped, _ := lg.since(0)
	lines := pageLines(textcap.Sanitize(string(raw), true), dropped)
	total := int64(len(lines))
	pos := s.pagePos
	rewound := exited && pg.RewindExited
	if rewound {
		pos = 0
	}
	var from int64
	switch {
	case offset < 0:
		from = max(0, total+offset)
	case offset == 0:
		from = pos
	default:
		from = offset
	}
	end := min(from+length, total)
	var page []string
	if from < total {
		page = lines[from:end]
	} else {
		end = from
	}
	if offset == 0 && !rewound {
		s.pagePos = min(end, total)
	}
	c.data.Log, _ = c.redactPiece(piece{text: strings.Join(page, "\n"), after: from > 0 || dropped, open: !exited || end < total})
	c.data.LogLineCount, c.data.PageFrom, c.data.PageLines = total, from, int64(len(page))
	c.data.PageRemaining = max(0, total-end)
	return c.sessionAnswer(s, exited)
}
