package spec

// Policy is a named command policy a tool runs from its checks (`- policy: NAME`). A policy decides, without
// running anything, whether a command may run; runtime/policy compiles and evaluates it.
//
// Kinds:
//   - regex: ordered Rules, each a regular expression (or a literal substring), matched against the whole
//     command or against each segment of it (Split); the first rule that matches blocks.
//   - substring: ordered Rules that are literal substrings only.
//   - permission: Tool(pattern) allow, deny and ask rules with a mode (Permission).
//   - shell: parses the command with mvdan.cc/sh and checks every command in every position (Shell).
//   - priority: rules with a command prefix or regular expression, a decision and a priority; the highest
//     priority that matches decides, for the command and for each of its commands (Priority).
//   - wildcard: a table of wildcard patterns with allow, ask or deny, matched against each simple command
//     of the command line; the strictest verdict over the commands wins (Wildcard).
//
// The verdict message is rendered from Message (or a rule's own message) with the policy data (.Command,
// .Reason, .Pattern, .Match, .Groups, .Segment, .Char, ...); Fail then says how it reaches the host, its
// message template seeing that text as .Message (`message: "{{.Message}}"`).
type Policy struct {
	// Use names a library policy this one starts from (`agentbash policy list` prints the library: the
	// shell guard, the upstream deny lists). Its fields are the library policy's, adjusted by the fields
	// given here: a value given replaces the library's (name, summary, fail, message, shell.dynamic, ...), a
	// list given is added to the library's (examples, quirks, rules, shell.rules, shell.wrappers; a wrapper
	// given for a name the library describes replaces that description), and a boolean can be turned on.
	// Without name, the policy has the library policy's name.
	Use string `yaml:"use,omitempty" json:"use,omitempty"`
	// Name is how checks refer to the policy (required without use).
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Kind selects the engine (required without use).
	Kind PolicyKind `yaml:"kind,omitempty" json:"kind,omitempty" jsonschema:"enum=regex,enum=substring,enum=permission,enum=shell,enum=wildcard,enum=priority"`
	// Summary says in a sentence what the policy blocks and where it comes from.
	Summary string `yaml:"summary,omitempty" json:"summary,omitempty"`
	// Fail is how a blocked command reaches the host; its message template sees the verdict message as
	// .Message and the command as .Command.
	Fail *Failure `yaml:"fail,omitempty" json:"fail,omitempty"`
	// Message is the text/template of the verdict message when a rule has none of its own. Data: .Command,
	// .Policy, .Rule, .Reason, .Pattern, .Match, .Groups (submatches, [0] the whole match), .Segment, .Char,
	// .Name, .Error, .Tool, .Decision, .Content, .PermissionRule, .Mode.
	Message string `yaml:"message,omitempty" json:"message,omitempty"`
	// Dialect is the regular-expression language the patterns were written in, emulated on Go's RE2: re2
	// (Go, the default), python (re module, str patterns) or javascript (RegExp without the u flag).
	// Python and JavaScript differ from RE2 in what \s, \w, \b, . and $ match and in case folding.
	Dialect RegexDialect `yaml:"dialect,omitempty" json:"dialect,omitempty" jsonschema:"enum=re2,enum=python,enum=javascript"`
	// IgnoreCase makes every rule case-insensitive unless the rule says otherwise.
	IgnoreCase bool `yaml:"ignore_case,omitempty" json:"ignore_case,omitempty"`
	// Split cuts the command into segments for rules with scope segments.
	Split *PolicySplit `yaml:"split,omitempty" json:"split,omitempty"`
	// Rules are the ordered rules of a regex or substring policy. Consecutive rules with the same scope form
	// a block: a command-scope block tries each rule on the whole command; a segments-scope block tries, for
	// each segment in order, each rule of the block in order (segment-major, like a loop over segments with
	// an inner loop over patterns).
	Rules []PolicyRule `yaml:"rules,omitempty" json:"rules,omitempty"`
	// Permission configures a permission policy.
	Permission *PermissionPolicy `yaml:"permission,omitempty" json:"permission,omitempty"`
	// Shell configures a shell-parsing policy.
	Shell *ShellPolicy `yaml:"shell,omitempty" json:"shell,omitempty"`
	// Priority configures a priority-rules policy.
	Priority *PriorityPolicy `yaml:"priority,omitempty" json:"priority,omitempty"`
	// Wildcard configures a wildcard-table policy.
	Wildcard *WildcardPolicy `yaml:"wildcard,omitempty" json:"wildcard,omitempty"`
	// Examples are commands with their expected verdicts, checked when the policy compiles.
	Examples *PolicyExamples `yaml:"examples,omitempty" json:"examples,omitempty"`
	// Quirks lists upstream false positives and bypasses that the policy reproduces on purpose, and any
	// construct of the source's regex language that RE2 emulates rather than runs.
	Quirks []string `yaml:"quirks,omitempty" json:"quirks,omitempty"`
}

