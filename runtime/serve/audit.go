package serve

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/runtime"
)

// AuditRecord is one line of the audit log: one call.
type AuditRecord struct {
	// Time is when the call began (RFC 3339, UTC, nanoseconds).
	Time string `json:"time"`
	// Transport is stdio, http, sse or wire ("" for an MCP server on a transport of the host's own).
	Transport string `json:"transport"`
	// Session is the streamable HTTP session's id; Client the MCP client's name/version; Remote the address
	// of the HTTP client that opened the session; ID the wire protocol's request id.
	Session string `json:"session,omitempty"`
	Client  string `json:"client,omitempty"`
	Remote  string `json:"remote,omitempty"`
	ID      string `json:"id,omitempty"`
	// Workspace is the wire protocol's workspace of the call.
	Workspace string `json:"workspace,omitempty"`
	// Tool, Params and Command are the call, with the spec's redaction applied.
	Tool    string          `json:"tool"`
	Params  json.RawMessage `json:"params,omitempty"`
	Command string          `json:"command,omitempty"`
	// Outcome is the result case (success, failure, timeout, background, ...), error (ErrorType and
	// Message say which), cancelled or host_error (Message says why).
	Outcome   string `json:"outcome"`
	ErrorType string `json:"error_type,omitempty"`
	Message   string `json:"message,omitempty"`
	// ExitCode is the command's exit code, when the call saw it end.
	ExitCode *int `json:"exit_code,omitempty"`
	// Approval is accepted or refused when a policy asked about the call.
	Approval string `json:"approval,omitempty"`
	// DurationMS is how long the call took, in milliseconds; Bytes the size of its answer.
	DurationMS float64 `json:"duration_ms"`
	Bytes      int     `json:"bytes"`
}

// AuditLog is a runtime.CallObserver that writes one JSON line (an AuditRecord) per call to w, each in one
// Write, in the order the calls end. onError, when set, is told of the first write that fails (later
// lines are still tried). Rotating the file is the operator's business (or pipe the log to a program
// that does it).
func AuditLog(w io.Writer, onError func(error)) runtime.CallObserver {
	var mu sync.Mutex
	failed := false
	return func(ctx context.Context, i runtime.CallInfo) {
		r := AuditRecord{
			Time: i.Started.UTC().Format(time.RFC3339Nano), Tool: i.Tool, Params: i.Params, Command: i.Command,
			Outcome: i.Outcome, ErrorType: i.ErrorType, Message: i.Message, ExitCode: i.ExitCode,
			DurationMS: float64(i.Duration.Microseconds()) / 1000, Bytes: i.Bytes,
		}
		if i.Err != nil && r.Message == "" {
			r.Message = i.Err.Error()
		}
		if i.Asked {
			r.Approval = "refused"
			if i.Approved {
				r.Approval = "accepted"
			}
		}
		if m := callMetaFrom(ctx); m != nil {
			r.Transport, r.Session, r.Client, r.Remote, r.ID, r.Workspace = m.Transport, m.Session, m.Client, m.Remote, m.ID, m.Workspace
		}
		b, err := jsonenc.Marshal(r)
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, err := w.Write(append(b, '\n')); err != nil && !failed {
			failed = true
			if onError != nil {
				onError(err)
			}
		}
	}
}
