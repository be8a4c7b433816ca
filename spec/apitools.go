package spec

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The shapes of the model APIs' own shell tools: Anthropic's bash tool types each command into one bash
// process the conversation keeps (a persistent shell), OpenAI's shell tool sends a list of commands and
// takes one answer per command (a batch), its local_shell tool sends a program and its arguments (a
// parameter with role argv), and a tool the API defines is named in a request by its own form (APITool)
// rather than by a JSON Schema.

// The kinds, roles, outcomes and captures of these shapes.
const (
	// KindPersistent types each call's command into one shell the engine keeps for the tool (Persistent).
	KindPersistent Kind = "persistent"
	// KindBatch runs a list of commands in order, each answered by the batch's each cases (Batch).
	KindBatch Kind = "batch"

	// RoleArgv is a program and its arguments (an array of strings), run without a shell.
	RoleArgv Role = "argv"
	// RoleCommands is a batch's list of commands (an array of strings).
	RoleCommands Role = "commands"
	// RoleRestart restarts a persistent shell (a boolean, read as the source's language reads its truth).
	RoleRestart Role = "restart"
	// RoleOutputLimit is a batch's limit on each command's output, in batch.limit.unit.
	RoleOutputLimit Role = "output_limit"

	// OutcomeRestarted answers a call that restarted a persistent shell.
	OutcomeRestarted Outcome = "restarted"
	// OutcomeExited answers a call to a persistent shell that has exited (its status is .ExitCode).
	OutcomeExited Outcome = "exited"

	// CaptureSequential captures stdout and stderr apart and reads them as one text, stdout first.
	CaptureSequential Capture = "sequential"
)

// Persistent is the shell of a tool of kind persistent: started at the engine's first call of the tool (in
// the workspace, with the variant's environment and sandbox), it reads each call's command on its stdin, so
// what a command changes in the shell holds for the next call (the working directory, variables,
// functions, options). A call is complete when the sentinel appears on the shell's stdout.
type Persistent struct {
	// Argv starts the shell (default /bin/bash): a shell that reads commands on its stdin.
	Argv []string `yaml:"argv,omitempty" json:"argv,omitempty"`
	// Input is what a call writes to the shell's stdin, a template (data: .Command): the command followed
	// by words that write the sentinel once it is done ("{{.Command}}; echo '<<exit>>'\n").
	Input string `yaml:"input" json:"input"`
	// Sentinel is the text whose first appearance on stdout completes a call: what stdout wrote before it
	// is the call's stdout; what follows it in the same read is dropped.
	Sentinel string `yaml:"sentinel" json:"sentinel" jsonschema:"minLength=1"`
	// Status reads the command's exit status after the sentinel (decimal digits up to a newline, which the
	// input writes: `echo "<<exit>>$?"`) as .ExitCode, and answers success or failure. Without it a call
	// answers exit and .ExitCode is 0.
	Status bool `yaml:"status,omitempty" json:"status,omitempty"`
	// Timeout bounds a call (a Go duration). When it passes, the shell is killed, and the call and every
	// call after it answer timeout until a restart.
	Timeout Duration `yaml:"timeout" json:"timeout"`
	// TrimNewline removes one "\n" at the end of each stream's text (Python's `if s.endswith("\n"):
	// s = s[:-1]`).
	TrimNewline bool `yaml:"trim_newline,omitempty" json:"trim_newline,omitempty"`
	// OnExit is what a call answers when the shell exits before writing the sentinel (exit, a syntax error
	// of a non-interactive shell, a signal): exited (the default: the exited case, with the shell's
	// status), or timeout (the timeout case, as a source that waits its whole timeout for the sentinel
	// answers, but at once; the next call answers exited).
	OnExit PersistentOnExit `yaml:"on_exit,omitempty" json:"on_exit,omitempty" jsonschema:"enum=exited,enum=timeout"`
}

// PersistentOnExit is what a call answers when its persistent shell exits under it.
type PersistentOnExit string

