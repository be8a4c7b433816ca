// Package spec is the agentbash spec language: the Go types a variant's YAML decodes into, loading with
// positions, the JSON Schema editors validate against, and the semantic checks that run before anything
// executes. The types are the normalized model every other package reads: runtime executes a Variant, gen
// renders it, conformance derives cases from it.
package spec

// Variant is one documented Bash-tool contract: a set of tools sharing a shell, a workspace and (for tools
// that leave processes running) a background registry.
type Variant struct {
	// SpecVersion is the version of the spec language the spec is written in (1 or 2; the current one is
	// spec.SpecVersion). Optional: without it, a spec is read in the current version and the forms of earlier
	// versions it uses are converted, each with a note; with it, those of later versions are errors.
	SpecVersion int `yaml:"spec_version,omitempty" json:"spec_version,omitempty"`
	// ID names the variant (lower case, digits, underscores and dashes); for built-ins it is the folder name.
	// A generated adapter's default Go package is the id without its dashes (gemini-cli: geminicli).
	ID string `yaml:"id" json:"id" jsonschema:"pattern=^[a-z][a-z0-9_]*(-[a-z0-9_]+)*$"`
	// Title is a one-line human name.
	Title string `yaml:"title" json:"title"`
	// Summary says in a sentence or two what the contract is.
	Summary string `yaml:"summary,omitempty" json:"summary,omitempty"`
	// Hosts names the agent frameworks whose models expect this contract (variants.ForHost looks here).
	Hosts []string `yaml:"hosts,omitempty" json:"hosts,omitempty"`
	// Shell says how commands are run.
	Shell Shell `yaml:"shell" json:"shell"`
	// Policies are named command policies that tools reference from their checks.
	Policies []Policy `yaml:"policies,omitempty" json:"policies,omitempty"`
	// Background configures the registry of processes that outlive a call (run_in_background, timeouts that
	// move a process to the background).
	Background *Background `yaml:"background,omitempty" json:"background,omitempty"`
	// Sessions configures the registry of interactive sessions the session tools start, write to, read,
	// kill and list.
	Sessions *Sessions `yaml:"sessions,omitempty" json:"sessions,omitempty"`
	// Tools are the model-facing tools; the first is the primary one.
	Tools []Tool `yaml:"tools" json:"tools" jsonschema:"minItems=1"`
	// Redact are rules applied, in order, to every text a tool answers (its result's strings, and the
	// messages of the errors it raises when Errors is set), as a host's secret scrubber does.
	Redact *Redact `yaml:"redact,omitempty" json:"redact,omitempty"`
	// UnknownTool is the failure for a call to a tool the variant does not have, as the host reports it;
	// data: .Tool. Without it such a call is the host's own error.
	UnknownTool *Failure `yaml:"unknown_tool,omitempty" json:"unknown_tool,omitempty"`
	// Sandbox confines every command the variant runs, by default (runtime/sandbox: Landlock and
	// namespaces, Linux only); a host's runtime.WithSandbox overrides it. Each command-running tool's
	// description tells the model (Variant.ToolDescription).
	Sandbox *Sandbox `yaml:"sandbox,omitempty" json:"sandbox,omitempty"`
	// Conformance tells the conformance suite what a target of this spec needs that the contract does not
	// say (notifications an MCP server waits for).
	Conformance *Conformance `yaml:"conformance,omitempty" json:"conformance,omitempty"`
	// Masks are what the conformance suite replaces, in both answers of a case, before it compares them:
	// the paths and ids a host draws that no other run can match (its session's directory, its task ids).
	// The runtime does not read them.
	Masks []Mask `yaml:"masks,omitempty" json:"masks,omitempty"`

	// Source cites where the contract comes from: the seed document and the upstream code, for a spec that
	// reproduces one (optional for a tool of one's own).
	Source Source `yaml:"source,omitempty" json:"source,omitempty"`
	// Disagreements lists where the seed document and the upstream code differ, and which one we follow.
	Disagreements []Disagreement `yaml:"disagreements,omitempty" json:"disagreements,omitempty"`
	// Deviations lists where we deliberately differ from upstream, each with its reason: only where
	// upstream hangs, leaks or grows without bound, or where the spec language cannot yet say what upstream
	// does. What the runtime does for every variant (stdin closed, the process group killed) is the
	// runtime's own and is not repeated here.
	Deviations []Deviation `yaml:"deviations,omitempty" json:"deviations,omitempty"`

	// File is the path the variant was loaded from (set by Load, not written in YAML).
	File      string `yaml:"-" json:"-"`
	pos       posTable
	completed bool
	notes     Errors
}

// Source cites the seed document and the upstream implementation.
type Source struct {
	Seed     string `yaml:"seed,omitempty" json:"seed,omitempty"`
	Repo     string `yaml:"repo,omitempty" json:"repo,omitempty"`
	Path     string `yaml:"path,omitempty" json:"path,omitempty"`
	Commit   string `yaml:"commit,omitempty" json:"commit,omitempty"`
	Language string `yaml:"language,omitempty" json:"language,omitempty" jsonschema:"enum=python,enum=typescript,enum=go,enum=other"`
	// Runtime is the language runtime the source runs on, with the version whose behaviour the spec follows
	// (cpython-3.11, node-20, go): it decides what the runtime answers where the source passes a value on
	// (a NUL byte, an environment name with "=", a value of a type its calls refuse).
	Runtime SourceRuntime `yaml:"runtime,omitempty" json:"runtime,omitempty" jsonschema:"enum=cpython-3.11,enum=node-20,enum=go"`
	// Notes says anything else about where the facts were read (other files, a renamed repository).
	Notes []string `yaml:"notes,omitempty" json:"notes,omitempty"`
}

