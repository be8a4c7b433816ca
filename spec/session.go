package spec

import "time"

// Sessions: interactive processes that outlive the call that started them. A session tool starts a
// command and waits a yield window for its output (session_start); the command still running when the
// window closes becomes a session with an id, which the other session tools write to (session_write: an
// empty write polls), read (session_read), kill (session_kill) and list (session_list). Each window's
// answer is the output that arrived since the last one, cut to a budget the model may choose (Budget).

// Sessions configures the variant's registry of sessions.
type Sessions struct {
	// IDs is how sessions are numbered: sequential (FirstID, FirstID+1, ..., the default) or random (drawn
	// uniformly from FirstID..LastID, never one in use).
	IDs SessionIDs `yaml:"ids,omitempty" json:"ids,omitempty" jsonschema:"enum=sequential,enum=random"`
	// FirstID is the smallest id (default 1); LastID the largest a random id may take (default 2^31-1).
	FirstID int `yaml:"first_id,omitempty" json:"first_id,omitempty" jsonschema:"minimum=0,maximum=2147483647"`
	LastID  int `yaml:"last_id,omitempty" json:"last_id,omitempty" jsonschema:"minimum=0,maximum=2147483647"`
	// MaxLive bounds the sessions the registry holds, running or exited and not yet reported (default 64).
	MaxLive int `yaml:"max_live,omitempty" json:"max_live,omitempty" jsonschema:"minimum=0,maximum=4096"`
	// OnFull says what a start does when the registry is full: fail (LimitError, nothing started; the
	// default) or prune (a session is killed and forgotten to make room: the least recently used, except
	// the ProtectRecent most recently used ones, an exited one first with PruneExitedFirst).
	OnFull OnFull `yaml:"on_full,omitempty" json:"on_full,omitempty" jsonschema:"enum=fail,enum=prune"`
	// ProtectRecent (prune) is how many of the most recently used sessions are never pruned.
	ProtectRecent int `yaml:"protect_recent,omitempty" json:"protect_recent,omitempty" jsonschema:"minimum=0,maximum=4096"`
	// PruneExitedFirst (prune) prunes the least recently used session that has exited before any running one.
	PruneExitedFirst bool `yaml:"prune_exited_first,omitempty" json:"prune_exited_first,omitempty"`
	// KeepExited keeps a session whose exit was reported: later reads answer its exit again (with what it
	// wrote since), and lists show it, until it is killed or pruned. Without it the session is forgotten.
	KeepExited bool `yaml:"keep_exited,omitempty" json:"keep_exited,omitempty"`
	// Buffer is how many bytes of a session's output are kept between two reads: the first half and the
	// last half, what lies between is dropped (default 1 MiB).
	Buffer int `yaml:"buffer,omitempty" json:"buffer,omitempty" jsonschema:"minimum=0,maximum=268435456"`
	// LimitError is the failure of a start when the registry is full (on_full fail); data: .Max.
	LimitError *Failure `yaml:"limit_error,omitempty" json:"limit_error,omitempty"`
	// UnknownID is the failure for a session id the registry does not hold (never started, killed, pruned,
	// or exited and reported); data: .ID (as sent).
	UnknownID *Failure `yaml:"unknown_id,omitempty" json:"unknown_id,omitempty"`
	// StdinClosed is the failure of a non-empty write to a session whose stdin is closed (started on pipes
	// with session.stdin closed); data: .ID.
	StdinClosed *Failure `yaml:"stdin_closed,omitempty" json:"stdin_closed,omitempty"`
}

