package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicDialect is the Messages API: POST /v1/messages (stream true: SSE), /v1/messages/count_tokens,
// GET /v1/models.
type anthropicDialect struct{}

func (anthropicDialect) route(r *http.Request) endpoint {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages/count_tokens"):
		return epCount
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages"):
		return epTurn
	case r.Method == http.MethodGet && strings.Contains(p, "/models"):
		return epModels
	}
	return epOther
}

// contentBlock is a block of a message's content, as far as the server reads it.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (anthropicDialect) parse(_ *http.Request, body []byte) (*turn, error) {
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	t := &turn{model: req.Model, stream: req.Stream}
	for _, tl := range req.Tools {
		t.tools = append(t.tools, tl.Name)
	}
	for _, m := range req.Messages {
		if m.Role != "user" || !bytes.HasPrefix(bytes.TrimSpace(m.Content), []byte("[")) {
			continue
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(m.Content, &raws); err != nil {
			return nil, fmt.Errorf("a user message's content: %v", err)
		}
		for _, raw := range raws {
			var b contentBlock
			if json.Unmarshal(raw, &b) != nil || b.Type != "tool_result" {
				continue
			}
			text, err := anthropicText(b.Content)
			if err != nil {
				return nil, fmt.Errorf("tool_result %s: %v", b.ToolUseID, err)
			}
			t.results = append(t.results, Result{CallID: b.ToolUseID, Text: text, IsError: b.IsError, Raw: raw})
		}
	}
	return t, nil
}

// anthropicText is a tool_result's content as the model reads it: a string, or the text blocks of an
// array joined (with nothing between them; other blocks, such as images, are left out).
func anthropicText(c json.RawMessage) (string, error) {
	c = bytes.TrimSpace(c)
	if len(c) == 0 || string(c) == "null" {
		return "", nil
	}
	if c[0] == '"' {
		var s string
		err := json.Unmarshal(c, &s)
		return s, err
	}
	var blocks []contentBlock
	if err := json.Unmarshal(c, &blocks); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String(), nil
}

func (anthropicDialect) check(c Call) error { return objectArgs(c) }

// objectArgs checks that a call's arguments are a JSON object, for the APIs whose arguments are objects.
func objectArgs(c Call) error {
	if !bytes.HasPrefix(bytes.TrimSpace(c.Args), []byte("{")) || !json.Valid(c.Args) {
		return fmt.Errorf("the call of %s has arguments that are not a JSON object (%.80s), which this model API cannot carry", c.Name, c.Args)
	}
	return nil
}

func (anthropicDialect) callID(n string) string { return "toolu_" + n }

func anthropicUsage() map[string]any {
	return map[string]any{"input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

func (d anthropicDialect) message(t *turn, id string, content []any, stop string) map[string]any {
	return map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant", "model": modelName(t.model),
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": anthropicUsage()}
}

func modelName(m string) string {
	if m == "" {
		return "fake-model"
	}
	return m
}

func (d anthropicDialect) whole(w http.ResponseWriter, t *turn, id string, calls []Call, text string) error {
	if len(calls) == 0 {
		return writeJSON(w, d.message(t, id, []any{map[string]any{"type": "text", "text": text}}, "end_turn"))
	}
	var content []any
	for _, c := range calls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": c.Args})
	}
	return writeJSON(w, d.message(t, id, content, "tool_use"))
}

func (d anthropicDialect) stream(w *sseWriter, t *turn, id string, calls []Call, text string) error {
	start := d.message(t, id, []any{}, "")
	start["stop_reason"] = nil
	evs := []struct {
		name string
		data any
	}{{"message_start", map[string]any{"type": "message_start", "message": start}}}
	add := func(name string, data map[string]any) {
		data["type"] = name
		evs = append(evs, struct {
			name string
			data any
		}{name, data})
	}
	stop := "end_turn"
	if len(calls) == 0 {
		add("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		add("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
		add("content_block_stop", map[string]any{"index": 0})
	} else {
		stop = "tool_use"
		for i, c := range calls {
			add("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}})
			// The input in two deltas, as models stream it: the client must join them.
			for _, part := range halves(string(c.Args)) {
				add("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
			add("content_block_stop", map[string]any{"index": i})
		}
	}
	add("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 1}})
	add("message_stop", map[string]any{})
	for _, e := range evs {
		if err := w.event(e.name, e.data); err != nil {
			return err
		}
	}
	return nil
}

// halves cuts s in two at a UTF-8 boundary near its middle (one part when it is short).
func halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	m := len(s) / 2
	for m > 0 && m < len(s) && s[m]&0xC0 == 0x80 {
		m--
	}
	if m == 0 {
		return []string{s}
	}
	return []string{s[:m], s[m:]}
}

func (anthropicDialect) writeCount(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"input_tokens": 1})
}

func (anthropicDialect) writeModels(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"data": []any{}, "has_more": false, "first_id": nil, "last_id": nil})
}
