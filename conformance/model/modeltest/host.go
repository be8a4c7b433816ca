// Package modeltest is a small host of a model API, for tests: it holds a conversation with a model
// server (package model's fake model, or any server of the API) as an agent CLI does: it offers tools,
// runs each tool call the model answers with an executor of the caller's, sends the results back, and
// stops at the model's text answer. It speaks each API of package model, streaming or not.
package modeltest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/agentbash/agentbash/conformance/model"
)

// Tool is a tool the host offers.
type Tool struct {
	Name string
	// Schema is its parameters' JSON Schema (default: any object).
	Schema json.RawMessage
}

// Exec runs a tool call: it returns the text the model reads, and whether the result is an error.
type Exec func(ctx context.Context, name string, args json.RawMessage) (text string, isError bool)

// Host is the client side of a conversation.
type Host struct {
	API     model.API
	BaseURL string // as the API's clients take it (model.Server.BaseURL)
	// Stream asks for streamed answers (SSE).
	Stream bool
	// GeminiArray asks Gemini's streamGenerateContent for a JSON array (no alt=sse).
	GeminiArray bool
	// NoCallIDs sends Gemini functionResponses without the call's id (matched by name and order).
	NoCallIDs bool
	Tools     []Tool
	Exec      Exec
	Prompt    string
	Model     string
	// SideRequests makes, before the conversation, the requests hosts make beside it: a model list,
	// token counting, a request without tools (a title); each must get a valid answer.
	SideRequests bool
	// Sequential runs the calls of one answer one after the other (default: at once).
	Sequential bool
	// OnCall is called after each tool call (with the count so far), before its result is sent.
	OnCall func(n int)
	Client *http.Client
}

// Run holds the conversation until the model answers with text, which it returns.
func (h *Host) Run(ctx context.Context) (string, error) {
	if h.Client == nil {
		h.Client = http.DefaultClient
	}
	if h.Model == "" {
		h.Model = "fake-model"
	}
	if h.Prompt == "" {
		h.Prompt = "Run the tool calls."
	}
	if h.SideRequests {
		if err := h.side(ctx); err != nil {
			return "", fmt.Errorf("side request: %w", err)
		}
	}
	c := newConv(h)
	calls := 0
	for {
		ans, err := c.send(ctx, true)
		if err != nil {
			return "", err
		}
		if len(ans.calls) == 0 {
			return ans.text, nil
		}
		results := make([]callResult, len(ans.calls))
		run := func(i int) {
			cl := ans.calls[i]
			text, isErr := h.Exec(ctx, cl.name, cl.args)
			results[i] = callResult{call: cl, text: text, isError: isErr}
		}
		if h.Sequential {
			for i := range ans.calls {
				run(i)
			}
		} else {
			var wg sync.WaitGroup
			for i := range ans.calls {
				wg.Go(func() { run(i) })
			}
			wg.Wait()
		}
		calls += len(ans.calls)
		if h.OnCall != nil {
			h.OnCall(calls)
		}
		c.answer(ans, results)
	}
}

type call struct {
	id, name string
	args     json.RawMessage
}

type callResult struct {
	call    call
	text    string
	isError bool
}

// answer is a model's answer: calls, or a text.
type answer struct {
	calls []call
	text  string
	raw   any // the assistant message / items / content to put in the history
}

// conv is the history of a conversation in the API's shape.
type conv struct {
	h       *Host
	history []any
}

func newConv(h *Host) *conv {
	c := &conv{h: h}
	switch h.API {
	case model.Anthropic, model.OpenAIChat:
		c.history = []any{map[string]any{"role": "user", "content": h.Prompt}}
	case model.OpenAIResponses:
		c.history = []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": h.Prompt}}}}
	case model.Gemini:
		c.history = []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": h.Prompt}}}}
	}
	return c
}