const (
	OnExitExited  PersistentOnExit = "exited"  // the exited case (the default)
	OnExitTimeout PersistentOnExit = "timeout" // the timeout case, at once; the next call answers exited
)

// DefaultPersistentArgv is Persistent.Argv when the spec gives none.
var DefaultPersistentArgv = []string{"/bin/bash"}

// Batch is a tool of kind batch: a call carries a list of commands (a parameter with role commands), each
// run in order as an exec tool runs its command (the variant's shell, the tool's timeout, working
// directory and environment), each answered by Each; the call's answer is the ok case, whose data holds
// the answers (.Answers).
type Batch struct {
	// Each shapes each command's answer, as an exec tool's results shape its one: the cases exit (or
	// success and failure), timeout (with a timeout block) and spawn_error (and spawn_error.<ERRNO>), each
	// rendered from the data of that command's run.
	Each Results `yaml:"each" json:"each"`
	// AfterTimeout is what follows a command that timed out: continue (the next command runs; the default)
	// or stop (the commands after it do not run and have no answer).
	AfterTimeout BatchAfterTimeout `yaml:"after_timeout,omitempty" json:"after_timeout,omitempty" jsonschema:"enum=continue,enum=stop"`
	// MaxCommands is the longest list a call may send (default 100); a longer one is the tool's invalid
	// parameter failure.
	MaxCommands int `yaml:"max_commands,omitempty" json:"max_commands,omitempty" jsonschema:"minimum=0,maximum=4096"`
	// Limit is the most output each command keeps, which the model may choose (a parameter with role
	// output_limit).
	Limit *BatchLimit `yaml:"limit,omitempty" json:"limit,omitempty"`
}

// BatchLimit limits each command's output: stdout and stderr share it (stdout keeps its head up to the
// limit, stderr its head up to what stdout left), or a combined or sequential capture keeps its head.
type BatchLimit struct {
	// Unit is chars (code points) or bytes.
	Unit SizeUnit `yaml:"unit" json:"unit" jsonschema:"enum=bytes,enum=chars"`
	// Default is the limit when the parameter is absent; 0 is none (the runtime's own bound).
	Default int `yaml:"default,omitempty" json:"default,omitempty" jsonschema:"minimum=0,maximum=268435456"`
}

// BatchAfterTimeout is what follows a command of a batch that timed out.
type BatchAfterTimeout string

const (
	BatchContinue BatchAfterTimeout = "continue" // the next command runs (the default)
	BatchStop     BatchAfterTimeout = "stop"     // the commands after it do not run
)

// DefaultMaxCommands is Batch.MaxCommands when the spec gives none.
const DefaultMaxCommands = 100

// APITool is how the model APIs that define a tool themselves name it in a request. A definition in such
// an API's format is this form instead of the tool's name, description and JSON Schema; the model knows
// the tool's input from its training.
type APITool struct {
	// Anthropic is the tool in the Anthropic Messages API ({"type": "bash_20250124", "name": "bash"}).
	Anthropic *APIForm `yaml:"anthropic,omitempty" json:"anthropic,omitempty"`
	// OpenAIResponses is the tool in the OpenAI Responses API ({"type": "shell"}, {"type": "local_shell"}).
	OpenAIResponses *APIForm `yaml:"openai_responses,omitempty" json:"openai_responses,omitempty"`
}

// APIForm is one API's form of a tool: its type, and its name when the API gives it one.
type APIForm struct {
	Type string `yaml:"type" json:"type" jsonschema:"minLength=1"`
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
}

// TimeoutDuration is the persistent shell's timeout.
func (p *Persistent) TimeoutDuration() time.Duration { return p.Timeout.D() }

// IsAPIShape reports whether a tool of this kind is one of the model APIs' shapes.
func (k Kind) IsAPIShape() bool { return k == KindPersistent || k == KindBatch }