// SessionTool configures a tool of the session family.
type SessionTool struct {
	// Yield is the window a start, write or read waits for output before it answers (session_start,
	// session_write, session_read). The window closes early when the command exits.
	Yield *Yield `yaml:"yield,omitempty" json:"yield,omitempty"`
	// PTY (session_start) starts commands on a pseudo-terminal of their own (24x80): their output is the
	// terminal's, "\r\n" line ends included, and writes are typed into it. A parameter with role tty
	// decides per call; this is what an absent one means.
	PTY bool `yaml:"pty,omitempty" json:"pty,omitempty"`
	// Stdin (session_start) is what a command started without a terminal reads: closed (/dev/null, the
	// default: a write fails with sessions.stdin_closed) or open (a pipe the writes go to).
	Stdin SessionStdin `yaml:"stdin,omitempty" json:"stdin,omitempty" jsonschema:"enum=closed,enum=open"`
	// Settle (session_write) is how long a non-empty write waits before its window opens, for the
	// command to react (Go duration).
	Settle Duration `yaml:"settle,omitempty" json:"settle,omitempty"`
	// Pipes (session_start) is how a command started without a terminal writes its output: one (stdout
	// and stderr on one pipe, in the order the command wrote them; the default) or two (a pipe each,
	// merged in the order their chunks arrive, as a host that reads a child's stdout and stderr apart).
	Pipes SessionPipes `yaml:"pipes,omitempty" json:"pipes,omitempty" jsonschema:"enum=one,enum=two"`
	// Until (session_write, session_read) is what closes the window besides its length and the
	// command's exit: output (output is there to answer: what arrived since the last call, or the first
	// that arrives), or time (the default).
	Until ReadUntil `yaml:"until,omitempty" json:"until,omitempty" jsonschema:"enum=time,enum=output"`
	// Page (session_read) makes the read page by lines through the session's whole output, kept from its
	// start, instead of answering the window's output: the lines from the session's read position (which
	// only such reads move), at most Page.Lines of them, with their counts (docs/spec.md, "Paged reads").
	Page *SessionPage `yaml:"page,omitempty" json:"page,omitempty"`
	// Since (session_write) is where a write's window starts: last (the output since the last call, the
	// default) or write (only what arrives after the write, as a host that takes a snapshot of the output
	// before it writes; what arrived before stays in the log a paged read reads).
	Since WindowSince `yaml:"since,omitempty" json:"since,omitempty" jsonschema:"enum=last,enum=write"`
	// Newline (session_write) writes a "\n" after a non-empty text that does not end in one.
	Newline bool `yaml:"newline,omitempty" json:"newline,omitempty"`
	// RunningOnly (session_write, session_read, session_kill) makes a session whose command has exited
	// unknown to this tool (its unknown_id), as a host whose tool looks only among the running processes.
	RunningOnly bool `yaml:"running_only,omitempty" json:"running_only,omitempty"`
	// UnknownID (session_write, session_read, session_kill) is this tool's failure for an id it does not
	// know, when it is not sessions.unknown_id; data: .ID (as sent).
	UnknownID *Failure `yaml:"unknown_id,omitempty" json:"unknown_id,omitempty"`
	// Keep (session_kill) leaves the killed session in the registry, exited, instead of forgetting it: with
	// sessions.keep_exited a read answers its exit, as a host that keeps a terminated process's output.
	Keep bool `yaml:"keep,omitempty" json:"keep,omitempty"`
}

// WindowSince is where a session_write's window starts.
type WindowSince string

const (
	SinceLast  WindowSince = "last"  // the output since the last call
	SinceWrite WindowSince = "write" // only what arrives after the write
)

// SessionPage is how a session_read pages through a session's output. The output is kept from the start
// (its last sessions.buffer bytes) and split on "\n" as JavaScript's split does: a last "\n" leaves an
// empty last line, and a line still being written is the last. A parameter with role offset picks where a
// read starts (0, the default: the read position; a positive number: that line, counted from 0; a negative
// one: that many lines from the end), one with role lines how many lines it reads.
type SessionPage struct {
	// Lines is how many lines a read returns when the parameter with role lines is absent (default 1000).
	Lines int `yaml:"lines,omitempty" json:"lines,omitempty" jsonschema:"minimum=0"`
	// RewindExited reads a session whose command has exited from its first line on (the offset counted
	// from there), without moving the read position, as a host that keeps a finished process's output
	// apart and reads it whole.
	RewindExited bool `yaml:"rewind_exited,omitempty" json:"rewind_exited,omitempty"`
}