// Disagreement is one topic on which the seed document and the upstream code differ (or the seed is
// silent).
type Disagreement struct {
	// Topic names what they disagree on.
	Topic string `yaml:"topic" json:"topic"`
	// Seed is what the seed says; empty when it says nothing.
	Seed string `yaml:"seed,omitempty" json:"seed,omitempty"`
	// Upstream is what the upstream code does.
	Upstream string `yaml:"upstream" json:"upstream"`
	// Follow says which one the spec follows: upstream (the rule) or seed.
	Follow string `yaml:"follow" json:"follow" jsonschema:"enum=upstream,enum=seed"`
	// Note says more, when needed.
	Note string `yaml:"note,omitempty" json:"note,omitempty"`
}

// Deviation is one place where agentbash deliberately answers otherwise than upstream.
type Deviation struct {
	// Topic names what differs.
	Topic string `yaml:"topic" json:"topic"`
	// Upstream is what the upstream code does.
	Upstream string `yaml:"upstream" json:"upstream"`
	// Ours is what agentbash does instead.
	Ours string `yaml:"ours" json:"ours"`
	// Why says why: upstream hangs, leaks or grows without bound, or the spec language cannot say it yet.
	Why string `yaml:"why" json:"why"`
}

// Shell says which program runs a command.
type Shell struct {
	// Argv is the program and its leading arguments; the command is appended as the last argument
	// (["/bin/sh", "-c"]).
	Argv []string `yaml:"argv,omitempty" json:"argv,omitempty"`
	// Embedded runs the command in the embedded mvdan.cc/sh interpreter instead of Argv, for hosts with no
	// shell binary.
	Embedded bool `yaml:"embedded,omitempty" json:"embedded,omitempty"`
	// UpstreamStdin records what upstream gives the child as stdin (inherit or closed); agentbash always
	// closes it, and a variant whose upstream inherits lists that as a deviation.
	UpstreamStdin Stdin `yaml:"upstream_stdin,omitempty" json:"upstream_stdin,omitempty" jsonschema:"enum=inherit,enum=closed"`
	// Grace bounds the wait for output after the shell exits or is killed. The shell's process group is
	// killed as soon as the shell exits, so a background child (`sleep 30 & echo hi`) cannot hold the call;
	// a process that left the group (`setsid ...`) may still hold the pipes, and reading stops after Grace
	// (such a process is not ours to kill and is left alone). Go duration; default 500ms.
	Grace Duration `yaml:"grace,omitempty" json:"grace,omitempty"`
	// SignalExit says what exit code a signal-killed shell reports: negative (-N, Python), zero (Node's
	// `code ?? 0`), minus_one (Go's ExitCode()), or shell (128+N).
	SignalExit SignalExit `yaml:"signal_exit,omitempty" json:"signal_exit,omitempty" jsonschema:"enum=negative,enum=zero,enum=minus_one,enum=shell,enum=one"`
	// SpawnError is the message template for a shell that cannot be started (missing program or working
	// directory); data: .Shell (argv[0]), .Cwd, .Err (Go error text), .Errno, .ErrnoName, .Strerror,
	// .SpawnPath. It becomes the spawn_error.<ERRNO> outcome (spawn_error.ENOTDIR) when the tool has that
	// case, else the spawn_error outcome.
	SpawnError string `yaml:"spawn_error,omitempty" json:"spawn_error,omitempty"`
	// Session starts each command in a session of its own (setsid, Node's detached: true), so $$ is also
	// the session id; otherwise in a process group of its own (setpgid). Either way the group is killed.
	Session bool `yaml:"session,omitempty" json:"session,omitempty"`

	// The command as the host rewrites it (hostfeatures.go).

	// Wrap rewrites each command before the shell runs it (a guard prefix, a subshell with a trap), and can
	// have the shell report the jobs it left running.
	Wrap *CommandWrap `yaml:"wrap,omitempty" json:"wrap,omitempty"`

	// User picks the program from the user's environment, as a host that honours $SHELL does; Argv's
	// first element is then the fallback, looked up on PATH when it is a bare name.
	User *UserShell `yaml:"user,omitempty" json:"user,omitempty"`
}

// UserShell is how a host chooses the user's shell: the program a variable names when it is set, not
// refused and found; else the shell's argv[0] (a bare name looked up on the commands' PATH); else Fallback.
type UserShell struct {
	// Env is the variable that names the user's shell (SHELL).
	Env string `yaml:"env" json:"env"`
	// Refuse lists the shells (by base name, any case) the host does not take from the variable (fish, nu).
	Refuse []string `yaml:"refuse,omitempty" json:"refuse,omitempty"`
	// Fallback is the program when argv[0] is a bare name not found on PATH (/bin/sh).
	Fallback string `yaml:"fallback,omitempty" json:"fallback,omitempty"`
}

// Sandbox is how a variant's commands are confined by default.
type Sandbox struct {
	// Mode is what commands may write: nothing (read-only), or only the workspace and a private
	// temporary directory, their TMPDIR (workspace-write); a .git at the top of a workspace stays
	// read-only.
	Mode SandboxMode `yaml:"mode" json:"mode" jsonschema:"enum=read-only,enum=workspace-write"`
	// Network lets commands use the network (default: a network namespace with only its own loopback).
	Network bool `yaml:"network,omitempty" json:"network,omitempty"`
	// BestEffort runs commands with the mechanisms the machine has when some are missing, instead of
	// failing each call with a spawn error that names them.
	BestEffort bool `yaml:"best_effort,omitempty" json:"best_effort,omitempty"`
	// UnixSockets are the unix sockets outside the workspace that commands may connect to without the
	// network (absolute paths of sockets, or of directories whose sockets they may connect to).
	UnixSockets []string `yaml:"unix_sockets,omitempty" json:"unix_sockets,omitempty"`
}