// apiTool checks what the shapes of this file add to a tool.
func (c *checker) apiTool(ptr string, t *Tool, kind Kind, roles map[Role]string, params map[string]*Param) {
	only := func(r Role, ok bool, where string) {
		if name, has := roles[r]; has && !ok {
			c.errf(ptr+"/params", "parameter %q has role %s, which only %s has", name, r, where)
		}
	}
	only(RoleRestart, kind == KindPersistent, "a persistent tool")
	only(RoleCommands, kind == KindBatch, "a batch tool")
	only(RoleOutputLimit, kind == KindBatch, "a batch tool")
	only(RoleArgv, kind == KindExec, "an exec tool")
	for i := range t.Params {
		p := &t.Params[i]
		pp := ptr + "/params/" + strconv.Itoa(i)
		switch p.Role {
		case RoleArgv, RoleCommands:
			if p.Type != TypeArray {
				c.errf(pp+"/type", "a parameter with role %s is an array (of strings)", p.Role)
			}
		case RoleRestart:
			if p.Type != TypeBoolean {
				c.errf(pp+"/type", "a parameter with role restart is a boolean")
			}
		case RoleOutputLimit:
			if p.Type != TypeInteger {
				c.errf(pp+"/type", "a parameter with role output_limit is an integer")
			}
		}
		if p.Type == TypeArray && p.Role != RoleArgv && p.Role != RoleCommands && p.Role != RoleNone && p.Role != "" {
			c.errf(pp+"/type", "an array parameter has role argv, commands or none, not %s", p.Role)
		}
	}
	if name, ok := roles[RoleArgv]; ok {
		if cmd, has := roles[RoleCommand]; has {
			c.errf(ptr+"/params", "parameters %q (role command) and %q (role argv) exclude each other", cmd, name)
		}
		if t.Wrap != "" {
			c.errf(ptr+"/wrap", "wrap applies to a command a shell runs, not to an argv")
		}
	}
	if t.Wrap != "" {
		c.template(ptr+"/wrap", t.Wrap)
		if kind != KindExec && kind != KindBatch {
			c.errf(ptr+"/wrap", "wrap applies to exec and batch tools, not %s", kind)
		}
	}
	if o := t.Output; o != nil && o.Capture == CaptureSequential {
		if o.Truncate != nil {
			c.errf(ptr+"/output/truncate", "a sequential capture is cut by an output budget, not by truncate")
		}
		if kind != KindExec {
			c.errf(ptr+"/output/capture", "a sequential capture applies to exec tools, not %s", kind)
		}
	}
	if a := t.API; a != nil && a.Anthropic == nil && a.OpenAIResponses == nil {
		c.errf(ptr+"/api", "api names at least one API's form of the tool")
	}

	if (kind == KindPersistent) != (t.Persistent != nil) {
		c.errf(ptr+"/persistent", "a persistent block and kind persistent go together")
	}
	if (kind == KindBatch) != (t.Batch != nil) {
		c.errf(ptr+"/batch", "a batch block and kind batch go together")
	}
	switch kind {
	case KindPersistent:
		c.persistent(ptr, t, roles)
	case KindBatch:
		c.batch(ptr, t, roles)
	}
}