// DefaultPageLines is SessionPage.Lines when the spec gives none.
const DefaultPageLines = 1000

// SessionPipes is how a session's command writes its output.
type SessionPipes string

const (
	PipesOne SessionPipes = "one" // stdout and stderr on one pipe
	PipesTwo SessionPipes = "two" // a pipe each, merged as their chunks arrive
)

// Yield is a yield window: its parameter (role yield) in Unit, its default, and the range a value is
// clamped to.
type Yield struct {
	// Unit of the parameter: ms (the default) or s.
	Unit TimeUnit `yaml:"unit,omitempty" json:"unit,omitempty" jsonschema:"enum=s,enum=ms"`
	// Default applies when the parameter is absent (or the tool has none).
	Default float64 `yaml:"default" json:"default" jsonschema:"minimum=0"`
	// Min and Max clamp the value (after the default).
	Min *float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max *float64 `yaml:"max,omitempty" json:"max,omitempty"`
	// Empty (session_write) is the range of a write with nothing to write, a poll, when it differs.
	Empty *YieldRange `yaml:"empty,omitempty" json:"empty,omitempty"`
}

// YieldRange is the range of a poll's window.
type YieldRange struct {
	Min *float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max *float64 `yaml:"max,omitempty" json:"max,omitempty"`
}

// Budget cuts an output to a size the model may choose per call (a parameter with role budget), keeping
// its first half and its last half with a marker between them, as a tool that counts tokens by
// approximation does (bytes divided by BytesPerToken, rounded up). It applies to the combined output.
type Budget struct {
	// Unit of the budget: tokens (BytesPerToken bytes each, rounded up), bytes or chars.
	Unit BudgetUnit `yaml:"unit" json:"unit" jsonschema:"enum=tokens,enum=bytes,enum=chars"`
	// BytesPerToken is the approximation of a token (tokens only; default 4).
	BytesPerToken int `yaml:"bytes_per_token,omitempty" json:"bytes_per_token,omitempty" jsonschema:"minimum=0,maximum=1024"`
	// Default is the budget when the parameter is absent (or the tool has none).
	Default int `yaml:"default" json:"default" jsonschema:"minimum=0,maximum=268435456"`
	// Max caps a larger request (the host's own limit).
	Max *int `yaml:"max,omitempty" json:"max,omitempty" jsonschema:"minimum=0,maximum=268435456"`
	// Marker is a template put between the kept halves; data: .Elided (for tokens: the bytes over the
	// budget in tokens, rounded up; else the units cut), .Total (the whole output's units), .Kept.
	Marker string `yaml:"marker" json:"marker"`
	// Notice is a template put before a cut output; data: .Total (the whole output's units) and .Lines.
	Notice string `yaml:"notice,omitempty" json:"notice,omitempty"`
}

// SessionIDs is how sessions are numbered.
type SessionIDs string

const (
	SessionIDsSequential SessionIDs = "sequential" // FirstID, FirstID+1, ... (the default)
	SessionIDsRandom     SessionIDs = "random"     // uniform in FirstID..LastID
)

// OnFull is what a start does when the session registry is full.
type OnFull string

const (
	OnFullFail  OnFull = "fail"  // the start fails with sessions.limit_error (the default)
	OnFullPrune OnFull = "prune" // a session is killed and forgotten to make room
)

// SessionStdin is what a session started without a terminal reads.
type SessionStdin string

const (
	SessionStdinClosed SessionStdin = "closed" // /dev/null: a non-empty write fails (the default)
	SessionStdinOpen   SessionStdin = "open"   // a pipe the writes go to
)

// BudgetUnit is the unit of an output budget.
type BudgetUnit string

const (
	BudgetTokens BudgetUnit = "tokens" // approximate tokens: bytes / bytes_per_token, rounded up
	BudgetBytes  BudgetUnit = "bytes"
	BudgetChars  BudgetUnit = "chars"
)