// PolicySplit says how a command is cut into segments.
type PolicySplit struct {
	// Pattern is the separator, a regular expression in the policy's dialect (Python's re.split); it must
	// not match the empty string, and its capture groups are not kept as segments.
	Pattern string `yaml:"pattern" json:"pattern"`
	// Strip removes leading and trailing white space from each segment as the dialect defines it (Python's
	// str.strip(), JavaScript's trim(), Go's strings.TrimSpace for re2).
	Strip bool `yaml:"strip,omitempty" json:"strip,omitempty"`
	// SkipEmpty ignores segments that are empty (after Strip).
	SkipEmpty bool `yaml:"skip_empty,omitempty" json:"skip_empty,omitempty"`
}

// PolicyRule is one rule of a regex or substring policy. Exactly one of Pattern, Patterns, Substring and
// Substrings is set; a list is tried in order, each entry as its own rule sharing the other fields.
type PolicyRule struct {
	// Name identifies the rule in verdicts and tests (.Rule).
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Pattern is a regular expression in the policy's dialect, searched anywhere (re.search, RegExp.test).
	Pattern string `yaml:"pattern,omitempty" json:"pattern,omitempty"`
	// Patterns are several regular expressions sharing this rule's settings.
	Patterns []string `yaml:"patterns,omitempty" json:"patterns,omitempty"`
	// Substring is a literal text (Python's `in`, JavaScript's includes).
	Substring string `yaml:"substring,omitempty" json:"substring,omitempty"`
	// Substrings are several literal texts sharing this rule's settings.
	Substrings []string `yaml:"substrings,omitempty" json:"substrings,omitempty"`
	// IgnoreCase overrides the policy's IgnoreCase for this rule.
	IgnoreCase *bool `yaml:"ignore_case,omitempty" json:"ignore_case,omitempty"`
	// Scope is command (the whole command, the default without Split) or segments (each segment of Split,
	// the default with Split).
	Scope RuleScope `yaml:"scope,omitempty" json:"scope,omitempty" jsonschema:"enum=command,enum=segments"`
	// Unless is a regular expression (dialect of the policy) that, when it matches the same text, keeps
	// the rule from blocking.
	Unless string `yaml:"unless,omitempty" json:"unless,omitempty"`
	// Reason is the rule's human reason (.Reason).
	Reason string `yaml:"reason,omitempty" json:"reason,omitempty"`
	// Message is this rule's verdict message template, overriding the policy's Message.
	Message string `yaml:"message,omitempty" json:"message,omitempty"`
}

// PermissionPolicy is a `Tool(pattern)` permission rule set: deny, then ask, then allow, then the mode's
// default. A host may replace Mode and the rule lists with its own (runtime/policy WithPermissions).
type PermissionPolicy struct {
	// Tool is the tool name rules are written for (Bash); rules for other tools never match.
	Tool string `yaml:"tool" json:"tool"`
	// Match is how `*` in a pattern matches: path (any text but `/`, the default) or command (any text);
	// `**` matches any text in both.
	Match PermissionMatch `yaml:"match,omitempty" json:"match,omitempty" jsonschema:"enum=path,enum=command,enum=prefix"`
	// Normalize rewrites the command before matching: none; verb_colon (trim leading white space, then
	// replace the first run of white space after the first word with `:`, so `git status` -> `git:status`);
	// or first_space (trim leading white space, then replace the first space character only:
	// `git  status` -> `git: status`).
	Normalize PermissionNormalize `yaml:"normalize,omitempty" json:"normalize,omitempty" jsonschema:"enum=none,enum=verb_colon,enum=first_space"`
	// Mode is default, acceptEdits, bypassPermissions, dontAsk or strict.
	Mode PermissionMode `yaml:"mode,omitempty" json:"mode,omitempty" jsonschema:"enum=default,enum=acceptEdits,enum=bypassPermissions,enum=dontAsk,enum=strict"`
	// Allow, Deny and Ask are rules `Tool` or `Tool(pattern)`.
	Allow []string `yaml:"allow,omitempty" json:"allow,omitempty"`
	Deny  []string `yaml:"deny,omitempty" json:"deny,omitempty"`
	Ask   []string `yaml:"ask,omitempty" json:"ask,omitempty"`
	// EditTools are the tools whose ask becomes allow in acceptEdits mode (default Write and Edit).
	EditTools []string `yaml:"edit_tools,omitempty" json:"edit_tools,omitempty"`
	// AskMessage is the verdict message template for an ask decision (default: the policy's Message).
	AskMessage string `yaml:"ask_message,omitempty" json:"ask_message,omitempty"`
	// Subcommands checks each command of a compound command apart (the commands its lists and pipelines
	// join with ;, &, &&, ||, | and newlines, each as written): a deny of any denies, else an ask of any asks,
	// else it is allowed. A command that does not parse is checked whole.
	Subcommands bool `yaml:"subcommands,omitempty" json:"subcommands,omitempty"`
}

