package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/spec"
)

// Approval is a call a policy asks about (a permission policy's verdict ask): what an Approver decides.
type Approval struct {
	// Tool is the tool called, Command the command as sent.
	Tool, Command string
	// Policy is the policy whose verdict is ask, Rule the rule that matched (as written).
	Policy, Rule string
	// Message is the verdict's message: what the call is refused with when it is not approved.
	Message string
}

// Approver decides a call a policy asks about: true runs it (the checks go on), false refuses it with the
// policy's failure, as an engine without an approver does. It runs on the call's goroutine with the call's
// context, so it may block (asking a person) until ctx ends; it must then return false.
type Approver func(ctx context.Context, a Approval) bool

// WithApprover makes the engine ask f about every call a policy's verdict is ask for, instead of refusing
// it at once.
func WithApprover(f Approver) Option { return func(c *config) { c.approver = f } }

// CallInfo describes one finished call to a CallObserver. What it quotes of the call (Params, Command,
// Message) has the spec's redaction rules applied (spec.Redact, whatever tools they are limited to), so
// it can be logged.
type CallInfo struct {
	// Tool is the tool called (as named, also when the variant has no such tool).
	Tool string
	// Params are the parameters as sent (a JSON object when they were one).
	Params json.RawMessage
	// Command is the command parameter as sent ("" when the call had none or did not get that far).
	Command string
	// Outcome is the result case rendered (success, failure, timeout, background, spawn_error, ok, running,
	// or a failure's case), "error" for an error the tool raised (ErrorType and Message say which), and
	// "cancelled" or "host_error" for an error that is not the tool's (Err).
	Outcome string
	// ErrorType and Message are a raised error's class and text.
	ErrorType, Message string
	// ExitCode is the command's exit code as the result reports it, when the call saw the command end.
	ExitCode *int
	// Asked reports that a policy asked about the call, and Approved the Approver's answer.
	Asked, Approved bool
	// Started is when the call began; Duration how long it took.
	Started  time.Time
	Duration time.Duration
	// Bytes is the size of the answer: the result's JSON, or a raised error's message.
	Bytes int
	// Err is the call's error when it is not the tool's (a cancelled context, a closed engine).
	Err error
}

// CallObserver is told about every call an engine ran, once it has returned, on the call's goroutine and
// with its context (whose values say, for example, which client called).
type CallObserver func(ctx context.Context, info CallInfo)

// WithCallObserver makes the engine tell f about every call.
func WithCallObserver(f CallObserver) Option { return func(c *config) { c.observer = f } }

// observe tells the engine's observer about a call that returned res or err.
func (e *Engine) observe(ctx context.Context, c *call, tool string, params json.RawMessage, res json.RawMessage, err error) {
	info := CallInfo{Tool: tool, Started: time.Now(), Duration: 0, Bytes: len(res)}
	if c != nil {
		info.Started = c.started
		info.Command = e.redactAll(c.data.Command)
		info.Outcome = string(c.outcome)
		info.ExitCode = c.sawExit
		info.Asked, info.Approved = c.asked, c.approved
	}
	info.Duration = time.Since(info.Started)
	info.Params = e.redactParams(params)
	var te *ToolError
	switch {
	case err == nil:
	case errors.As(err, &te):
		info.Outcome, info.ErrorType, info.Message, info.Bytes = "error", te.Type, e.redactAll(te.Message), len(te.Message)
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		info.Outcome, info.Err = "cancelled", err
	default:
		info.Outcome, info.Err = "host_error", err
	}
	e.cfg.observer(ctx, info)
}

// redactAll applies every redaction rule of the spec to a text the observer sees.
func (e *Engine) redactAll(s string) string {
	if e.redact == nil || s == "" {
		return s
	}
	return e.redact.text(s)
}

// redactParams applies the redaction rules to every string of the parameters (keys and values), keeping
// the JSON valid; parameters that are not JSON are quoted as one string.
func (e *Engine) redactParams(params json.RawMessage) json.RawMessage {
	if e.redact == nil || len(params) == 0 {
		return params
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return jsonenc.String(e.redact.text(string(params)))
	}
	b, err := jsonenc.Marshal(e.redactValue(v))
	if err != nil {
		return jsonenc.String(e.redact.text(string(params)))
	}
	return b
}

func (e *Engine) redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return e.redact.text(x)
	case []any:
		for i := range x {
			x[i] = e.redactValue(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[e.redact.text(k)] = e.redactValue(val)
		}
		return out
	}
	return v
}

// approve asks the engine's approver about a call a policy's verdict is ask for.
func (c *call) approve(policy, rule, message string) bool {
	f := c.e.cfg.approver
	if f == nil {
		return false
	}
	c.asked = true
	c.approved = f(c.ctx, Approval{Tool: c.t.spec.Name, Command: c.data.Command, Policy: policy, Rule: rule, Message: message})
	return c.approved
}

// rendered records the result case a call rendered, for the observer (the first one: a failure rendered
// as a case renders once).
func (c *call) rendered(o spec.Outcome) {
	if c.outcome == "" {
		c.outcome = o
	}
}