// Tool is one model-facing tool.
type Tool struct {
	// Name is what the model calls (bash, Bash, BashOutput).
	Name string `yaml:"name" json:"name"`
	// Description is the model-facing description, verbatim from the source.
	Description string `yaml:"description" json:"description"`
	// Kind is what the tool does: exec runs a command; poll reads a background shell; kill ends one; the
	// session family starts a session (session_start), writes to it (session_write), reads it
	// (session_read), kills it (session_kill) or lists them (session_list).
	// persistent types each call into one shell the engine keeps (Persistent); batch runs a list of commands
	// (Batch).
	Kind Kind `yaml:"kind,omitempty" json:"kind,omitempty" jsonschema:"enum=exec,enum=poll,enum=kill,enum=list,enum=session_start,enum=session_write,enum=session_read,enum=session_kill,enum=session_list,enum=persistent,enum=batch"`
	// Params are the model-facing parameters, in the source's order.
	Params []Param `yaml:"params" json:"params"`
	// InvalidParam is how a parameter of the wrong type or a missing required one is reported; data:
	// .Param, .Problem. Default: a ValidationError naming both.
	InvalidParam *Failure `yaml:"invalid_param,omitempty" json:"invalid_param,omitempty"`
	// NullParams is how JSON null is read for a parameter that is not nullable: absent (the default: as if
	// it were not sent) or invalid (the InvalidParam failure with .Problem "must not be null", as a JSON
	// Schema validator such as TypeBox rejects it).
	NullParams NullParams `yaml:"null_params,omitempty" json:"null_params,omitempty" jsonschema:"enum=absent,enum=invalid"`
	// Coerce says how the parameters are read before the tool's code sees them: schema (validated against
	// their JSON types, the default), python (passed to Python code unchecked; the role decides what another
	// type does, as CPython does), pydantic (pydantic v2's lax mode), typebox (TypeBox's Value.Check on
	// JavaScript's numbers) or go (Go type assertions: another type reads as absent).
	Coerce Coerce `yaml:"coerce,omitempty" json:"coerce,omitempty" jsonschema:"enum=schema,enum=python,enum=pydantic,enum=typebox,enum=go,enum=ajv"`
	// RuntimeErrors is how an error the source's language runtime raises reaches the host (source.runtime
	// says which runtime); without it each is raised as the runtime's own class.
	RuntimeErrors *RuntimeErrors `yaml:"runtime_errors,omitempty" json:"runtime_errors,omitempty"`
	// UnknownParams is the failure for a parameter the tool does not declare (the first, in the order the
	// model sent them), as a Python method raises TypeError for an unexpected keyword; data: .Param. Without
	// it, parameters the tool does not declare are ignored.
	UnknownParams *Failure `yaml:"unknown_params,omitempty" json:"unknown_params,omitempty"`
	// Workspaces resolves the parameter with role workspace: the name of one of the engine's workspaces.
	Workspaces *Workspaces `yaml:"workspaces,omitempty" json:"workspaces,omitempty"`
	// Checks run in order before anything starts; the first that fails ends the call.
	Checks []Check `yaml:"checks,omitempty" json:"checks,omitempty"`
	// SchemaForm says what the tool's input schema carries besides its parameters, as the host sends it:
	// the JSON Schema dialect it names, and whether it is closed to other keys.
	SchemaForm *InputSchemaForm `yaml:"input_schema,omitempty" json:"input_schema,omitempty"`
	// Issues reports every problem of a call's parameters in one failure instead of the first alone, as a
	// schema validator that collects its issues (zod, ajv with allErrors) does.
	Issues *Issues `yaml:"issues,omitempty" json:"issues,omitempty"`
	// Timeout interprets the timeout parameter.
	Timeout *Timeout `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// Workdir resolves the working directory.
	Workdir *Workdir `yaml:"workdir,omitempty" json:"workdir,omitempty"`
	// Session configures a tool of the session family: its yield window, terminal and stdin.
	Session *SessionTool `yaml:"session,omitempty" json:"session,omitempty"`
	// Env are environment variables every command of the tool gets, over the inherited ones (a parameter
	// with role env goes over these).
	Env map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
	// Carry is the state that carries from one command of the variant to the next, for a contract that
	// keeps one shell for a conversation: cwd (the working directory the last command ended in is the next
	// one's default) and env (the variables it exported are the next one's environment). An exec tool with
	// an argv shell only.
	Carry []CarryState `yaml:"carry,omitempty" json:"carry,omitempty" jsonschema:"uniqueItems=true,enum=cwd,enum=env"`
	// Output says how output is captured, decoded and truncated.
	Output *Output `yaml:"output,omitempty" json:"output,omitempty"`
	// Results shapes each outcome into what the host receives.
	Results Results `yaml:"results" json:"results"`

	// Waiting on the background (hostfeatures.go).

	// Wait is how long a start in the background (an exec tool whose background parameter is true) waits
	// before it answers, with the output so far and .Running false if the command ended by then; a
	// parameter with role yield sets it per call (in Wait.Unit, clamped to its range; a negative value is 0).
	// On a poll tool it is the delay before the shell is read (Read.Until may end it sooner).
	Wait *Yield `yaml:"wait,omitempty" json:"wait,omitempty"`
	// Read configures a poll tool's reading of the shell's log (background.log): how many last lines it
	// reads, and whether its wait ends at the first new output (bglog.go).
	Read *LogRead `yaml:"read,omitempty" json:"read,omitempty"`

	// The shapes of the model APIs' own shell tools (docs/spec.md, "Persistent shells", "Command lists" and
	// "Tools the model API defines"; spec/apitools.go).

	// Persistent configures a tool of kind persistent: one shell per engine that each call types into.
	Persistent *Persistent `yaml:"persistent,omitempty" json:"persistent,omitempty"`
	// Batch configures a tool of kind batch: a call carries a list of commands, each with its own answer.
	Batch *Batch `yaml:"batch,omitempty" json:"batch,omitempty"`
	// Wrap is the script the shell runs for a command, a template (data: .Command, .Cwd): the command
	// inside a host's own words (`cd "{{.Cwd}}" && {{.Command}}`). Policies see the command as sent.
	Wrap string `yaml:"wrap,omitempty" json:"wrap,omitempty"`
	// API is how the model APIs that define this tool themselves name it in a request, instead of a JSON
	// Schema (`{"type": "bash_20250124", "name": "bash"}`).
	API *APITool `yaml:"api,omitempty" json:"api,omitempty"`

	outcomes []Outcome // result cases in file order (Complete)
	gotool   *GoTool   // the Go model (Complete)
}

// Issues collects the problems of a call's parameters into one failure, the tool's invalid_param, whose
// data .Issues lists them (each an Issue) and whose .Param, .Problem and .Value are the first's. Collected
// are a required parameter missing (kind missing), a key the tool does not declare when unknown_params is
// set (kind unknown; unknown_params' own message is then not used), a value of the wrong JSON type or a
// null that is not accepted (kind type), and a string outside its enum (kind value). A failure of another
// kind (on_type, a parameter read as its coerce says, the tool's checks) still ends the call at once.
type Issues struct {
	// Order lists the kinds in the order their issues are listed: within a kind, parameters in the tool's
	// order and unknown keys in the order sent. A kind not listed comes after, in the default order
	// missing, unknown, type, value.
	Order []IssueKind `yaml:"order,omitempty" json:"order,omitempty" jsonschema:"uniqueItems=true,enum=missing,enum=unknown,enum=type,enum=value"`
}

// IssueKind is the kind of a parameter issue.
type IssueKind string

// The kinds of parameter issues.
const (
	IssueMissing IssueKind = "missing" // a required parameter is not there
	IssueUnknown IssueKind = "unknown" // a key the tool does not declare
	IssueType    IssueKind = "type"    // a value of the wrong JSON type, or a null that is not accepted
	IssueValue   IssueKind = "value"   // a value the parameter does not accept (outside its enum)
)

// IssueKinds are the kinds in their default order.
var IssueKinds = []IssueKind{IssueMissing, IssueUnknown, IssueType, IssueValue}

// Issue is one problem of a call's parameters, as template data (.Issues).
type Issue struct {
	// Kind is missing, unknown, type or value.
	Kind IssueKind
	// Param is the parameter's name (as sent, for an unknown key).
	Param string
	// Problem says what is wrong, as .Problem does for a single invalid parameter ("is required").
	Problem string
	// Type is the parameter's declared JSON type (empty for an unknown key).
	Type Type
	// Value is the value as sent (nil when missing).
	Value any
}

// InputSchemaForm is what a tool's input schema carries besides its parameters.
type InputSchemaForm struct {
	// Dialect is the JSON Schema dialect the schema names first, as its $schema (zod's toJSONSchema:
	// https://json-schema.org/draft/2020-12/schema). Empty: none.
	Dialect string `yaml:"dialect,omitempty" json:"dialect,omitempty" jsonschema:"format=uri"`
	// Closed adds "additionalProperties": false after the required list (zod's strictObject, pydantic's
	// extra="forbid"). It changes what the model is shown only: unknown_params says what a key the tool
	// does not declare does.
	Closed bool `yaml:"closed,omitempty" json:"closed,omitempty"`
}

// Param is one model-facing parameter.
type Param struct {
	Name string `yaml:"name" json:"name"`
	// Type is the JSON type the model sends: string, integer, number, boolean, object (string values), or
	// array (of strings).
	Type Type `yaml:"type" json:"type" jsonschema:"enum=string,enum=integer,enum=number,enum=boolean,enum=object,enum=array"`
	// Required marks a parameter the model must send.
	Required bool `yaml:"required,omitempty" json:"required,omitempty"`
	// Nullable accepts JSON null (Python's `X | None`).
	Nullable bool `yaml:"nullable,omitempty" json:"nullable,omitempty"`
	// Default is the value used when the parameter is absent, as shown to the model.
	Default any `yaml:"default,omitempty" json:"default,omitempty"`
	// Minimum is the schema minimum shown to the model (numbers only).
	Minimum *float64 `yaml:"minimum,omitempty" json:"minimum,omitempty"`
	// Enum lists the values a string parameter may take (zod's z.enum, a Literal union): shown to the
	// model, and any other value is invalid (invalid_param).
	Enum []string `yaml:"enum,omitempty" json:"enum,omitempty" jsonschema:"minItems=1,uniqueItems=true"`
	// ExclusiveMinimum is the schema's exclusiveMinimum shown to the model (numbers only): a value must be
	// greater (zod's and Effect's positive()).
	ExclusiveMinimum *float64 `yaml:"exclusive_minimum,omitempty" json:"exclusive_minimum,omitempty"`
	// Maximum is the schema maximum shown to the model (numbers only).
	Maximum *float64 `yaml:"maximum,omitempty" json:"maximum,omitempty"`
	// Description is shown to the model, verbatim from the source.
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Role tells the runtime what the parameter means: command, timeout, workdir, env, background (run in
	// background), capture (capture output or not), shell_id, workspace, the session roles (session_id,
	// stdin, yield, tty, budget), the roles of the model APIs' tools (argv: a program and its arguments run
	// without a shell; commands: a batch's list; restart: a persistent shell's restart; output_limit: a
	// batch's limit), or none (recorded only, like a description).
	Role Role `yaml:"role,omitempty" json:"role,omitempty" jsonschema:"enum=command,enum=timeout,enum=workdir,enum=env,enum=background,enum=capture,enum=shell_id,enum=workspace,enum=session_id,enum=stdin,enum=yield,enum=tty,enum=budget,enum=lines,enum=offset,enum=argv,enum=commands,enum=restart,enum=output_limit,enum=none"`
	// Lenient accepts a value of another JSON type instead of failing, leaving its interpretation to the role
	// (codegensandbox reads a timeout that is not a number as the default).
	Lenient bool `yaml:"lenient,omitempty" json:"lenient,omitempty"`
	// OnType says what a value of another JSON type than Type does, for a host that passes the model's
	// values to the tool unchecked; keyed by the value's JSON type (null, boolean, integer, number for one
	// with a fraction, string, array, object). A type not listed fails as validated (InvalidParam).
	OnType map[string]TypeOutcome `yaml:"on_type,omitempty" json:"on_type,omitempty"`
	// InvalidEntries (object parameters) says what an entry whose value is not a string does: fail (the
	// default, as validated) or drop (the entry is left out, as a host that filters the map does).
	InvalidEntries string `yaml:"invalid_entries,omitempty" json:"invalid_entries,omitempty" jsonschema:"enum=fail,enum=drop"`
}

// TypeOutcome is what a parameter value of an unexpected JSON type does. Exactly one is set.
type TypeOutcome struct {
	// Accept uses the value as sent: a number with a fraction as a timeout, a boolean as 1 or 0.
	Accept bool `yaml:"accept,omitempty" json:"accept,omitempty"`
	// Absent treats the parameter as not sent.
	Absent bool `yaml:"absent,omitempty" json:"absent,omitempty"`
	// Argv (a command given as an array) runs the shell with the elements after its argv: the first is
	// the script, the others its $0, $1, ... (Python's Popen(list, shell=True)). ElementFail is the failure
	// for an element that is not a string (data: .Value, the element).
	Argv        bool     `yaml:"argv,omitempty" json:"argv,omitempty"`
	ElementFail *Failure `yaml:"element_fail,omitempty" json:"element_fail,omitempty"`
	// Number (a string given for a number parameter) reads a string that is a decimal number once trimmed
	// (JavaScript's trim() and /^-?\d+(\.\d+)?$/, a zod preprocess) as that number; another string fails
	// as validated (invalid_param).
	Number bool `yaml:"number,omitempty" json:"number,omitempty"`
	// Fail is the failure; data: .Param, .Value (the value as sent; pytype names its Python type).
	Fail *Failure `yaml:"fail,omitempty" json:"fail,omitempty"`
	// When says when Fail (or ElementFail) happens: params (the default: when the parameters are read,
	// before every check) or run (after every check, when the command would start: where a Python
	// subprocess call raises on it).
	When string `yaml:"when,omitempty" json:"when,omitempty" jsonschema:"enum=params,enum=run"`
}

// Failure is how a failed check or an error outcome reaches the host: either raised as a typed error
// (Type + Message) or rendered as a result (Result names an entry of Results.Cases, with .Message set).
type Failure struct {
	// Type is the error class name the source raises (ValueError, ModelRetry, FileNotFoundError, ToolError).
	Type string `yaml:"type,omitempty" json:"type,omitempty"`
	// Result renders this failure as the named result case instead of raising.
	Result Outcome `yaml:"result,omitempty" json:"result,omitempty"`
	// Message is a text/template; its data depends on where the failure is used.
	Message string `yaml:"message" json:"message"`
	// Code makes the failure a JSON-RPC error with this code, as an MCP server answers a request it refuses
	// (unknown_tool, invalid_param only): the host sees a protocol error, not a tool result.
	Code int `yaml:"code,omitempty" json:"code,omitempty"`
}

// Check is one step of a tool's ordered validation. Exactly one of the selectors is set.
type Check struct {
	// Required fails when the named parameter is absent or null.
	Required string `yaml:"required,omitempty" json:"required,omitempty"`
	// NotEmpty fails when the named string parameter is "".
	NotEmpty string `yaml:"not_empty,omitempty" json:"not_empty,omitempty"`
	// NotBlank fails when the named string parameter is empty or only white space.
	NotBlank string `yaml:"not_blank,omitempty" json:"not_blank,omitempty"`
	// Timeout applies the tool's timeout range rule at this point of the order.
	Timeout bool `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// Workdir applies the tool's working-directory checks at this point of the order.
	Workdir bool `yaml:"workdir,omitempty" json:"workdir,omitempty"`
	// Workspace resolves the workspace parameter at this point of the order.
	Workspace bool `yaml:"workspace,omitempty" json:"workspace,omitempty"`
	// Policy runs the named policy on the command.
	Policy string `yaml:"policy,omitempty" json:"policy,omitempty"`
	// Fail is the failure for Required, NotEmpty and NotBlank (data: .Param, .Command). Timeout, Workdir and
	// Policy carry their own failures.
	Fail *Failure `yaml:"fail,omitempty" json:"fail,omitempty"`
}