// PriorityPolicy is a list of rules, each with a condition on the command (a prefix or a regular
// expression, or none), a decision (allow, deny or ask) and a priority, as Gemini CLI's TOML policy rules
// are. The rules are read by priority, highest first (rules of equal priority in their order); the first
// that matches the command decides, else Default. With Subcommands, each command of the command line
// (parsed as bash) is then checked the same way: a deny of the line or of any of its commands denies, else
// an ask of any asks, else it is allowed. Core and Exclude are the legacy allow and deny lists, made rules.
type PriorityPolicy struct {
	// Rules are the rules, in their order (the order breaks ties of priority).
	Rules []PriorityRule `yaml:"rules,omitempty" json:"rules,omitempty"`
	// Default is the decision when no rule matches: ask (the default), allow or deny.
	Default Decision `yaml:"default,omitempty" json:"default,omitempty" jsonschema:"enum=allow,enum=ask,enum=deny,enum=ask_user"`
	// Subcommands checks each command of the command line too (see above). A command line that does not
	// parse, or has no command, gets the deny of its rule, else Default (else, with Yolo, allow).
	Subcommands bool `yaml:"subcommands,omitempty" json:"subcommands,omitempty"`
	// Yolo: a command no rule matches is allowed instead of Default, and a command line that does not parse
	// is allowed unless the rule that decided it has a condition (then denied).
	Yolo bool `yaml:"yolo,omitempty" json:"yolo,omitempty"`
	// NonInteractive makes an ask a deny with AskMessage (a headless run has nobody to ask).
	NonInteractive bool `yaml:"non_interactive,omitempty" json:"non_interactive,omitempty"`
	// AskMessage is the verdict message template of an ask (with NonInteractive, of the deny it becomes);
	// default: the policy's Message.
	AskMessage string `yaml:"ask_message,omitempty" json:"ask_message,omitempty"`
	// Tool is the tool name the legacy lists are written for (run_shell_command).
	Tool string `yaml:"tool,omitempty" json:"tool,omitempty"`
	// Core is the legacy allow list (tools.core): `Tool` allows every command, `Tool(prefix)` the commands
	// with that prefix, at CorePriority; with Core given, what it does not allow is denied (a rule of
	// CorePriority - 0.01 for every command).
	Core []string `yaml:"core,omitempty" json:"core,omitempty"`
	// Exclude is the legacy deny list (tools.exclude): `Tool` denies every command at ExcludePriority.
	// Other entries name other tools and are not rules for this one.
	Exclude []string `yaml:"exclude,omitempty" json:"exclude,omitempty"`
	// CorePriority and ExcludePriority are the priorities of the legacy lists' rules (default 4.25 and
	// 4.4: the user tier's).
	CorePriority    float64 `yaml:"core_priority,omitempty" json:"core_priority,omitempty"`
	ExcludePriority float64 `yaml:"exclude_priority,omitempty" json:"exclude_priority,omitempty"`
}

// PriorityRule is one rule of a priority policy. Without CommandPrefix and CommandRegex it matches every
// command.
type PriorityRule struct {
	// CommandPrefix: the command starts with one of these, followed by white space or its end (matched on
	// the command as JSON writes it: `"command":"<prefix>` then white space, `"` or `"`).
	CommandPrefix []string `yaml:"command_prefix,omitempty" json:"command_prefix,omitempty"`
	// CommandRegex: a JavaScript regular expression searched in `"command":"<regex>` on the command as JSON
	// writes it (`"command":"git (commit|push)`), so it is anchored at the command's start.
	CommandRegex string `yaml:"command_regex,omitempty" json:"command_regex,omitempty"`
	// Decision is allow, deny or ask (ask_user is ask).
	Decision Decision `yaml:"decision" json:"decision" jsonschema:"enum=allow,enum=deny,enum=ask,enum=ask_user"`
	// Priority orders the rules (highest first); a TOML file's priority p of tier t is t + p/1000.
	Priority float64 `yaml:"priority,omitempty" json:"priority,omitempty"`
	// DenyMessage is the rule's own text for a deny (.Reason).
	DenyMessage string `yaml:"deny_message,omitempty" json:"deny_message,omitempty"`
}

