package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// geminiDialect is the Gemini API: POST /v1beta/models/M:generateContent, :streamGenerateContent
// (?alt=sse: SSE, else a JSON array of responses), :countTokens, GET /v1beta/models.
type geminiDialect struct{}

func (geminiDialect) route(r *http.Request) endpoint {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && (strings.HasSuffix(p, ":generateContent") || strings.HasSuffix(p, ":streamGenerateContent")):
		return epTurn
	case r.Method == http.MethodPost && strings.HasSuffix(p, ":countTokens"):
		return epCount
	case r.Method == http.MethodGet && strings.Contains(p, "/models"):
		return epModels
	}
	return epOther
}

func (geminiDialect) parse(r *http.Request, body []byte) (*turn, error) {
	var req struct {
		Contents []struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
			FunctionDeclarationsSnake []struct {
				Name string `json:"name"`
			} `json:"function_declarations"`
		} `json:"tools"`
		GenerationConfig *struct {
			ResponseMimeType   string `json:"responseMimeType"`
			ResponseJSONSchema any    `json:"responseJsonSchema"`
			ResponseSchema     any    `json:"responseSchema"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	t := &turn{}
	if gc := req.GenerationConfig; gc != nil && strings.Contains(gc.ResponseMimeType, "json") {
		t.json = true
		t.schema = gc.ResponseJSONSchema
		if t.schema == nil {
			t.schema = gc.ResponseSchema
		}
	}
	p := r.URL.Path
	if i := strings.LastIndex(p, "/models/"); i >= 0 {
		t.model, _, _ = strings.Cut(p[i+len("/models/"):], ":")
	}
	if strings.HasSuffix(p, ":streamGenerateContent") {
		t.stream = r.URL.Query().Get("alt") == "sse"
		t.array = !t.stream
	}
	for _, tl := range req.Tools {
		for _, f := range append(tl.FunctionDeclarations, tl.FunctionDeclarationsSnake...) {
			t.tools = append(t.tools, f.Name)
		}
	}
	// A functionResponse without an id answers the call of its name, in order, of the model turn before it.
	var lastCalls []string
	for _, c := range req.Contents {
		var calls []string
		used := map[string]int{}
		for _, raw := range c.Parts {
			var part struct {
				FunctionCall *struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				} `json:"functionCall"`
				FunctionResponse *struct {
					ID       string          `json:"id"`
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			}
			if json.Unmarshal(raw, &part) != nil {
				continue
			}
			if fc := part.FunctionCall; fc != nil {
				calls = append(calls, fc.ID+"\x00"+fc.Name)
			}
			if fr := part.FunctionResponse; fr != nil {
				id := fr.ID
				if id == "" {
					id = geminiCallOf(lastCalls, fr.Name, used)
				}
				text, isErr, err := geminiText(fr.Response)
				if err != nil {
					return nil, fmt.Errorf("functionResponse %s: %v", fr.Name, err)
				}
				t.results = append(t.results, Result{CallID: id, Text: text, IsError: isErr, Raw: raw})
			}
		}
		if len(calls) > 0 {
			lastCalls = calls
		}
	}
	return t, nil
}

// geminiCallOf is the id of the n-th call named name among calls ("id\x00name"), n counted in used.
func geminiCallOf(calls []string, name string, used map[string]int) string {
	k := 0
	for _, c := range calls {
		id, n, _ := strings.Cut(c, "\x00")
		if n != name {
			continue
		}
		if k == used[name] {
			used[name]++
			return id
		}
		k++
	}
	return ""
}

// geminiText is a functionResponse's response as the model reads it: its "output" (or "content") when it
// is a string, or its "error" (with the error flag); any other response as its JSON.
func geminiText(resp json.RawMessage) (string, bool, error) {
	resp = bytes.TrimSpace(resp)
	if len(resp) == 0 || string(resp) == "null" {
		return "", false, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(resp, &m); err != nil {
		return "", false, err
	}
	str := func(key string) (string, bool) {
		v, ok := m[key]
		if !ok || len(m) != 1 {
			return "", false
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	}
	if s, ok := str("error"); ok {
		return s, true, nil
	}
	for _, k := range []string{"output", "content", "result"} {
		if s, ok := str(k); ok {
			return s, false, nil
		}
	}
	_, isErr := m["error"]
	return string(resp), isErr, nil
}

func (geminiDialect) check(c Call) error { return objectArgs(c) }

func (geminiDialect) callID(n string) string { return "call_" + n }

func (geminiDialect) response(t *turn, calls []Call, text string) map[string]any {
	var parts []any
	if len(calls) == 0 {
		parts = append(parts, map[string]any{"text": text})
	}
	for _, c := range calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": c.ID, "name": c.Name, "args": c.Args}})
	}
	return map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  modelName(t.model),
	}
}

func (d geminiDialect) whole(w http.ResponseWriter, t *turn, _ string, calls []Call, text string) error {
	if t.array {
		// streamGenerateContent without alt=sse: a JSON array of responses.
		return writeJSON(w, []any{d.response(t, calls, text)})
	}
	return writeJSON(w, d.response(t, calls, text))
}

func (d geminiDialect) stream(w *sseWriter, t *turn, _ string, calls []Call, text string) error {
	return w.event("", d.response(t, calls, text))
}

func (geminiDialect) writeCount(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"totalTokens": 1})
}

func (geminiDialect) writeModels(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"models": []any{}})
}