// Defaults of the session language.
const (
	// DefaultSessionMaxLive is Sessions.MaxLive when the spec gives none.
	DefaultSessionMaxLive = 64
	// DefaultSessionBuffer is Sessions.Buffer when the spec gives none.
	DefaultSessionBuffer = 1 << 20
	// DefaultBytesPerToken is Budget.BytesPerToken when the spec gives none.
	DefaultBytesPerToken = 4
	// MaxSessionID is the largest session id (a JSON number every host reads exactly).
	MaxSessionID = 1<<31 - 1
)

// The failures the runtime raises when a sessions block names none.
var (
	// DefaultSessionUnknownID is Sessions.UnknownID when the spec gives none.
	DefaultSessionUnknownID = Failure{Type: "ToolError", Message: "unknown session id: {{.ID}}"}
	// DefaultSessionLimitError is Sessions.LimitError when the spec gives none.
	DefaultSessionLimitError = Failure{Type: "ToolError", Message: "session limit reached ({{.Max}})"}
	// DefaultSessionStdinClosed is Sessions.StdinClosed when the spec gives none.
	DefaultSessionStdinClosed = Failure{Type: "ToolError", Message: "stdin is closed for session {{.ID}}"}
)

// IsSession reports whether the kind is one of the session family.
func (k Kind) IsSession() bool {
	switch k {
	case KindSessionStart, KindSessionWrite, KindSessionRead, KindSessionKill, KindSessionList:
		return true
	}
	return false
}

// Waits reports whether a tool of this kind waits a yield window and answers with output.
func (k Kind) Waits() bool {
	return k == KindSessionStart || k == KindSessionWrite || k == KindSessionRead
}

func (s *Sessions) fillDefaults() {
	if s.IDs == "" {
		s.IDs = SessionIDsSequential
	}
	if s.FirstID == 0 && s.IDs == SessionIDsSequential {
		s.FirstID = 1
	}
	if s.LastID == 0 {
		s.LastID = MaxSessionID
	}
	if s.MaxLive <= 0 {
		s.MaxLive = DefaultSessionMaxLive
	}
	if s.OnFull == "" {
		s.OnFull = OnFullFail
	}
	if s.Buffer <= 0 {
		s.Buffer = DefaultSessionBuffer
	}
	fill := func(f **Failure, def Failure) {
		if *f == nil {
			*f = &def
		}
	}
	fill(&s.UnknownID, DefaultSessionUnknownID)
	fill(&s.LimitError, DefaultSessionLimitError)
	fill(&s.StdinClosed, DefaultSessionStdinClosed)
}

func (st *SessionTool) fillDefaults() {
	if st.Stdin == "" {
		st.Stdin = SessionStdinClosed
	}
	if y := st.Yield; y != nil && y.Unit == "" {
		y.Unit = Milliseconds
	}
}

func (b *Budget) fillDefaults() {
	if b.Unit == BudgetTokens && b.BytesPerToken == 0 {
		b.BytesPerToken = DefaultBytesPerToken
	}
}

// Clamp applies the window's range to a value (the poll range for an empty write, when it has one).
func (y *Yield) Clamp(v float64, empty bool) float64 {
	lo, hi := y.Min, y.Max
	if empty && y.Empty != nil {
		lo, hi = y.Empty.Min, y.Empty.Max
	}
	if lo != nil && v < *lo {
		v = *lo
	}
	if hi != nil && v > *hi {
		v = *hi
	}
	return v
}

// Window is the yield window for a value in the window's unit: clamped to its range (Clamp), as a
// duration, at most MaxTimeout.
func (y *Yield) Window(v float64, empty bool) time.Duration {
	d := y.Clamp(v, empty) * float64(y.Unit.Duration())
	if d > float64(MaxTimeout) {
		d = float64(MaxTimeout)
	}
	return time.Duration(d)
}

// Effective is the budget for a requested value (the default when requested is negative), capped by Max.
func (b *Budget) Effective(requested int) int {
	if requested < 0 {
		requested = b.Default
	}
	if b.Max != nil && requested > *b.Max {
		requested = *b.Max
	}
	return requested
}