// WildcardPolicy is a table of wildcard patterns, each with a decision (allow, ask or deny), checked
// against every simple command of the command line. The command line is parsed (bash, mvdan.cc/sh/v3); each
// simple command (a command with a name, in any position: lists, pipelines, subshells, substitutions) is
// checked as its source text, with its redirections when it has any, trimmed; a command line that does not
// parse is checked whole. For each command the rule chosen by Select decides, else Default; the verdict of
// the whole command line is the strictest over its commands (deny, then ask, then allow). A command line
// without a command to check (only assignments, or only skipped commands) is allowed.
//
// A pattern matches a whole command: `*` matches any text (new lines too), `?` one character, every other
// character itself; a pattern that ends in ` *` also matches the command without that ending (`git *`
// matches `git` and `git status`, not `gitk`); a backslash in the pattern or the command counts as `/`.
type WildcardPolicy struct {
	// Rules is the table, in its order (a downstream spec that uses a library policy appends its rules).
	Rules []WildcardRule `yaml:"rules,omitempty" json:"rules,omitempty"`
	// Select is which matching rule decides: last (the last matching rule in table order, the default) or
	// longest (the table sorted by pattern length, then by pattern text, and the last matching rule in that
	// order, so the longest pattern wins).
	Select WildcardSelect `yaml:"select,omitempty" json:"select,omitempty" jsonschema:"enum=last,enum=longest"`
	// Default is the decision for a command no rule matches: allow, ask (the default) or deny.
	Default Decision `yaml:"default,omitempty" json:"default,omitempty" jsonschema:"enum=allow,enum=ask,enum=deny"`
	// Skip are command names (the first word as written) whose commands are not checked (cd).
	Skip []string `yaml:"skip,omitempty" json:"skip,omitempty"`
	// AskMessage is the verdict message template for an ask (default: the policy's Message). .Segment is
	// the first command asked for, .Pattern the rule's pattern (empty for the default), .Rules the table.
	AskMessage string `yaml:"ask_message,omitempty" json:"ask_message,omitempty"`
}

// WildcardRule is one row of a wildcard table.
type WildcardRule struct {
	// Pattern is the wildcard pattern (`git *`, `rm *`, `*`).
	Pattern string `yaml:"pattern" json:"pattern"`
	// Decision is allow, ask or deny.
	Decision Decision `yaml:"decision" json:"decision" jsonschema:"enum=allow,enum=ask,enum=deny"`
}

// WildcardSelect is which matching rule of a wildcard table decides.
type WildcardSelect string

const (
	SelectLast    WildcardSelect = "last"    // the last matching rule in table order (the default)
	SelectLongest WildcardSelect = "longest" // the last matching rule in the table sorted by length, then text
)

// ShellPolicy parses a command with mvdan.cc/sh/v3/syntax and checks every simple command it contains, in
// every position (lists, pipelines, subshells, blocks, substitutions, functions, here-documents), after
// folding quotes and escapes, reducing paths to names, unwrapping wrappers and parsing nested scripts.
type ShellPolicy struct {
	// Dialect is the shell language parsed: bash (default), posix or mksh.
	Dialect ShellDialect `yaml:"dialect,omitempty" json:"dialect,omitempty" jsonschema:"enum=bash,enum=posix,enum=mksh"`
	// Dynamic says what a command name or a script that is only known at run time ($x, $(...), a shell
	// reading a script from a pipe) means: deny (the default) or allow (check what is known).
	Dynamic ShellDynamic `yaml:"dynamic,omitempty" json:"dynamic,omitempty" jsonschema:"enum=deny,enum=allow"`
	// MaxDepth bounds nested scripts (bash -c, eval, ...); deeper nesting is denied. Default 8.
	MaxDepth int `yaml:"max_depth,omitempty" json:"max_depth,omitempty"`
	// Wrappers are commands that run another command, or shell source, given in their arguments.
	Wrappers []ShellWrapper `yaml:"wrappers,omitempty" json:"wrappers,omitempty"`
	// Remote names downloaders whose output must not become code.
	Remote *ShellRemote `yaml:"remote,omitempty" json:"remote,omitempty"`
	// ForkBombs denies a function that calls itself in a pipeline or in the background.
	ForkBombs bool `yaml:"fork_bombs,omitempty" json:"fork_bombs,omitempty"`
	// Reasons are the .Reason texts of the policy's own findings.
	Reasons ShellReasons `yaml:"reasons,omitempty" json:"reasons,omitempty"`
	// Rules are checked, in order, against every command found.
	Rules []ShellRule `yaml:"rules,omitempty" json:"rules,omitempty"`
}

