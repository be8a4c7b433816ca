package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// chatDialect is the OpenAI Chat Completions API: POST /v1/chat/completions (stream true: SSE chunks and
// [DONE]), GET /v1/models.
type chatDialect struct{}

func (chatDialect) route(r *http.Request) endpoint {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
		return epTurn
	case r.Method == http.MethodGet && strings.Contains(p, "/models"):
		return epModels
	}
	return epOther
}

func (chatDialect) parse(_ *http.Request, body []byte) (*turn, error) {
	var req struct {
		Model    string            `json:"model"`
		Stream   bool              `json:"stream"`
		Messages []json.RawMessage `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		ResponseFormat *struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Schema any `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	t := &turn{model: req.Model, stream: req.Stream}
	if rf := req.ResponseFormat; rf != nil && strings.HasPrefix(rf.Type, "json") {
		t.json, t.schema = true, rf.JSONSchema.Schema
	}
	for _, tl := range req.Tools {
		if tl.Function.Name != "" {
			t.tools = append(t.tools, tl.Function.Name)
		}
	}
	for _, raw := range req.Messages {
		var m struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &m) != nil || m.Role != "tool" {
			continue
		}
		text, err := chatText(m.Content)
		if err != nil {
			return nil, fmt.Errorf("tool message %s: %v", m.ToolCallID, err)
		}
		t.results = append(t.results, Result{CallID: m.ToolCallID, Text: text, Raw: raw})
	}
	return t, nil
}

// chatText is a message's content as the model reads it: a string, or its text parts joined.
func chatText(c json.RawMessage) (string, error) {
	c = bytes.TrimSpace(c)
	if len(c) == 0 || string(c) == "null" {
		return "", nil
	}
	if c[0] == '"' {
		var s string
		err := json.Unmarshal(c, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(c, &parts); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

func (chatDialect) check(Call) error { return nil }

func (chatDialect) callID(n string) string { return "call_" + n }

func chatUsage() map[string]any {
	return map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
}

func (chatDialect) whole(w http.ResponseWriter, t *turn, id string, calls []Call, text string) error {
	msg := map[string]any{"role": "assistant", "content": text}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
		msg["content"] = nil
		var tcs []any
		for _, c := range calls {
			tcs = append(tcs, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": string(c.Args)}})
		}
		msg["tool_calls"] = tcs
	}
	return writeJSON(w, map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "created": time.Now().Unix(),
		"model": modelName(t.model), "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage": chatUsage()})
}

func (chatDialect) stream(w *sseWriter, t *turn, id string, calls []Call, text string) error {
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": created, "model": modelName(t.model),
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}}
	}
	var chunks []map[string]any
	finish := "stop"
	if len(calls) == 0 {
		chunks = append(chunks, chunk(map[string]any{"role": "assistant", "content": ""}, nil), chunk(map[string]any{"content": text}, nil))
	} else {
		finish = "tool_calls"
		chunks = append(chunks, chunk(map[string]any{"role": "assistant", "content": nil}, nil))
		for i, c := range calls {
			chunks = append(chunks, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
			for _, part := range halves(string(c.Args)) {
				chunks = append(chunks, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": part}}}}, nil))
			}
		}
	}
	chunks = append(chunks, chunk(map[string]any{}, finish))
	usage := map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": created, "model": modelName(t.model),
		"choices": []any{}, "usage": chatUsage()}
	chunks = append(chunks, usage)
	for _, c := range chunks {
		if err := w.event("", c); err != nil {
			return err
		}
	}
	return w.raw([]byte("data: [DONE]\n\n"))
}

func (chatDialect) writeCount(w http.ResponseWriter, _ *http.Request) { writeJSON(w, map[string]any{}) }

func (chatDialect) writeModels(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "fake-model", "object": "model", "created": 0, "owned_by": "agentbash"}}})
}
