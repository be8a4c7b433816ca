package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// readAnthropic reads a Messages answer: a message, or its events.
func readAnthropic(resp *http.Response, stream bool) (*answer, error) {
	type block struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Text  string          `json:"text"`
		Input json.RawMessage `json:"input"`
	}
	var blocks []block
	stop := ""
	if !stream {
		var m struct {
			Type       string  `json:"type"`
			Content    []block `json:"content"`
			StopReason string  `json:"stop_reason"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			return nil, err
		}
		if m.Type != "message" {
			return nil, fmt.Errorf("a message of type %q", m.Type)
		}
		blocks, stop = m.Content, m.StopReason
	} else {
		partial := map[int]*strings.Builder{}
		ended := false
		err := sseEvents(resp.Body, func(name, data string) (bool, error) {
			var ev struct {
				Type         string `json:"type"`
				Index        int    `json:"index"`
				ContentBlock block  `json:"content_block"`
				Delta        struct {
					Type        string `json:"type"`
					Text        string `json:"text"`
					PartialJSON string `json:"partial_json"`
					StopReason  string `json:"stop_reason"`
				} `json:"delta"`
			}
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				return false, fmt.Errorf("event %s: %v", name, err)
			}
			if ev.Type != name {
				return false, fmt.Errorf("event %s has the type %s", name, ev.Type)
			}
			switch ev.Type {
			case "content_block_start":
				if ev.Index != len(blocks) {
					return false, fmt.Errorf("block %d started after %d blocks", ev.Index, len(blocks))
				}
				blocks = append(blocks, ev.ContentBlock)
				partial[ev.Index] = &strings.Builder{}
			case "content_block_delta":
				if ev.Index >= len(blocks) {
					return false, fmt.Errorf("a delta of block %d, not started", ev.Index)
				}
				switch ev.Delta.Type {
				case "text_delta":
					blocks[ev.Index].Text += ev.Delta.Text
				case "input_json_delta":
					partial[ev.Index].WriteString(ev.Delta.PartialJSON)
				}
			case "content_block_stop":
				if blocks[ev.Index].Type == "tool_use" {
					blocks[ev.Index].Input = json.RawMessage(partial[ev.Index].String())
				}
			case "message_delta":
				stop = ev.Delta.StopReason
			case "message_stop":
				ended = true
				return true, nil
			}
			return false, nil
		})
		if err != nil {
			return nil, err
		}
		if !ended {
			return nil, errNoEnd
		}
	}
	a := &answer{}
	var content []any
	for _, b := range blocks {
		switch b.Type {
		case "text":
			a.text += b.Text
			content = append(content, map[string]any{"type": "text", "text": b.Text})
		case "tool_use":
			if !json.Valid(b.Input) {
				return nil, fmt.Errorf("tool_use %s: input %q is not JSON", b.ID, b.Input)
			}
			a.calls = append(a.calls, call{id: b.ID, name: b.Name, args: b.Input})
			content = append(content, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": b.Input})
		}
	}
	if (len(a.calls) > 0) != (stop == "tool_use") {
		return nil, fmt.Errorf("stop_reason %q with %d tool calls", stop, len(a.calls))
	}
	a.raw = map[string]any{"role": "assistant", "content": content}
	return a, nil
}

// responsesItem is an output item of the Responses API, as far as the host reads it.
type responsesItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// readResponses reads a Responses answer: a response, or its events up to response.completed.
func readResponses(resp *http.Response, stream bool) (*answer, error) {
	var items []json.RawMessage
	if !stream {
		var r struct {
			Status string            `json:"status"`
			Output []json.RawMessage `json:"output"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			return nil, err
		}
		if r.Status != "completed" {
			return nil, fmt.Errorf("a response of status %q", r.Status)
		}
		items = r.Output
	} else {
		done := map[int]json.RawMessage{}
		args := map[int]*strings.Builder{}
		completed := false
		var final []json.RawMessage
		err := sseEvents(resp.Body, func(name, data string) (bool, error) {
			var ev struct {
				Type        string          `json:"type"`
				OutputIndex int             `json:"output_index"`
				Item        json.RawMessage `json:"item"`
				Delta       string          `json:"delta"`
				Response    struct {
					Output []json.RawMessage `json:"output"`
				} `json:"response"`
			}
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				return false, fmt.Errorf("event %s: %v", name, err)
			}
			switch ev.Type {
			case "response.function_call_arguments.delta":
				if args[ev.OutputIndex] == nil {
					args[ev.OutputIndex] = &strings.Builder{}
				}
				args[ev.OutputIndex].WriteString(ev.Delta)
			case "response.output_item.done":
				done[ev.OutputIndex] = ev.Item
			case "response.completed":
				completed = true
				final = ev.Response.Output
				return true, nil
			}
			return false, nil
		})
		if err != nil {
			return nil, err
		}
		if !completed {
			return nil, errNoEnd
		}
		idx := make([]int, 0, len(done))
		for i := range done {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			var it responsesItem
			_ = json.Unmarshal(done[i], &it)
			if b := args[i]; b != nil && it.Type == "function_call" && b.String() != it.Arguments {
				return nil, fmt.Errorf("the argument deltas of item %d make %q, the item says %q", i, b.String(), it.Arguments)
			}
			items = append(items, done[i])
		}
		if len(final) != len(items) {
			return nil, fmt.Errorf("response.completed has %d output items, the stream %d", len(final), len(items))
		}
	}
	a := &answer{}
	var raw []any
	for _, b := range items {
		var it responsesItem
		if err := json.Unmarshal(b, &it); err != nil {
			return nil, err
		}
		switch it.Type {
		case "function_call":
			if !json.Valid([]byte(it.Arguments)) {
				return nil, fmt.Errorf("function_call %s: arguments %q are not JSON", it.CallID, it.Arguments)
			}
			a.calls = append(a.calls, call{id: it.CallID, name: it.Name, args: json.RawMessage(it.Arguments)})
		case "message":
			for _, c := range it.Content {
				if c.Type == "output_text" {
					a.text += c.Text
				}
			}
		}
		raw = append(raw, json.RawMessage(b))
	}
	a.raw = raw
	return a, nil
}