// ShellWrapper describes a command that runs another command or shell source.
type ShellWrapper struct {
	// Names are the command names (after path reduction) this entry describes.
	Names []string `yaml:"names" json:"names" jsonschema:"minItems=1"`
	// Runs says what the operands are: command (the rest of the arguments, after options, Positionals and
	// Assignments, are a command), script (the operands, joined by spaces, are shell source: eval),
	// first_script (the first operand is shell source: trap), shell (a shell: -c makes the first operand
	// a script; without it the first operand is a script file, or the script is read from standard input),
	// alias (NAME=VALUE operands whose values are shell source), source (the first operand is a script
	// file: `source`, `.`), stdin (the script is read from standard input: at, batch) or none (only the
	// options that run something do: ExecOptions, ScriptOptions, SplitOptions, OptionCommands, Code). A
	// script file named /dev/stdin, /dev/fd/N or /proc/self/fd/N (or - for a shell) is the script on that
	// descriptor: a here-document, here-string, redirected file or pipe.
	Runs WrapperRuns `yaml:"runs,omitempty" json:"runs,omitempty" jsonschema:"enum=command,enum=script,enum=first_script,enum=shell,enum=alias,enum=source,enum=stdin,enum=none"`
	// OptionsWithValue are the options that take a value (`-u USER`, `-uUSER`, `--user USER`,
	// `--user=USER`).
	OptionsWithValue []string `yaml:"options_with_value,omitempty" json:"options_with_value,omitempty"`
	// OptionsWithOptionalValue are the options whose value is optional and can only be attached
	// (`-e`, `-eEOF`, `--eof`, `--eof=EOF`; getopt's `::`): the next argument is never their value.
	OptionsWithOptionalValue []string `yaml:"options_with_optional_value,omitempty" json:"options_with_optional_value,omitempty"`
	// Positionals is how many operands come before the command (timeout's DURATION).
	Positionals int `yaml:"positionals,omitempty" json:"positionals,omitempty"`
	// Assignments skips NAME=VALUE operands before the command (env).
	Assignments bool `yaml:"assignments,omitempty" json:"assignments,omitempty"`
	// SplitOptions take a value that is split into words and run as a command (env -S).
	SplitOptions []string `yaml:"split_options,omitempty" json:"split_options,omitempty"`
	// ScriptOptions take a value that is shell source (su -c).
	ScriptOptions []string `yaml:"script_options,omitempty" json:"script_options,omitempty"`
	// NoExecOptions make the wrapper run nothing (command -v).
	NoExecOptions []string `yaml:"no_exec_options,omitempty" json:"no_exec_options,omitempty"`
	// ExecOptions start an embedded command that ends at `;` or `+` (find -exec).
	ExecOptions []string `yaml:"exec_options,omitempty" json:"exec_options,omitempty"`
	// AppendsOperands marks a wrapper that adds operands read at run time (xargs): the command gets an
	// operand that is not known.
	AppendsOperands bool `yaml:"appends_operands,omitempty" json:"appends_operands,omitempty"`
	// ReplaceOptions name a replacement string that the wrapper replaces, in the command's arguments, with
	// text read at run time (xargs -I R, -iR, --replace=R): an argument that contains it is not known, and
	// no operands are appended. Each must also be in OptionsWithValue or OptionsWithOptionalValue; without
	// a value the replacement string is {} (xargs -i, --replace).
	ReplaceOptions []string `yaml:"replace_options,omitempty" json:"replace_options,omitempty"`
	// OptionCommands are options whose value, or a part of it, is a command the program runs (git -c
	// core.pager=CMD, ssh -o ProxyCommand=CMD, tar --checkpoint-action=exec=CMD). They are found anywhere in
	// the arguments, before a `--`.
	OptionCommands []ShellOptionCommand `yaml:"option_commands,omitempty" json:"option_commands,omitempty"`
	// Code says that the program runs code given inline in a language the policy reads (python -c, perl -e,
	// awk 'PROGRAM', sed 's/x/y/e'): the commands that code runs are checked.
	Code *ShellCode `yaml:"code,omitempty" json:"code,omitempty"`
	// InputSeparators end the command of a wrapper that runs it once per input (GNU parallel's :::): the
	// words after a separator are inputs, put in place of the replacement strings ({}, {.}, {/}, ...) or
	// appended; without a separator the inputs are read at run time.
	InputSeparators []string `yaml:"input_separators,omitempty" json:"input_separators,omitempty"`
}