// Timeout interprets the timeout parameter. Steps apply in this order: null, not a number, fractions,
// range, non-positive; then the effective timeout is used.
type Timeout struct {
	// Unit of the parameter: s or ms.
	Unit TimeUnit `yaml:"unit" json:"unit" jsonschema:"enum=s,enum=ms"`
	// Default applies when the parameter is absent (in Unit).
	Default float64 `yaml:"default" json:"default"`
	// OnNull says what JSON null means: default, or none (no timeout at all).
	OnNull OnNull `yaml:"on_null,omitempty" json:"on_null,omitempty" jsonschema:"enum=default,enum=none"`
	// Invalid says what a value that is not a number means (with a lenient param): default.
	Invalid Invalid `yaml:"invalid,omitempty" json:"invalid,omitempty" jsonschema:"enum=default"`
	// TruncateFraction drops the fractional part (Go's int conversion).
	TruncateFraction bool `yaml:"truncate_fraction,omitempty" json:"truncate_fraction,omitempty"`
	// Min and Max bound the value (in Unit).
	Min *float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max *float64 `yaml:"max,omitempty" json:"max,omitempty"`
	// OutOfRange is fail (Fail is raised) or clamp.
	OutOfRange OutOfRange `yaml:"out_of_range,omitempty" json:"out_of_range,omitempty" jsonschema:"enum=fail,enum=clamp"`
	// RangeSkipsZero exempts 0 from the range rule (Python's `if timeout and ...`).
	RangeSkipsZero bool `yaml:"range_skips_zero,omitempty" json:"range_skips_zero,omitempty"`
	// NonPositive says what a value <= 0 means after the range rule: expire (at once), default, or none (no
	// timeout).
	NonPositive NonPositive `yaml:"non_positive,omitempty" json:"non_positive,omitempty" jsonschema:"enum=expire,enum=default,enum=none"`
	// Expiry is what happens when the timeout passes: kill (the process group; the timeout outcome) or
	// background (the process moves to the background registry; the background outcome).
	Expiry Expiry `yaml:"expiry" json:"expiry" jsonschema:"enum=kill,enum=background"`
	// KillIf, with expiry background, is a regular expression (RE2) searched in the command: a command it
	// matches is killed at expiry instead (the timeout outcome), as a host that backgrounds only the
	// commands it judges worth keeping.
	KillIf string `yaml:"kill_if,omitempty" json:"kill_if,omitempty"`
	// Signal is what a command the timeout kills (expiry kill, or kill_if) is sent first, to its process
	// group: SIGTERM, SIGINT, SIGHUP or SIGQUIT; the group is then killed (SIGKILL) once shell.grace has
	// passed, or as soon as every process of the group has exited. Empty: SIGKILL at once. The result
	// waits for the end and shows the output written until then (until expiry with OutputAtExpiry).
	Signal string `yaml:"signal,omitempty" json:"signal,omitempty" jsonschema:"enum=SIGTERM,enum=SIGINT,enum=SIGHUP,enum=SIGQUIT"`
	// OutputAtExpiry makes the timeout result show the output written until the timeout expired, not what
	// the command wrote while it was being stopped: a host that answers at expiry and stops the command
	// behind its answer. A spilled output is still the whole output.
	OutputAtExpiry bool `yaml:"output_at_expiry,omitempty" json:"output_at_expiry,omitempty"`
	// Fail is raised for OutOfRange fail; data: .Timeout (as sent), .Min, .Max.
	Fail *Failure `yaml:"fail,omitempty" json:"fail,omitempty"`
	// Overflow is the host timer's clamp: a timeout above Above (in Unit) runs as Use instead (Node's
	// setTimeout runs a delay over 2^31-1 ms as 1 ms).
	Overflow *TimeoutOverflow `yaml:"overflow,omitempty" json:"overflow,omitempty"`
	// ExpiryFirst makes a timeout that is already over expire before a spawn error is seen, as a host whose
	// process errors arrive after its timer does (Node): the expiry outcome then renders with .Pid 0 and
	// nothing registered. A spawn_error.<ERRNO> case (a failure the host sees at once) still comes first.
	ExpiryFirst bool `yaml:"expiry_first,omitempty" json:"expiry_first,omitempty"`

	// Inactivity (hostfeatures.go).

	// Idle makes the timeout one of inactivity: it starts again at every output the command writes, so a
	// command expires only after that long without output.
	Idle bool `yaml:"idle,omitempty" json:"idle,omitempty"`
}

