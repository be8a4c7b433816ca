package spec

import "time"

// The enumerations of the spec language. Each is a string type, so a YAML value decodes into it as it is
// written; the JSON Schema (enum tags on the fields) rejects any other value with its position before
// anything reads it. Load fills every default, so after Load no field of these types is empty unless the
// field is optional and absent (a missing block such as Tool.Timeout).

// Kind is what a tool does.
type Kind string

const (
	KindExec Kind = "exec" // runs a command (the default)
	KindPoll Kind = "poll" // reads a background shell
	KindKill Kind = "kill" // ends a background shell
	KindList Kind = "list" // lists the background shells

	// The session family (see Sessions).
	KindSessionStart Kind = "session_start" // starts a command and waits a yield window; one still running is a session
	KindSessionWrite Kind = "session_write" // writes to a session's stdin (nothing: a poll) and waits a yield window
	KindSessionRead  Kind = "session_read"  // waits a yield window for a session's output
	KindSessionKill  Kind = "session_kill"  // kills a session and forgets it
	KindSessionList  Kind = "session_list"  // lists the sessions
)

// CarryState is a part of a shell's state that carries across calls (Tool.Carry).
type CarryState string

const (
	CarriedCwd CarryState = "cwd" // the working directory
	CarriedEnv CarryState = "env" // the exported environment
)

// Role tells the runtime what a parameter means.
type Role string

const (
	RoleCommand    Role = "command"    // the command to run
	RoleTimeout    Role = "timeout"    // the timeout, in Timeout.Unit
	RoleWorkdir    Role = "workdir"    // the working directory
	RoleEnv        Role = "env"        // environment variables merged over the inherited ones
	RoleBackground Role = "background" // true runs the command in the background registry
	RoleCapture    Role = "capture"    // false sends output to the host's terminal instead of capturing it
	RoleShellID    Role = "shell_id"   // a background shell's id (poll and kill tools)
	RoleWorkspace  Role = "workspace"  // the name of one of the engine's workspaces
	RoleSessionID  Role = "session_id" // a session's id (session_write, session_read, session_kill)
	RoleStdin      Role = "stdin"      // the text a session_write writes (empty: a poll)
	RoleYield      Role = "yield"      // the yield window, in session.yield.unit
	RoleTTY        Role = "tty"        // true starts a session on a pseudo-terminal (session_start)
	RoleBudget     Role = "budget"     // the output budget, in output.budget.unit
	RoleLines      Role = "lines"      // how many of a background shell's last log lines a poll reads
	RoleOffset     Role = "offset"     // where a paged session_read starts: 0 the read position, n line n, -n n lines from the end
	RoleNone       Role = "none"       // recorded only (the default)
)

// Type is the JSON type of a parameter or a result field.
type Type string

const (
	TypeString  Type = "string"
	TypeInteger Type = "integer"
	TypeNumber  Type = "number"
	TypeBoolean Type = "boolean"
	TypeObject  Type = "object"
	TypeArray   Type = "array" // result fields, and parameters (of strings) with role argv or commands
	TypeJSON    Type = "json"  // result fields only: a template that renders JSON
)

// Format is a tool's result format.
type Format string

const (
	FormatJSON Format = "json" // a JSON object
	FormatText Format = "text" // a string
)

// SandboxMode is what a sandboxed command may write.
type SandboxMode string

const (
	SandboxReadOnly       SandboxMode = "read-only"       // nothing
	SandboxWorkspaceWrite SandboxMode = "workspace-write" // the workspace and a private TMPDIR
)

// Expiry is what happens when a timeout passes.
type Expiry string

const (
	ExpiryKill       Expiry = "kill"       // the process group is killed: the timeout outcome
	ExpiryBackground Expiry = "background" // the process moves to the background registry: the background outcome
)

// Outcome names how a call ended, and the result case (Results.Cases) that shapes it. Besides these, a
// Failure's Result names a case of its own (error, by convention), and spawn_error.<ERRNO> shapes the spawn
// errors of one system error (SpawnErrorOf).
type Outcome string

const (
	OutcomeSuccess    Outcome = "success"     // the command exited 0
	OutcomeFailure    Outcome = "failure"     // the command exited non-zero or was killed by a signal
	OutcomeExit       Outcome = "exit"        // either, when success or failure has no case of its own
	OutcomeTimeout    Outcome = "timeout"     // the timeout expired and the process group was killed
	OutcomeBackground Outcome = "background"  // the command runs on in the background registry
	OutcomeSpawnError Outcome = "spawn_error" // the shell could not be started
	OutcomeOK         Outcome = "ok"          // a poll or kill tool's answer
	OutcomeRunning    Outcome = "running"     // a session's command runs on after the yield window
)

// SpawnErrorOf is the outcome of a spawn error with the system error errno (ENOTDIR, EACCES).
func SpawnErrorOf(errno string) Outcome { return OutcomeSpawnError + "." + Outcome(errno) }

// TimeUnit is the unit of a timeout parameter.
type TimeUnit string