// ShellOptionCommand is an option of a program whose value holds a command the program runs.
type ShellOptionCommand struct {
	// Options are the spellings of the option (-c; -o; --checkpoint-action). A value is attached (--opt=V,
	// -oV) or the next argument.
	Options []string `yaml:"options" json:"options" jsonschema:"minItems=1"`
	// Keys, when given, make the value KEY=VALUE (or KEY VALUE): only these keys (shell patterns, matched
	// without regard to case, as git and ssh read their keys) hold a command, in VALUE.
	Keys []string `yaml:"keys,omitempty" json:"keys,omitempty"`
	// Prefix, when given, is what the command follows in the value (exec= for tar's checkpoint actions; !
	// for git aliases, whose other values are git subcommands); a value without it runs nothing.
	Prefix string `yaml:"prefix,omitempty" json:"prefix,omitempty"`
	// Subcommands also read KEY VALUE operands after one of these subcommands (git config core.pager CMD).
	Subcommands []string `yaml:"subcommands,omitempty" json:"subcommands,omitempty"`
}

// ShellCode is how a program takes code in a language the shell policy reads. The commands that code
// runs (string literals given to os.system, subprocess.*, system, exec, backticks, child_process.*,
// popen, ...) are checked as commands; a command the code builds at run time is dynamic. Code read from a
// file is not seen.
type ShellCode struct {
	// Language is python, perl, ruby, javascript, php, lua, awk, sed (GNU: the e command and the e flag of
	// s) or ex (vim's command line: !cmd, :r !cmd, system(), and the languages it embeds).
	Language CodeLanguage `yaml:"language" json:"language" jsonschema:"enum=python,enum=perl,enum=ruby,enum=javascript,enum=php,enum=lua,enum=awk,enum=sed,enum=ex"`
	// Options take code as their value (python -c, perl -e, vim -c); several are read in turn.
	Options []string `yaml:"options,omitempty" json:"options,omitempty"`
	// Operand makes the first operand the code, unless an option gave code or a file (awk, sed).
	Operand bool `yaml:"operand,omitempty" json:"operand,omitempty"`
	// PlusOperands makes every operand that starts with + code, after the + (vim +CMD).
	PlusOperands bool `yaml:"plus_operands,omitempty" json:"plus_operands,omitempty"`
	// FileOptions name a file that holds the code (awk -f, sed -f): that code is not seen.
	FileOptions []string `yaml:"file_options,omitempty" json:"file_options,omitempty"`
	// Stdin: without code from an option or an operand, and without a script operand other than -, the
	// program reads its code from standard input; a here-document, a here-string or a constant pipe is
	// read as that code.
	Stdin bool `yaml:"stdin,omitempty" json:"stdin,omitempty"`
}

// ShellRemote names downloaders whose output must not be run as code.
type ShellRemote struct {
	// Sources are downloaders (curl, wget).
	Sources []string `yaml:"sources" json:"sources"`
	// Sinks are interpreters that run code read from standard input, besides the shell wrappers.
	Sinks []string `yaml:"sinks,omitempty" json:"sinks,omitempty"`
}

// ShellReasons are the .Reason texts of a shell policy's own findings.
type ShellReasons struct {
	// Unparsable: the command (or a nested script) does not parse; .Error has the parser's message.
	Unparsable string `yaml:"unparsable,omitempty" json:"unparsable,omitempty"`
	// Dynamic: a command name or script is only known at run time (with dynamic: deny).
	Dynamic string `yaml:"dynamic,omitempty" json:"dynamic,omitempty"`
	// TooDeep: scripts are nested deeper than max_depth.
	TooDeep string `yaml:"too_deep,omitempty" json:"too_deep,omitempty"`
	// ForkBomb: a function calls itself in a pipeline or in the background.
	ForkBomb string `yaml:"fork_bomb,omitempty" json:"fork_bomb,omitempty"`
	// Remote: a downloader's output is run as code.
	Remote string `yaml:"remote,omitempty" json:"remote,omitempty"`
}