func (h *Host) schema(t Tool) json.RawMessage {
	if len(t.Schema) > 0 {
		return t.Schema
	}
	return json.RawMessage(`{"type":"object"}`)
}

// body is a request with the history and, when withTools, the tools.
func (c *conv) body(withTools bool) (path string, body map[string]any) {
	h := c.h
	var tools []any
	for _, t := range h.Tools {
		switch h.API {
		case model.Anthropic:
			tools = append(tools, map[string]any{"name": t.Name, "description": t.Name, "input_schema": h.schema(t)})
		case model.OpenAIResponses:
			tools = append(tools, map[string]any{"type": "function", "name": t.Name, "description": t.Name, "parameters": h.schema(t), "strict": false})
		case model.OpenAIChat:
			tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "description": t.Name, "parameters": h.schema(t)}})
		case model.Gemini:
			tools = append(tools, map[string]any{"name": t.Name, "description": t.Name, "parametersJsonSchema": h.schema(t)})
		}
	}
	if !withTools {
		tools = nil
	}
	switch h.API {
	case model.Anthropic:
		body = map[string]any{"model": h.Model, "max_tokens": 1024, "messages": c.history, "stream": h.Stream}
		if tools != nil {
			body["tools"] = tools
		}
		return "/v1/messages", body
	case model.OpenAIResponses:
		body = map[string]any{"model": h.Model, "input": c.history, "stream": h.Stream, "store": false, "parallel_tool_calls": true}
		if tools != nil {
			body["tools"] = tools
		}
		return "/responses", body
	case model.OpenAIChat:
		body = map[string]any{"model": h.Model, "messages": c.history, "stream": h.Stream}
		if h.Stream {
			body["stream_options"] = map[string]any{"include_usage": true}
		}
		if tools != nil {
			body["tools"] = tools
		}
		return "/chat/completions", body
	default:
		body = map[string]any{"contents": c.history}
		if tools != nil {
			body["tools"] = []any{map[string]any{"functionDeclarations": tools}}
		}
		switch {
		case h.Stream:
			return "/v1beta/models/" + h.Model + ":streamGenerateContent?alt=sse", body
		case h.GeminiArray:
			return "/v1beta/models/" + h.Model + ":streamGenerateContent", body
		}
		return "/v1beta/models/" + h.Model + ":generateContent", body
	}
}