func (c *checker) persistent(ptr string, t *Tool, roles map[Role]string) {
	if _, ok := roles[RoleCommand]; !ok {
		c.errf(ptr+"/params", "a persistent tool needs a parameter with role: command")
	}
	for _, r := range []Role{RoleTimeout, RoleWorkdir, RoleEnv, RoleBackground, RoleCapture, RoleWorkspace, RoleBudget} {
		if name, ok := roles[r]; ok {
			c.errf(ptr+"/params", "parameter %q has role %s, which a persistent tool does not have: its shell keeps one working directory, environment and timeout", name, r)
		}
	}
	if t.Timeout != nil {
		c.errf(ptr+"/timeout", "a persistent tool's timeout is persistent.timeout")
	}
	if t.Workdir != nil {
		c.errf(ptr+"/workdir", "a persistent tool has no working-directory parameter: its shell keeps its own")
	}
	if len(t.Carry) > 0 {
		c.errf(ptr+"/carry", "a persistent shell keeps all its state: carry applies to exec tools")
	}
	if o := t.Output; o != nil {
		if o.Capture == CaptureCombined {
			c.errf(ptr+"/output/capture", "a persistent shell's streams are separate: its stdout carries the sentinel")
		}
		if o.Budget != nil {
			c.errf(ptr+"/output/budget", "a persistent tool's output is cut by output.truncate, not a budget")
		}
	}
	if c.v.Shell.Embedded {
		c.errf(ptr+"/kind", "a persistent shell is a process of its own: the variant's shell is embedded")
	}
	p := t.Persistent
	if p == nil {
		return
	}
	pp := ptr + "/persistent"
	if p.Sentinel == "" {
		c.errf(pp+"/sentinel", "persistent needs a sentinel")
	}
	if p.Input == "" {
		c.errf(pp+"/input", "persistent needs an input template")
	} else {
		c.template(pp+"/input", p.Input)
	}
	if p.Timeout <= 0 {
		c.errf(pp+"/timeout", "persistent needs a timeout above zero")
	}
	c.atMost(pp+"/timeout", "timeout", p.Timeout.D().Seconds(), MaxTimeout.Seconds())
	cases := t.Results.Cases
	if _, ok := cases[OutcomeTimeout]; !ok {
		c.errf(ptr+"/results/cases", "a persistent tool needs a timeout case")
	}
	if _, ok := cases[OutcomeExited]; !ok {
		c.errf(ptr+"/results/cases", "a persistent tool needs an exited case (a call after its shell exited)")
	}
	if _, ok := roles[RoleRestart]; ok {
		if _, ok := cases[OutcomeRestarted]; !ok {
			c.errf(ptr+"/results/cases", "parameter %q has role restart: the tool needs a restarted case", roles[RoleRestart])
		}
	}
}

func (c *checker) batch(ptr string, t *Tool, roles map[Role]string) {
	if _, ok := roles[RoleCommands]; !ok {
		c.errf(ptr+"/params", "a batch tool needs a parameter with role: commands")
	}
	for _, r := range []Role{RoleBackground, RoleCapture, RoleBudget} {
		if name, ok := roles[r]; ok {
			c.errf(ptr+"/params", "parameter %q has role %s, which a batch tool does not have", name, r)
		}
	}
	if len(t.Carry) > 0 {
		c.errf(ptr+"/carry", "carry applies to exec tools, not batch")
	}
	if o := t.Output; o != nil && o.Budget != nil {
		c.errf(ptr+"/output/budget", "a batch's commands are cut by batch.limit, not a budget")
	}
	if o := t.Output; o != nil && o.Truncate != nil && t.Batch != nil && t.Batch.Limit != nil {
		c.errf(ptr+"/batch/limit", "batch.limit and output.truncate exclude each other")
	}
	b := t.Batch
	if b == nil {
		return
	}
	bp := ptr + "/batch"
	if name, ok := roles[RoleOutputLimit]; ok && b.Limit == nil {
		c.errf(ptr+"/params", "parameter %q has role output_limit but the tool has no batch.limit", name)
	}
	if b.Limit != nil && b.Limit.Unit != Bytes && b.Limit.Unit != Chars {
		c.errf(bp+"/limit/unit", "a batch limit's unit is bytes or chars")
	}
	each := b.Each.Cases
	if b.Each.Format == "" {
		c.errf(bp+"/each/format", "batch.each needs a format (json or text)")
	}
	if b.Each.Union {
		c.errf(bp+"/each/union", "batch.each is not typed as a union: its answers are the ok case's data")
	}
	_, ex := each[OutcomeExit]
	_, ok := each[OutcomeSuccess]
	_, bad := each[OutcomeFailure]
	if !ex && !(ok && bad) {
		c.errf(bp+"/each/cases", "batch.each needs an exit case, or both success and failure")
	}
	if tm := t.Timeout; tm != nil {
		if tm.Expiry != ExpiryKill {
			c.errf(ptr+"/timeout/expiry", "a batch's commands are killed when their timeout passes (expiry kill)")
		}
		if _, ok := each[OutcomeTimeout]; !ok {
			c.errf(bp+"/each/cases", "a batch with a timeout needs a timeout case in batch.each")
		}
	}
	for name, sh := range each {
		switch {
		case name == OutcomeExit, name == OutcomeSuccess, name == OutcomeFailure, name == OutcomeTimeout, name == OutcomeSpawnError:
		case strings.HasPrefix(string(name), string(OutcomeSpawnError)+"."):
		default:
			c.errf(bp+"/each/cases/"+string(name), "batch.each shapes exit, success, failure, timeout and spawn_error, not %s", name)
		}
		if sh.Truncate != nil {
			c.errf(bp+"/each/cases/"+string(name)+"/truncate", "batch.each cuts with batch.limit, not a result-level truncation")
		}
		c.shape(bp+"/each/cases/"+string(name), b.Each.Format, sh, each)
	}
}