// TimeoutOverflow is a host timer's clamp.
type TimeoutOverflow struct {
	Above float64 `yaml:"above" json:"above"`
	Use   float64 `yaml:"use" json:"use"`
}

// Workdir resolves the working directory parameter.
type Workdir struct {
	// EmptyIsDefault treats "" like an absent parameter.
	EmptyIsDefault bool `yaml:"empty_is_default,omitempty" json:"empty_is_default,omitempty"`
	// FalsyIsDefault treats a value Python finds false (None, False, 0, 0.0, "", [], {}) like an absent
	// parameter, as a source that tests `if working_dir:` does (with coerce python).
	FalsyIsDefault bool `yaml:"falsy_is_default,omitempty" json:"falsy_is_default,omitempty"`
	// EmptyFailsSpawn makes "" pass the checks as the workspace (Python's Path("") is ".") and then fail
	// to start as a spawn error with errno ENOENT naming '' (Python's Popen(cwd="")).
	EmptyFailsSpawn bool `yaml:"empty_fails_spawn,omitempty" json:"empty_fails_spawn,omitempty"`
	// ResolveSymlinks makes the path absolute and follows symlinks before the checks (Python's resolve()).
	ResolveSymlinks bool `yaml:"resolve_symlinks,omitempty" json:"resolve_symlinks,omitempty"`
	// Absolute fails when the path sent is not absolute (Node's path.isAbsolute), before any other check;
	// data: .Path (as sent).
	Absolute *Failure `yaml:"absolute,omitempty" json:"absolute,omitempty"`
	// Confine fails when the resolved path is outside the workspace; data: .Path (as sent), .Resolved.
	Confine *Failure `yaml:"confine,omitempty" json:"confine,omitempty"`
	// MustExist fails when nothing exists at the path (a regular file passes, and then fails to start as a
	// spawn error with errno ENOTDIR, as Python's exists() check lets it); data: .Path, .Resolved.
	MustExist *Failure `yaml:"must_exist,omitempty" json:"must_exist,omitempty"`
	// MustBeDir fails when the path is not an existing directory; data: .Path (as sent), .Resolved.
	MustBeDir *Failure `yaml:"must_be_dir,omitempty" json:"must_be_dir,omitempty"`
}

