package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentbash/agentbash/internal/jsonenc"
)

// responsesDialect is the OpenAI Responses API: POST /v1/responses (stream true: SSE), GET /v1/models.
type responsesDialect struct{}

func (responsesDialect) route(r *http.Request) endpoint {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		return epTurn
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses/input_tokens"):
		return epCount
	case r.Method == http.MethodGet && strings.Contains(p, "/models"):
		return epModels
	}
	return epOther
}

func (responsesDialect) parse(_ *http.Request, body []byte) (*turn, error) {
	var req struct {
		Model  string          `json:"model"`
		Stream bool            `json:"stream"`
		Input  json.RawMessage `json:"input"`
		Tools  []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
		Text *struct {
			Format *struct {
				Type   string `json:"type"`
				Schema any    `json:"schema"`
			} `json:"format"`
		} `json:"text"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	t := &turn{model: req.Model, stream: req.Stream}
	if req.Text != nil && req.Text.Format != nil && strings.HasPrefix(req.Text.Format.Type, "json") {
		t.json, t.schema = true, req.Text.Format.Schema
	}
	for _, tl := range req.Tools {
		switch {
		case tl.Name != "":
			t.tools = append(t.tools, tl.Name)
		case tl.Type == "shell":
			// The API's own shell tool ({"type": "shell"}) has no name: the model calls it with a
			// shell_call item, and it is known by its type.
			t.tools = append(t.tools, tl.Type)
			if t.builtin == nil {
				t.builtin = map[string]string{}
			}
			t.builtin[tl.Type] = tl.Type
		}
	}
	if !bytes.HasPrefix(bytes.TrimSpace(req.Input), []byte("[")) {
		return t, nil // a string input: no tool results
	}
	var items []json.RawMessage
	if err := json.Unmarshal(req.Input, &items); err != nil {
		return nil, fmt.Errorf("input: %v", err)
	}
	for _, raw := range items {
		var it struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		}
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		var text string
		var err error
		switch it.Type {
		case "function_call_output", "custom_tool_call_output":
			text, err = responsesText(it.Output)
		case "shell_call_output":
			text, err = shellOutputText(raw)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", it.Type, it.CallID, err)
		}
		t.results = append(t.results, Result{CallID: it.CallID, Text: text, Raw: raw})
	}
	return t, nil
}

// responsesText is a function_call_output's output as the model reads it: a string, or the text of an
// array of content items (input_text, output_text) joined.
func responsesText(o json.RawMessage) (string, error) {
	o = bytes.TrimSpace(o)
	if len(o) == 0 || string(o) == "null" {
		return "", nil
	}
	if o[0] == '"' {
		var s string
		err := json.Unmarshal(o, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(o, &parts); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "input_text" || p.Type == "output_text" || p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// shellOutputText is a shell_call_output as the model reads it: its output (the list of each command's
// {stdout, stderr, outcome}) and max_output_length, when it has one, as the JSON object {"output": [...],
// "max_output_length": N}. Its type, call_id, id and status are the envelope.
func shellOutputText(raw json.RawMessage) (string, error) {
	var it struct {
		Output          json.RawMessage `json:"output"`
		MaxOutputLength json.RawMessage `json:"max_output_length"`
	}
	if err := json.Unmarshal(raw, &it); err != nil {
		return "", err
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(it.Output, &entries); err != nil {
		return "", fmt.Errorf("output is not a list: %v", err)
	}
	if entries == nil {
		entries = []json.RawMessage{}
	}
	out := map[string]any{"output": entries}
	if m := bytes.TrimSpace(it.MaxOutputLength); len(m) > 0 && string(m) != "null" {
		out["max_output_length"] = json.RawMessage(m)
	}
	b, err := jsonenc.Marshal(out)
	return string(b), err
}

func (responsesDialect) check(Call) error { return nil }

func (responsesDialect) callID(n string) string { return "call_" + n }

// items are a response's output items: a message with the text, or a call item per call (a shell_call for
// a call of the API's shell tool, whose action is the call's parameters; else a function_call).
func (responsesDialect) items(t *turn, id string, calls []Call, text string) []map[string]any {
	if len(calls) == 0 {
		return []map[string]any{{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}}
	}
	var out []map[string]any
	for i, c := range calls {
		if t.builtin[c.Name] == "shell" {
			out = append(out, map[string]any{"type": "shell_call", "id": fmt.Sprintf("sh_%s_%d", id, i), "call_id": c.ID,
				"action": c.Args, "status": "completed"})
			continue
		}
		out = append(out, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%s_%d", id, i), "call_id": c.ID,
			"name": c.Name, "arguments": string(c.Args), "status": "completed"})
	}
	return out
}

func (responsesDialect) response(t *turn, id string, status string, output []map[string]any) map[string]any {
	if output == nil {
		output = []map[string]any{}
	}
	r := map[string]any{"id": "resp_" + id, "object": "response", "created_at": time.Now().Unix(), "status": status,
		"model": modelName(t.model), "output": output, "parallel_tool_calls": true, "error": nil, "incomplete_details": nil}
	if status == "completed" {
		r["usage"] = map[string]any{"input_tokens": 1, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 1, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 2}
	}
	return r
}

func (d responsesDialect) whole(w http.ResponseWriter, t *turn, id string, calls []Call, text string) error {
	return writeJSON(w, d.response(t, id, "completed", d.items(t, id, calls, text)))
}

func (d responsesDialect) stream(w *sseWriter, t *turn, id string, calls []Call, text string) error {
	seq := 0
	ev := func(name string, data map[string]any) error {
		data["type"] = name
		data["sequence_number"] = seq
		seq++
		return w.event(name, data)
	}
	if err := ev("response.created", map[string]any{"response": d.response(t, id, "in_progress", nil)}); err != nil {
		return err
	}
	items := d.items(t, id, calls, text)
	for i, it := range items {
		added := map[string]any{}
		for k, v := range it {
			added[k] = v
		}
		added["status"] = "in_progress"
		switch it["type"] {
		case "function_call":
			added["arguments"] = ""
		case "message":
			added["content"] = []any{}
		}
		if err := ev("response.output_item.added", map[string]any{"output_index": i, "item": added}); err != nil {
			return err
		}
		switch it["type"] {
		case "shell_call":
			// The item is whole when added: output_item.done carries it again.
		case "function_call":
			for _, part := range halves(string(calls[i].Args)) {
				if err := ev("response.function_call_arguments.delta", map[string]any{"output_index": i, "item_id": it["id"], "delta": part}); err != nil {
					return err
				}
			}
			if err := ev("response.function_call_arguments.done", map[string]any{"output_index": i, "item_id": it["id"], "arguments": it["arguments"]}); err != nil {
				return err
			}
		default:
			if err := ev("response.output_text.delta", map[string]any{"output_index": i, "item_id": it["id"], "content_index": 0, "delta": text}); err != nil {
				return err
			}
			if err := ev("response.output_text.done", map[string]any{"output_index": i, "item_id": it["id"], "content_index": 0, "text": text}); err != nil {
				return err
			}
		}
		if err := ev("response.output_item.done", map[string]any{"output_index": i, "item": it}); err != nil {
			return err
		}
	}
	return ev("response.completed", map[string]any{"response": d.response(t, id, "completed", items)})
}

func (responsesDialect) writeCount(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"object": "response.input_tokens", "input_tokens": 1})
}

func (responsesDialect) writeModels(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"object": "list", "data": []any{}})
}