// send sends the history and reads the model's answer, which it adds to the history.
func (c *conv) send(ctx context.Context, withTools bool) (*answer, error) {
	path, body := c.body(withTools)
	resp, err := c.h.post(ctx, path, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var ans *answer
	switch c.h.API {
	case model.Anthropic:
		ans, err = readAnthropic(resp, c.h.Stream)
	case model.OpenAIResponses:
		ans, err = readResponses(resp, c.h.Stream)
	case model.OpenAIChat:
		ans, err = readChat(resp, c.h.Stream)
	case model.Gemini:
		ans, err = readGemini(resp, c.h.Stream, c.h.GeminiArray)
	}
	if err != nil {
		return nil, err
	}
	switch raw := ans.raw.(type) {
	case []any:
		if c.h.API == model.OpenAIResponses {
			c.history = append(c.history, raw...)
			break
		}
		c.history = append(c.history, raw)
	default:
		c.history = append(c.history, raw)
	}
	return ans, nil
}

// answer adds the results of an answer's calls to the history.
func (c *conv) answer(a *answer, results []callResult) {
	switch c.h.API {
	case model.Anthropic:
		var blocks []any
		for _, r := range results {
			b := map[string]any{"type": "tool_result", "tool_use_id": r.call.id}
			if r.isError || len(r.text) > 16 {
				// Content as text blocks, cut in two: the model reads them joined.
				var parts []any
				for _, p := range split2(r.text) {
					parts = append(parts, map[string]any{"type": "text", "text": p})
				}
				b["content"] = parts
			} else {
				b["content"] = r.text
			}
			if r.isError {
				b["is_error"] = true
			}
			blocks = append(blocks, b)
		}
		c.history = append(c.history, map[string]any{"role": "user", "content": blocks})
	case model.OpenAIResponses:
		for _, r := range results {
			c.history = append(c.history, map[string]any{"type": "function_call_output", "call_id": r.call.id, "output": r.text})
		}
	case model.OpenAIChat:
		for _, r := range results {
			c.history = append(c.history, map[string]any{"role": "tool", "tool_call_id": r.call.id, "content": r.text})
		}
	case model.Gemini:
		var parts []any
		for _, r := range results {
			resp := map[string]any{"output": r.text}
			if r.isError {
				resp = map[string]any{"error": r.text}
			}
			fr := map[string]any{"name": r.call.name, "response": resp}
			if !c.h.NoCallIDs && r.call.id != "" {
				fr["id"] = r.call.id
			}
			parts = append(parts, map[string]any{"functionResponse": fr})
		}
		c.history = append(c.history, map[string]any{"role": "user", "parts": parts})
	}
}

// split2 cuts a text in two at a rune boundary near its middle.
func split2(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	r := []rune(s)
	m := len(r) / 2
	return []string{string(r[:m]), string(r[m:])}
}

func (h *Host) post(ctx context.Context, path string, body any) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(h.BaseURL, "/")+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	switch h.API {
	case model.Anthropic:
		req.Header.Set("x-api-key", "fake")
		req.Header.Set("anthropic-version", "2023-06-01")
	case model.Gemini:
		req.Header.Set("x-goog-api-key", "fake")
	default:
		req.Header.Set("Authorization", "Bearer fake")
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("POST %s: %s: %s", path, resp.Status, strings.TrimSpace(string(msg)))
	}
	return resp, nil
}

func (h *Host) get(ctx context.Context, path string) (map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(h.BaseURL, "/")+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var m map[string]any
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return m, json.NewDecoder(resp.Body).Decode(&m)
}

// side makes the requests beside the conversation.
func (h *Host) side(ctx context.Context) error {
	models := "/v1/models"
	if h.API == model.OpenAIResponses || h.API == model.OpenAIChat {
		models = "/models"
	} else if h.API == model.Gemini {
		models = "/v1beta/models"
	}
	if _, err := h.get(ctx, models); err != nil {
		return err
	}
	switch h.API {
	case model.Anthropic:
		resp, err := h.post(ctx, "/v1/messages/count_tokens", map[string]any{"model": h.Model, "messages": []any{map[string]any{"role": "user", "content": "x"}}})
		if err != nil {
			return err
		}
		var m struct {
			InputTokens *int `json:"input_tokens"`
		}
		err = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if err != nil || m.InputTokens == nil {
			return fmt.Errorf("count_tokens: no input_tokens (%v)", err)
		}
	case model.Gemini:
		resp, err := h.post(ctx, "/v1beta/models/"+h.Model+":countTokens", map[string]any{"contents": []any{}})
		if err != nil {
			return err
		}
		resp.Body.Close()
	}
	// A title: no tools, a text answer.
	title := newConv(h)
	ans, err := title.send(ctx, false)
	if err != nil {
		return err
	}
	if len(ans.calls) > 0 || ans.text == "" {
		return fmt.Errorf("a request without tools got %d calls and the text %q", len(ans.calls), ans.text)
	}
	return nil
}

// sseEvents reads server-sent events: each with its name and its data lines joined.
func sseEvents(r io.Reader, each func(name, data string) (stop bool, err error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var name string
	var data []string
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			if len(data) > 0 {
				stop, err := each(name, strings.Join(data, "\n"))
				if err != nil || stop {
					return err
				}
			}
			name, data = "", nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(data) > 0 {
		_, err := each(name, strings.Join(data, "\n"))
		return err
	}
	return nil
}

var errNoEnd = errors.New("the stream ended without its last event")