// Output says how a command's output is captured, decoded and truncated per stream.
type Output struct {
	// Capture is separate (stdout and stderr), combined (one pipe for both, interleaved as written) or
	// sequential (stdout, then stderr, as one text).
	Capture Capture `yaml:"capture,omitempty" json:"capture,omitempty" jsonschema:"enum=separate,enum=combined,enum=sequential"`
	// Decode is how bytes become text: strict (Python errors="strict"; failure is the decode_error
	// outcome), replace (one U+FFFD per maximal invalid subpart, Python and WHATWG), ignore, or raw (bytes
	// kept as they are; Sanitize decides at the end).
	Decode Decode `yaml:"decode,omitempty" json:"decode,omitempty" jsonschema:"enum=strict,enum=replace,enum=ignore,enum=raw"`
	// Newlines is keep or universal (\r\n and lone \r become \n, after decoding, before any limit).
	Newlines Newlines `yaml:"newlines,omitempty" json:"newlines,omitempty" jsonschema:"enum=keep,enum=universal"`
	// Strip removes leading and trailing white space as Python's str.strip() does.
	Strip bool `yaml:"strip,omitempty" json:"strip,omitempty"`
	// StripLeading says what strip removes at the start: all white space (the default), or only the blank
	// lines (the white space up to the last newline before the first other character: JavaScript's
	// replace(/^(\s*\n)+/, "") before trimEnd()).
	StripLeading StripLeading `yaml:"strip_leading,omitempty" json:"strip_leading,omitempty" jsonschema:"enum=all,enum=blank_lines"`
	// Sanitize makes raw text valid UTF-8 at the end: per_byte (Go encoding/json: one U+FFFD per invalid
	// byte) or replace.
	Sanitize Sanitize `yaml:"sanitize,omitempty" json:"sanitize,omitempty" jsonschema:"enum=per_byte,enum=replace"`
	// Truncate limits each stream (or the combined stream).
	Truncate *Truncate `yaml:"truncate,omitempty" json:"truncate,omitempty"`
	// DecodeError is the failure when strict decoding fails; data: .Message (Python's UnicodeDecodeError
	// text).
	DecodeError *Failure `yaml:"decode_error,omitempty" json:"decode_error,omitempty"`
	// Budget cuts the combined output to a budget the model may choose (a parameter with role budget).
	Budget *Budget `yaml:"budget,omitempty" json:"budget,omitempty"`

	// Terminal output (hostfeatures.go).

	// StripANSI removes ANSI escape sequences after decoding, as the strip-ansi package does (colours,
	// cursor moves, titles and hyperlinks): before newlines, strip and truncation see the text.
	StripANSI bool `yaml:"strip_ansi,omitempty" json:"strip_ansi,omitempty"`
	// Binary detects binary output from its first bytes: a NUL byte among them ends the text before the read
	// that carried it (the rest is counted, not kept), and templates see .Binary.
	Binary *BinaryOutput `yaml:"binary,omitempty" json:"binary,omitempty"`

	// Spill saves the whole output to a file past a bound; the result then shows a preview (spill.go).
	Spill *Spill `yaml:"spill,omitempty" json:"spill,omitempty"`
}