// ShellRule blocks a command found by a shell policy. Every condition given must hold.
type ShellRule struct {
	// Name identifies the rule (.Rule).
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Commands are command names or shell patterns on names (mkfs.*); a command name that is itself a
	// pattern (su?o) matches when it can expand to one of them. Empty: any command (with Redirects: any
	// statement).
	Commands []string `yaml:"commands,omitempty" json:"commands,omitempty"`
	// Subcommands: the first operand must be one of these (git push).
	Subcommands []string `yaml:"subcommands,omitempty" json:"subcommands,omitempty"`
	// Flags are groups of spellings; every group must be present. A spelling is a short option (-r,
	// found in any cluster: -rf, -fr), a long option (--recursive, also as an unambiguous prefix such as
	// --rec, or with =value) or a single-dash word option (-delete, matched whole).
	Flags [][]string `yaml:"flags,omitempty" json:"flags,omitempty"`
	// OptionsWithValue are the command's options that take a value, so that the value is not an operand.
	OptionsWithValue []string `yaml:"options_with_value,omitempty" json:"options_with_value,omitempty"`
	// Operands are regular expressions (RE2); some operand must match one.
	Operands []string `yaml:"operands,omitempty" json:"operands,omitempty"`
	// DynamicOperands lets an operand that is only known at run time (and whose known end does not name a
	// path below it) match Operands.
	DynamicOperands bool `yaml:"dynamic_operands,omitempty" json:"dynamic_operands,omitempty"`
	// Args are regular expressions (RE2); some argument (option or operand) must match one.
	Args []string `yaml:"args,omitempty" json:"args,omitempty"`
	// Redirects are regular expressions (RE2) on the targets of output redirections; some target must match.
	Redirects []string `yaml:"redirects,omitempty" json:"redirects,omitempty"`
	// Reason is the rule's human reason (.Reason).
	Reason string `yaml:"reason" json:"reason"`
}

// PolicyExamples are commands with their expected verdicts; a policy that disagrees with its examples does
// not compile.
type PolicyExamples struct {
	// Blocked commands, each with the exact message expected.
	Blocked []PolicyExample `yaml:"blocked,omitempty" json:"blocked,omitempty"`
	// Allowed commands.
	Allowed []string `yaml:"allowed,omitempty" json:"allowed,omitempty"`
}

// PolicyExample is a command the policy must block.
type PolicyExample struct {
	// Command is the command as a model would send it.
	Command string `yaml:"command" json:"command"`
	// Message is the exact verdict message expected; empty accepts any.
	Message string `yaml:"message,omitempty" json:"message,omitempty"`
	// Decision is deny (the default) or ask (permission and wildcard policies).
	Decision Decision `yaml:"decision,omitempty" json:"decision,omitempty" jsonschema:"enum=deny,enum=ask"`
}

// The enumerations of policies. Complete fills the defaults: after it, Dialect, Scope, Match, Normalize,
// Mode, the shell Dialect and Dynamic, Runs and an example's Decision are never empty.

// PolicyKind selects a policy's engine.
type PolicyKind string

const (
	PolicyRegex      PolicyKind = "regex"      // regular expressions (or substrings), on the command or its segments
	PolicySubstring  PolicyKind = "substring"  // literal substrings only
	PolicyPermission PolicyKind = "permission" // Tool(pattern) allow, deny and ask rules with a mode
	PolicyShell      PolicyKind = "shell"      // parses the command and checks every command in it
	PolicyWildcard   PolicyKind = "wildcard"   // a wildcard table on each simple command
	PolicyPriority   PolicyKind = "priority"   // prefix and regex rules by priority
)

// RegexDialect is the regular-expression language a policy's patterns were written in (see Translate).
type RegexDialect string

const (
	DialectRE2        RegexDialect = "re2"        // Go's regexp (the default)
	DialectPython     RegexDialect = "python"     // Python's re module, str patterns
	DialectJavaScript RegexDialect = "javascript" // JavaScript's RegExp without the u flag
)

// RuleScope is what a regex or substring rule is tried on.
type RuleScope string

const (
	ScopeCommand  RuleScope = "command"  // the whole command (the default without split)
	ScopeSegments RuleScope = "segments" // each segment of the split (the default with split)
)

// PermissionMatch is how `*` in a permission pattern matches.
type PermissionMatch string

