package spec

// sessions checks the variant's sessions block.
func (c *checker) sessions() {
	s := c.v.Sessions
	if s == nil {
		return
	}
	c.failure("/sessions/limit_error", s.LimitError, nil)
	c.failure("/sessions/unknown_id", s.UnknownID, nil)
	c.failure("/sessions/stdin_closed", s.StdinClosed, nil)
	c.atMost("/sessions/max_live", "max_live", float64(s.MaxLive), MaxLive)
	c.atMost("/sessions/buffer", "buffer", float64(s.Buffer), MaxSize)
	c.atMost("/sessions/first_id", "first_id", float64(s.FirstID), MaxSessionID)
	c.atMost("/sessions/last_id", "last_id", float64(s.LastID), MaxSessionID)
	maxLive := s.MaxLive
	if maxLive <= 0 {
		maxLive = DefaultSessionMaxLive
	}
	if s.LastID != 0 && s.FirstID > s.LastID {
		c.errf("/sessions/last_id", "last_id %d is below first_id %d", s.LastID, s.FirstID)
	} else if s.IDs == SessionIDsRandom && s.LastID != 0 && s.LastID-s.FirstID+1 < 2*maxLive {
		// Drawing an id not in use must not take long: at least twice as many ids as live sessions.
		c.errf("/sessions/last_id", "random ids from %d to %d are too few for max_live %d (at least %d)", s.FirstID, s.LastID, maxLive, 2*maxLive)
	}
	if s.OnFull != OnFullPrune && (s.ProtectRecent != 0 || s.PruneExitedFirst) {
		c.errf("/sessions/on_full", "protect_recent and prune_exited_first go with on_full: prune")
	}
	if s.OnFull == OnFullPrune && s.ProtectRecent >= maxLive {
		c.errf("/sessions/protect_recent", "protect_recent %d leaves nothing to prune of max_live %d", s.ProtectRecent, maxLive)
	}
}

// sessionTool checks what a tool of the session family needs, and that the session settings and roles
// are only where they mean something.
func (c *checker) sessionTool(ptr string, t *Tool, kind Kind, roles map[Role]string) {
	need := func(r Role, why string) {
		if _, ok := roles[r]; !ok {
			c.errf(ptr+"/params", "a %s tool needs a parameter with role: %s (%s)", kind, r, why)
		}
	}
	only := func(r Role, ok bool, where string) {
		if name, has := roles[r]; has && !ok {
			c.errf(ptr+"/params", "parameter %q has role %s, which only %s has", name, r, where)
		}
	}
	only(RoleSessionID, kind == KindSessionWrite || kind == KindSessionRead || kind == KindSessionKill, "a session_write, session_read or session_kill tool")
	only(RoleStdin, kind == KindSessionWrite, "a session_write tool")
	if name, has := roles[RoleYield]; has && !kind.Waits() && t.Wait == nil {
		c.errf(ptr+"/params", "parameter %q has role yield, which only a session_start, session_write or session_read tool has (or an exec tool with a wait block)", name)
	}
	only(RoleTTY, kind == KindSessionStart, "a session_start tool")
	paged := pagedRead(t, kind)
	only(RoleOffset, paged, "a session_read tool with session.page")
	if paged {
		c.numberRole(ptr, t, RoleOffset)
	}
	if name, ok := roles[RoleBudget]; ok && (t.Output == nil || t.Output.Budget == nil) {
		c.errf(ptr+"/params", "parameter %q has role budget but the tool has no output.budget", name)
	}
	if !kind.IsSession() {
		if t.Session != nil {
			c.errf(ptr+"/session", "a session block goes with a tool of the session family (kind session_start, session_write, session_read, session_kill, session_list), not %s", kind)
		}
		return
	}
	if c.v.Sessions == nil {
		c.errf(ptr+"/kind", "a %s tool needs the variant's sessions block", kind)
	}
	if t.Timeout != nil {
		c.errf(ptr+"/timeout", "a %s tool has no timeout: its yield window (session.yield) bounds each call", kind)
	}
	switch kind {
	case KindSessionStart:
		need(RoleCommand, "the command to start")
	case KindSessionWrite:
		need(RoleSessionID, "the session to write to")
		need(RoleStdin, "the text to write")
	case KindSessionRead, KindSessionKill:
		need(RoleSessionID, "the session")
	}
	st := t.Session
	sp := ptr + "/session"
	if kind.Waits() && (st == nil || st.Yield == nil) {
		c.errf(ptr, "a %s tool needs session.yield, its yield window", kind)
	}
	if _, ok := t.Results.Cases[OutcomeRunning]; kind.Waits() && !ok {
		c.errf(ptr+"/results/cases", "a %s tool needs a running case (the command runs on after the window)", kind)
	}
	if st == nil {
		return
	}
	if st.Yield != nil && !kind.Waits() {
		c.errf(sp+"/yield", "a %s tool waits no yield window", kind)
	}
	if st.Since != "" && st.Since != SinceLast && kind != KindSessionWrite {
		c.errf(sp+"/since", "since says where a session_write's window starts, not a %s's", kind)
	}
	if st.Keep && kind != KindSessionKill {
		c.errf(sp+"/keep", "keep goes with a session_kill tool, not %s", kind)
	}
	if st.Keep && (c.v.Sessions == nil || !c.v.Sessions.KeepExited) {
		c.errf(sp+"/keep", "keep leaves a killed session exited in the registry: it needs sessions.keep_exited")
	}
	if st.Newline && kind != KindSessionWrite {
		c.errf(sp+"/newline", "newline goes with a session_write tool, not %s", kind)
	}
	if (st.RunningOnly || st.UnknownID != nil) && kind != KindSessionWrite && kind != KindSessionRead && kind != KindSessionKill {
		c.errf(sp, "running_only and unknown_id go with a tool that names a session (session_write, session_read, session_kill), not %s", kind)
	}
	c.failure(sp+"/unknown_id", st.UnknownID, t.Results.Cases)
	if st.Page != nil {
		if kind != KindSessionRead {
			c.errf(sp+"/page", "page says how a session_read reads, not a %s", kind)
		}
		c.atMost(sp+"/page/lines", "lines", float64(st.Page.Lines), MaxLogLines)
	}
	if st.Until == ReadUntilOutput && kind != KindSessionWrite && kind != KindSessionRead {
		c.errf(sp+"/until", "until closes a session_write's or a session_read's window, not a %s's", kind)
	}
	if kind != KindSessionStart {
		if st.Pipes != "" {
			c.errf(sp+"/pipes", "pipes says how a session starts: it goes on a session_start tool")
		}
		if st.PTY {
			c.errf(sp+"/pty", "pty says how a session starts: it goes on a session_start tool")
		}
		if st.Stdin != "" {
			c.errf(sp+"/stdin", "stdin says how a session starts: it goes on a session_start tool")
		}
	}
	if kind == KindSessionStart && c.v.Shell.Embedded {
		if _, tty := roles[RoleTTY]; st.PTY || tty || st.Stdin == SessionStdinOpen {
			c.errf(sp, "the embedded shell has no terminal and no stdin to write to: a session on it has pty false, no tty parameter, and stdin closed")
		}
	}
	if st.Settle != 0 && kind != KindSessionWrite {
		c.errf(sp+"/settle", "settle is the wait after a write: it goes on a session_write tool")
	}
	if st.Settle.D() < 0 || st.Settle.D() > MaxGrace {
		c.errf(sp+"/settle", "settle %v is outside 0..%v", st.Settle.D(), MaxGrace)
	}
	if y := st.Yield; y != nil {
		c.yield(sp+"/yield", y, kind)
	}
}