// Truncate limits a text. For a stream it applies to the decoded text; for a result (Shape.Truncate) to the
// whole rendered text.
type Truncate struct {
	// Unit is bytes (of the UTF-8 text, or raw bytes with Decode raw) or chars (code points).
	Unit SizeUnit `yaml:"unit" json:"unit" jsonschema:"enum=bytes,enum=chars"`
	// Limit: a text longer than this is truncated.
	Limit int `yaml:"limit" json:"limit" jsonschema:"minimum=1,maximum=268435456"`
	// Keep is head, tail or head_tail.
	Keep Keep `yaml:"keep" json:"keep" jsonschema:"enum=head,enum=tail,enum=head_tail"`
	// Head and Tail are the units kept (Head defaults to Limit for keep head, Tail to Limit for keep tail).
	Head int `yaml:"head,omitempty" json:"head,omitempty" jsonschema:"minimum=0,maximum=268435456"`
	Tail int `yaml:"tail,omitempty" json:"tail,omitempty" jsonschema:"minimum=0,maximum=268435456"`
	// TailThreshold (head_tail): the tail is kept only when the text is longer than this; otherwise
	// everything after the head follows the marker (tunacode's COMMAND_OUTPUT_THRESHOLD).
	TailThreshold int `yaml:"tail_threshold,omitempty" json:"tail_threshold,omitempty" jsonschema:"minimum=0,maximum=268435456"`
	// CutDecode is how a multi-byte character split by a byte cut is decoded: replace or ignore.
	CutDecode CutDecode `yaml:"cut_decode,omitempty" json:"cut_decode,omitempty" jsonschema:"enum=replace,enum=ignore"`
	// Marker is a template placed where text was cut (appended for head, prefixed for tail, between for
	// head_tail); data: .Total (units before truncation), .Kept, .Elided.
	Marker string `yaml:"marker" json:"marker"`
}

// Results shapes each outcome of a tool into the value the host receives.
type Results struct {
	// Format is json (an object) or text (a string).
	Format Format `yaml:"format" json:"format" jsonschema:"enum=json,enum=text"`
	// Union marks a json result whose cases are a discriminated union (the generator emits a sealed
	// interface); Discriminator names the field path that tells the cases apart (details.mode).
	Union         bool   `yaml:"union,omitempty" json:"union,omitempty"`
	Discriminator string `yaml:"discriminator,omitempty" json:"discriminator,omitempty"`
	// Cases maps an outcome to its shape. Outcomes: success (exit 0), failure (non-zero exit), exit (either,
	// when success or failure is absent), timeout, background, spawn_error, and any name a Failure.Result
	// refers to (error, by convention). spawn_error.<ERRNO> (spawn_error.ENOTDIR, spawn_error.EACCES) shapes
	// the spawn errors of that system error, before spawn_error. Tools of kind poll and kill use ok. The
	// tools that wait a yield window (session_start, session_write, session_read) answer running (the
	// command runs on as a session) or exit (success, failure); session_kill and session_list answer ok.
	Cases map[Outcome]Shape `yaml:"cases" json:"cases"`
	// Spill saves a text result longer than a bound to a file and gives the model a header, its head and
	// its tail instead (the cut of the whole rendered result, after the template).
	Spill *ResultSpill `yaml:"spill,omitempty" json:"spill,omitempty"`
}

// Shape is one outcome's result: a JSON object (Fields), a text (Text), or a raised error (Raise).
type Shape struct {
	// Name is the Go type name the generator gives this case (Foreground, Background, Timeout).
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Fields are the JSON object's fields, in order.
	Fields []Field `yaml:"fields,omitempty" json:"fields,omitempty"`
	// Text is a text/template for a text result.
	Text *string `yaml:"text,omitempty" json:"text,omitempty"`
	// Raise makes this outcome an error instead of a result.
	Raise *Failure `yaml:"raise,omitempty" json:"raise,omitempty"`
	// Truncate limits the whole rendered text (Text, or every string field).
	Truncate *Truncate `yaml:"truncate,omitempty" json:"truncate,omitempty"`
}