const (
	Seconds      TimeUnit = "s"
	Milliseconds TimeUnit = "ms"
)

// Duration is the length of one unit.
func (u TimeUnit) Duration() time.Duration {
	if u == Milliseconds {
		// mutate: unit-ms
		return time.Millisecond
	}
	return time.Second
}

// Of is d counted in this unit (1 s is 1 in s, 1000 in ms).
func (u TimeUnit) Of(d time.Duration) float64 { return float64(d) / float64(u.Duration()) }

// SizeUnit is the unit of a truncation limit.
type SizeUnit string

const (
	Bytes SizeUnit = "bytes" // UTF-8 bytes of the text (raw bytes with Decode raw)
	Chars SizeUnit = "chars" // code points
	// UTF16 counts UTF-16 code units, as a JavaScript string's length does (a character outside the BMP
	// is two). Only results.spill measures in it.
	UTF16 SizeUnit = "utf16"
)

// Keep says which parts of a truncated text are kept.
type Keep string

const (
	KeepHead     Keep = "head"
	KeepTail     Keep = "tail"
	KeepHeadTail Keep = "head_tail"
)

// Capture says how stdout and stderr are captured.
type Capture string

const (
	CaptureSeparate Capture = "separate" // two streams (the default)
	CaptureCombined Capture = "combined" // one pipe for both, interleaved as written
)

// Decode is how output bytes become text.
type Decode string

const (
	DecodeStrict  Decode = "strict"  // Python errors="strict": invalid UTF-8 is the decode_error failure
	DecodeReplace Decode = "replace" // one U+FFFD per maximal invalid subpart (the default)
	DecodeIgnore  Decode = "ignore"  // invalid bytes dropped
	DecodeRaw     Decode = "raw"     // bytes kept; Sanitize decides at the end
)

// Newlines says how line ends are read.
type Newlines string

const (
	NewlinesKeep      Newlines = "keep"      // as written (the default)
	NewlinesUniversal Newlines = "universal" // \r\n and a lone \r become \n
)

// Sanitize makes raw text valid UTF-8 at the end.
type Sanitize string

const (
	SanitizePerByte Sanitize = "per_byte" // one U+FFFD per invalid byte (Go's encoding/json)
	SanitizeReplace Sanitize = "replace"  // one U+FFFD per maximal invalid subpart
)

// SignalExit says what exit code a shell killed by signal N reports.
type SignalExit string

const (
	SignalNegative SignalExit = "negative"  // -N (Python; the default)
	SignalZero     SignalExit = "zero"      // 0 (Node's code ?? 0)
	SignalMinusOne SignalExit = "minus_one" // -1 (Go's ExitCode())
	SignalShell    SignalExit = "shell"     // 128+N
	SignalOne      SignalExit = "one"       // 1 (Node's code ?? 1)
)

// Stdin is what upstream gives a command as stdin (agentbash always closes it).
type Stdin string

const (
	StdinInherit Stdin = "inherit"
	StdinClosed  Stdin = "closed"
)

// NullParams says how JSON null is read for a parameter that is not nullable.
type NullParams string

const (
	NullAbsent  NullParams = "absent"  // as if it were not sent (the default)
	NullInvalid NullParams = "invalid" // the invalid_param failure, "must not be null"
)

// OnNull says what a JSON null timeout means.
type OnNull string

const (
	OnNullDefault OnNull = "default" // the default timeout (the default)
	OnNullNone    OnNull = "none"    // no timeout at all
)

// OutOfRange says what a timeout outside min..max does.
type OutOfRange string

const (
	OutOfRangeFail  OutOfRange = "fail"  // Timeout.Fail
	OutOfRangeClamp OutOfRange = "clamp" // the nearest bound
)

// NonPositive says what a timeout <= 0 means after the range rule.
type NonPositive string

const (
	NonPositiveExpire  NonPositive = "expire"  // it expires at once (the default)
	NonPositiveDefault NonPositive = "default" // the default timeout
	NonPositiveNone    NonPositive = "none"    // no timeout at all (a host's `timeout or None`)
)

// Invalid says what a timeout that is not a number means (with a lenient parameter).
type Invalid string

const InvalidDefault Invalid = "default"

// IDs is how background shells are named.
type IDs string

const (
	IDsUUID       IDs = "uuid"
	IDsPID        IDs = "pid"
	IDsSequential IDs = "sequential" // 1, 2, 3, ... in the order the shells start
)

// Poll is what a poll returns of a background shell's output.
type Poll string

const (
	PollAll Poll = "all" // the whole buffer every time (the default)
	PollNew Poll = "new" // only what arrived since the last poll
)

// CutDecode is how a multi-byte character split by a byte cut is decoded.
type CutDecode string

const (
	CutReplace CutDecode = "replace"
	CutIgnore  CutDecode = "ignore"
)

// StripLeading is what output.strip removes at the start of a text.
type StripLeading string

const (
	StripAll        StripLeading = "all"         // all white space (Python's str.strip())
	StripBlankLines StripLeading = "blank_lines" // whole blank lines: the white space up to the last newline before the first other character
)