func (c *checker) yield(yp string, y *Yield, kind Kind) {
	maxT := MaxTimeout.Seconds()
	if y.Unit != Seconds {
		maxT *= 1000
	}
	c.atMost(yp+"/default", "default", y.Default, maxT)
	bounds := func(p string, lo, hi *float64) {
		if lo != nil && *lo < 0 {
			c.errf(p+"/min", "min %v is negative", *lo)
		}
		if lo != nil && hi != nil && *lo > *hi {
			c.errf(p+"/min", "min %v is greater than max %v", *lo, *hi)
		}
		if hi != nil {
			c.atMost(p+"/max", "max", *hi, maxT)
		}
	}
	bounds(yp, y.Min, y.Max)
	if y.Default < 0 {
		c.errf(yp+"/default", "default %v is negative", y.Default)
	}
	if e := y.Empty; e != nil {
		if kind != KindSessionWrite {
			c.errf(yp+"/empty", "empty is the range of a write with nothing to write: it goes on a session_write tool")
		}
		bounds(yp+"/empty", e.Min, e.Max)
	}
}

// budget checks an output budget and its parameter.
func (c *checker) budget(op string, t *Tool) {
	b := t.Output.Budget
	if b == nil {
		return
	}
	bp := op + "/budget"
	if t.Output.Capture != CaptureCombined && !t.Kind.IsSession() {
		c.errf(bp, "a budget applies to the combined output: it needs output.capture combined")
	}
	if t.Output.Truncate != nil {
		c.errf(bp, "a budget and output.truncate both cut the output: choose one")
	}
	if b.Unit != BudgetTokens && b.BytesPerToken != 0 {
		c.errf(bp+"/bytes_per_token", "bytes_per_token goes with unit tokens")
	}
	if b.Max != nil && b.Default > *b.Max {
		c.errf(bp+"/default", "default %d is above max %d", b.Default, *b.Max)
	}
	c.atMost(bp+"/default", "default", float64(b.Default), MaxSize)
	if b.Max != nil {
		c.atMost(bp+"/max", "max", float64(*b.Max), MaxSize)
	}
	c.template(bp+"/marker", b.Marker)
	if b.Notice != "" {
		c.template(bp+"/notice", b.Notice)
	}
	if b.Unit == BudgetChars && t.Output.Decode == DecodeRaw {
		c.errf(bp+"/unit", "a budget in chars needs decoded text (decode is raw)")
	}
}

// pagedRead reports whether a tool of kind is a session_read that pages through the output (session.page).
func pagedRead(t *Tool, kind Kind) bool {
	return kind == KindSessionRead && t.Session != nil && t.Session.Page != nil
}

// numberRole checks that the tool's parameter with role r, when it has one, is an integer or a number.
func (c *checker) numberRole(ptr string, t *Tool, r Role) {
	if p := t.Param(r); p != nil && p.Type != TypeInteger && p.Type != TypeNumber {
		c.errf(ptr+"/params", "parameter %q has role %s: its type is integer or number, not %s", p.Name, r, p.Type)
	}
}