// readChat reads a Chat Completions answer: a completion, or its chunks up to [DONE].
func readChat(resp *http.Response, stream bool) (*answer, error) {
	type toolCall struct {
		Index    int    `json:"index"`
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	var text string
	var tcs []toolCall
	finish := ""
	if !stream {
		var c struct {
			Choices []struct {
				Message struct {
					Content   *string    `json:"content"`
					ToolCalls []toolCall `json:"tool_calls"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
			return nil, err
		}
		if len(c.Choices) != 1 {
			return nil, fmt.Errorf("%d choices", len(c.Choices))
		}
		if c.Choices[0].Message.Content != nil {
			text = *c.Choices[0].Message.Content
		}
		tcs, finish = c.Choices[0].Message.ToolCalls, c.Choices[0].FinishReason
	} else {
		byIndex := map[int]*toolCall{}
		doneSeen := false
		err := sseEvents(resp.Body, func(_, data string) (bool, error) {
			if data == "[DONE]" {
				doneSeen = true
				return true, nil
			}
			var ch struct {
				Choices []struct {
					Delta struct {
						Content   *string    `json:"content"`
						ToolCalls []toolCall `json:"tool_calls"`
					} `json:"delta"`
					FinishReason *string `json:"finish_reason"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(data), &ch); err != nil {
				return false, err
			}
			for _, c := range ch.Choices {
				if c.Delta.Content != nil {
					text += *c.Delta.Content
				}
				for _, d := range c.Delta.ToolCalls {
					tc := byIndex[d.Index]
					if tc == nil {
						tc = &toolCall{Index: d.Index}
						byIndex[d.Index] = tc
					}
					if d.ID != "" {
						tc.ID = d.ID
					}
					if d.Function.Name != "" {
						tc.Function.Name = d.Function.Name
					}
					tc.Function.Arguments += d.Function.Arguments
				}
				if c.FinishReason != nil {
					finish = *c.FinishReason
				}
			}
			return false, nil
		})
		if err != nil {
			return nil, err
		}
		if !doneSeen {
			return nil, errNoEnd
		}
		for i := 0; i < len(byIndex); i++ {
			tc := byIndex[i]
			if tc == nil {
				return nil, fmt.Errorf("tool call index %d missing", i)
			}
			tcs = append(tcs, *tc)
		}
	}
	if (len(tcs) > 0) != (finish == "tool_calls") {
		return nil, fmt.Errorf("finish_reason %q with %d tool calls", finish, len(tcs))
	}
	a := &answer{text: text}
	var raws []any
	for _, tc := range tcs {
		if !json.Valid([]byte(tc.Function.Arguments)) {
			return nil, fmt.Errorf("tool call %s: arguments %q are not JSON", tc.ID, tc.Function.Arguments)
		}
		a.calls = append(a.calls, call{id: tc.ID, name: tc.Function.Name, args: json.RawMessage(tc.Function.Arguments)})
		raws = append(raws, map[string]any{"id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Function.Name, "arguments": tc.Function.Arguments}})
	}
	msg := map[string]any{"role": "assistant", "content": text}
	if len(raws) > 0 {
		msg["content"] = nil
		msg["tool_calls"] = raws
	}
	a.raw = msg
	return a, nil
}

// readGemini reads a Gemini answer: a response, a JSON array of them, or their SSE events.
func readGemini(resp *http.Response, sse, array bool) (*answer, error) {
	type response struct {
		Candidates []struct {
			Content struct {
				Parts []json.RawMessage `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	var rs []response
	switch {
	case sse:
		err := sseEvents(resp.Body, func(_, data string) (bool, error) {
			var r response
			if err := json.Unmarshal([]byte(data), &r); err != nil {
				return false, err
			}
			rs = append(rs, r)
			return false, nil
		})
		if err != nil {
			return nil, err
		}
	case array:
		if err := json.NewDecoder(resp.Body).Decode(&rs); err != nil {
			return nil, err
		}
	default:
		var r response
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	a := &answer{}
	var parts []any
	for _, r := range rs {
		if len(r.Candidates) == 0 {
			return nil, fmt.Errorf("a response without candidates")
		}
		for _, p := range r.Candidates[0].Content.Parts {
			var part struct {
				Text         *string `json:"text"`
				FunctionCall *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			}
			if err := json.Unmarshal(p, &part); err != nil {
				return nil, err
			}
			if part.Text != nil {
				a.text += *part.Text
			}
			if fc := part.FunctionCall; fc != nil {
				a.calls = append(a.calls, call{id: fc.ID, name: fc.Name, args: fc.Args})
			}
			parts = append(parts, p)
		}
	}
	a.raw = map[string]any{"role": "model", "parts": parts}
	return a, nil
}