const (
	MatchPath    PermissionMatch = "path"    // any text but `/` (the default)
	MatchCommand PermissionMatch = "command" // any text
	// MatchPrefix is command, and a pattern ending in `:*` is a word prefix: the text before it, alone or
	// followed by white space (`Bash(npm run test:*)` matches `npm run test` and `npm run test --x`).
	MatchPrefix PermissionMatch = "prefix"
)

// PermissionNormalize is how a command is rewritten before permission rules match it.
type PermissionNormalize string

const (
	NormalizeNone       PermissionNormalize = "none"        // as sent (the default)
	NormalizeVerbColon  PermissionNormalize = "verb_colon"  // `git status` -> `git:status`
	NormalizeFirstSpace PermissionNormalize = "first_space" // `git  status` -> `git: status`
)

// PermissionMode is a permission policy's mode.
type PermissionMode string

const (
	ModeDefault           PermissionMode = "default"           // deny, then ask, then allow, else allow (the default)
	ModeAcceptEdits       PermissionMode = "acceptEdits"       // an ask for an edit tool is allowed
	ModeBypassPermissions PermissionMode = "bypassPermissions" // everything is allowed
	ModeDontAsk           PermissionMode = "dontAsk"           // an ask is denied
	ModeStrict            PermissionMode = "strict"            // what no rule allows is denied
)

// PermissionModes are the permission modes, in the order messages list them.
var PermissionModes = []PermissionMode{ModeDefault, ModeAcceptEdits, ModeBypassPermissions, ModeDontAsk, ModeStrict}

// DefaultEditTools are PermissionPolicy.EditTools when the spec names none.
var DefaultEditTools = []string{"Write", "Edit"}

// ShellDialect is the shell language a shell policy parses.
type ShellDialect string

const (
	ShellBash  ShellDialect = "bash" // the default
	ShellPOSIX ShellDialect = "posix"
	ShellMksh  ShellDialect = "mksh"
)

// ShellDynamic is what a shell policy does with a command only known at run time.
type ShellDynamic string

const (
	DynamicDeny  ShellDynamic = "deny"  // block it (the default)
	DynamicAllow ShellDynamic = "allow" // check what is known
)

// WrapperRuns says what a shell wrapper's operands are (ShellWrapper.Runs).
type WrapperRuns string

const (
	RunsCommand     WrapperRuns = "command" // the default
	RunsScript      WrapperRuns = "script"
	RunsFirstScript WrapperRuns = "first_script"
	RunsShell       WrapperRuns = "shell"
	RunsAlias       WrapperRuns = "alias"
	RunsSource      WrapperRuns = "source"
	RunsStdin       WrapperRuns = "stdin"
	RunsNone        WrapperRuns = "none"
)

// CodeLanguage is a language whose inline code a shell policy reads (ShellCode.Language).
type CodeLanguage string

const (
	CodePython     CodeLanguage = "python"
	CodePerl       CodeLanguage = "perl"
	CodeRuby       CodeLanguage = "ruby"
	CodeJavaScript CodeLanguage = "javascript"
	CodePHP        CodeLanguage = "php"
	CodeLua        CodeLanguage = "lua"
	CodeAwk        CodeLanguage = "awk"
	CodeSed        CodeLanguage = "sed"
	CodeEx         CodeLanguage = "ex"
)

// Decision is a policy's verdict on a command.
type Decision string

const (
	DecisionAllow Decision = "allow" // the command may run
	DecisionDeny  Decision = "deny"  // the command is blocked (an example's default)
	DecisionAsk   Decision = "ask"   // the host asks its user (permission, wildcard and priority policies)
	// DecisionAskUser is ask as Gemini CLI's policy files write it (priority rules; Complete makes it ask).
	DecisionAskUser Decision = "ask_user"
)

// Default texts of a shell policy's own findings (ShellReasons), filled by Complete.
const (
	DefaultReasonUnparsable = "the command could not be parsed"
	DefaultReasonDynamic    = "the command name or script is only known at run time"
	DefaultReasonTooDeep    = "nested scripts are too deep to check"
	DefaultReasonForkBomb   = "fork bomb"
	DefaultReasonRemote     = "downloaded code is run"
	// DefaultCorePriority and DefaultExcludePriority are the priorities of a priority policy's legacy
	// lists when the spec gives none (Gemini CLI's user tier 4, + 0.25 and + 0.4).
	DefaultCorePriority    = 4.25
	DefaultExcludePriority = 4.4
	// DefaultShellMaxDepth is ShellPolicy.MaxDepth when the spec gives none (or a value <= 0).
	DefaultShellMaxDepth = 8
)