// Field is one field of a JSON result. Value is a text/template whose output is converted to Type; object
// and array fields have Fields (an array's Fields are its elements, each an object given by its Fields).
type Field struct {
	Name   string  `yaml:"name" json:"name"`
	Type   Type    `yaml:"type" json:"type" jsonschema:"enum=string,enum=integer,enum=number,enum=boolean,enum=object,enum=array,enum=json"`
	Value  string  `yaml:"value,omitempty" json:"value,omitempty"`
	Const  any     `yaml:"const,omitempty" json:"const,omitempty"`
	Fields []Field `yaml:"fields,omitempty" json:"fields,omitempty"`
	// Doc describes the field for the generated Go type.
	Doc string `yaml:"doc,omitempty" json:"doc,omitempty"`
	// OmitZero leaves the field out when its value renders as 0, "" or false (JavaScript's JSON.stringify
	// drops undefined).
	OmitZero bool `yaml:"omit_zero,omitempty" json:"omit_zero,omitempty"`
}

// Workspaces resolves a workspace parameter: the model names one of the engine's workspaces (each named
// after its directory's base name unless the host names it: runtime.WithWorkspaces).
type Workspaces struct {
	// Trim removes white space around the name first.
	Trim bool `yaml:"trim,omitempty" json:"trim,omitempty"`
	// Unknown is the failure for a name no workspace has; data: .Name (as sent), .Configured (the names,
	// sorted, joined with ", ").
	Unknown *Failure `yaml:"unknown" json:"unknown"`
	// Ambiguous is the failure for no name when several workspaces are configured; data: .Configured,
	// .Max (their number). Without it the first workspace is used.
	Ambiguous *Failure `yaml:"ambiguous,omitempty" json:"ambiguous,omitempty"`
}

// Background configures the registry of processes that outlive a call.
type Background struct {
	// IDs is uuid, pid or sequential (1, 2, 3, ... in the order the shells start).
	IDs IDs `yaml:"ids" json:"ids" jsonschema:"enum=uuid,enum=pid,enum=sequential"`
	// StreamLimit caps each stream's buffer in bytes; past it the stream is marked truncated.
	StreamLimit int `yaml:"stream_limit" json:"stream_limit" jsonschema:"minimum=1,maximum=268435456"`
	// Poll is all (the whole buffer every poll) or new (only what arrived since the last poll).
	Poll Poll `yaml:"poll,omitempty" json:"poll,omitempty" jsonschema:"enum=all,enum=new"`
	// MaxLive limits running background processes (default 64); past it a start, or a timeout that would move
	// a run to the background, fails with LimitError (the run is killed).
	MaxLive int `yaml:"max_live,omitempty" json:"max_live,omitempty" jsonschema:"minimum=0,maximum=4096"`
	// Retain is how many completed shells stay pollable; past it the oldest completed one is removed
	// (default 100), so a long session's registry does not grow without bound.
	Retain int `yaml:"retain,omitempty" json:"retain,omitempty" jsonschema:"minimum=0,maximum=100000"`
	// LimitError is the failure when MaxLive is reached; data: .Max.
	LimitError *Failure `yaml:"limit_error,omitempty" json:"limit_error,omitempty"`
	// UnknownID is the failure for an id that is not registered; data: .ID.
	UnknownID *Failure `yaml:"unknown_id,omitempty" json:"unknown_id,omitempty"`
	// Log keeps, for each shell, its stdout and stderr merged in the order they arrive (two pipes), the
	// last Log.Limit bytes of it, for a poll's .Log (bglog.go).
	Log *BackgroundLog `yaml:"log,omitempty" json:"log,omitempty"`
}

// Redact replaces secrets in what the tools answer. Each rule is applied in order to the whole text, each
// match replaced by the rule's Replace template; a later rule sees what the earlier ones wrote. A command's
// output is first redacted in pieces that know their edges (a truncation's cut, a running command, the
// previous poll), so that what a cut or a poll leaves of a secret is redacted too (RedactRule.Open, Close
// and Partial).
type Redact struct {
	// Rules are applied in order.
	Rules []RedactRule `yaml:"rules" json:"rules" jsonschema:"minItems=1"`
	// Tools limits redaction to these tools (default: every tool).
	Tools []string `yaml:"tools,omitempty" json:"tools,omitempty"`
	// Errors also redacts the messages of raised errors (a host that scrubs its error results too).
	Errors bool `yaml:"errors,omitempty" json:"errors,omitempty"`
}

// RedactRule is one redaction: a regular expression (Go RE2 syntax) and its replacement.
type RedactRule struct {
	// Name names the rule; the replacement sees it as .Name.
	Name string `yaml:"name" json:"name"`
	// Pattern is the regular expression, searched everywhere in the text.
	Pattern string `yaml:"pattern" json:"pattern"`
	// Replace is the template each match becomes; data: .Name, .Match. Default: [REDACTED:{{.Name}}].
	Replace string `yaml:"replace,omitempty" json:"replace,omitempty"`
	// Open is the start of a secret that Pattern ends further on (a PEM header). An Open that no match of
	// Pattern covers (the secret's end was cut off, not written yet, or never written) is redacted from its
	// start to the end of the text.
	Open string `yaml:"open,omitempty" json:"open,omitempty"`
	// Close is the end of a secret that Open starts (a PEM footer). A text that starts after a cut (the tail
	// a truncation keeps) is redacted from its start through a Close that no Open precedes.
	Close string `yaml:"close,omitempty" json:"close,omitempty"`
	// Partial is what a cut, or the end of what a running command wrote so far, may leave of a secret (a
	// token's known prefix and part of its body): a match of it that reaches the end of a text cut there is
	// redacted.
	Partial string `yaml:"partial,omitempty" json:"partial,omitempty"`
}

// Mask replaces, in an answer the conformance suite compares, every match of a regular expression.
type Mask struct {
	// Pattern is a regular expression (RE2).
	Pattern string `yaml:"pattern" json:"pattern"`
	// Replace is what each match becomes; $1 or ${name} insert a group (Go's Regexp.ReplaceAllString).
	Replace string `yaml:"replace" json:"replace"`
	// Why says what the mask hides and why no two runs can match it.
	Why string `yaml:"why,omitempty" json:"why,omitempty"`
}