// fillAPIDefaults fills what the shapes of this file leave out.
func (t *Tool) fillAPIDefaults() {
	if p := t.Persistent; p != nil {
		if len(p.Argv) == 0 {
			p.Argv = append([]string(nil), DefaultPersistentArgv...)
		}
		if p.OnExit == "" {
			p.OnExit = OnExitExited
		}
	}
	if b := t.Batch; b != nil {
		if b.AfterTimeout == "" {
			b.AfterTimeout = BatchContinue
		}
		if b.MaxCommands <= 0 {
			b.MaxCommands = DefaultMaxCommands
		}
		if _, ok := b.Each.Cases[OutcomeSpawnError]; !ok {
			if b.Each.Cases == nil {
				b.Each.Cases = map[Outcome]Shape{}
			}
			f := DefaultSpawnError
			b.Each.Cases[OutcomeSpawnError] = Shape{Raise: &f}
		}
	}
	if t.Kind == KindPersistent {
		if _, ok := t.Results.Cases[OutcomeSpawnError]; !ok {
			f := DefaultSpawnError
			t.Results.Cases[OutcomeSpawnError] = Shape{Raise: &f}
		}
	}
}

// batchSites are the failures a batch's each cases raise, in outcome order.
func (t *Tool) batchSites(tp string) []Site {
	b := t.Batch
	if b == nil {
		return nil
	}
	var out []Site
	for _, o := range slices.Sorted(maps.Keys(b.Each.Cases)) {
		sh := b.Each.Cases[o]
		if sh.Raise == nil {
			continue
		}
		when := fmt.Sprintf("a command of %s ends with outcome %s", t.Name, o)
		if o == OutcomeSpawnError {
			when = t.Name + " cannot start its shell for a command"
		} else if errno, ok := strings.CutPrefix(string(o), string(OutcomeSpawnError)+"."); ok {
			when = fmt.Sprintf("%s cannot start its shell for a command (%s)", t.Name, errno)
		}
		out = append(out, Site{Tool: t.Name, When: when, Pointer: tp + "/batch/each/cases/" + escapePointer(string(o)) + "/raise", Failure: sh.Raise})
	}
	return out
}

// CommandArg is how a call of the tool carries a shell command: the parameter and its value for each
// shape (a command: the text; a list of commands: a list of one; a program and its arguments: /bin/sh -c
// and the text). ok is false for a tool that takes no command.
func (t *Tool) CommandArg(command string) (name string, value any, ok bool) {
	switch {
	case t.Param(RoleCommand) != nil:
		return t.Param(RoleCommand).Name, command, true
	case t.Param(RoleCommands) != nil:
		return t.Param(RoleCommands).Name, []string{command}, true
	case t.Param(RoleArgv) != nil:
		return t.Param(RoleArgv).Name, []string{"/bin/sh", "-c", command}, true
	}
	return "", nil, false
}
