package model_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/conformance/model"
	"github.com/agentbash/agentbash/conformance/model/modeltest"
)

// mode is one way a host asks for answers.
type mode struct {
	name        string
	stream      bool
	geminiArray bool
	noIDs       bool
}

// modes lists the ways each API is spoken: streaming (SSE) and whole, and for Gemini also the JSON array
// of streamGenerateContent without alt=sse and functionResponses without ids.
func modes(api model.API) []mode {
	ms := []mode{{name: "sse", stream: true}, {name: "whole"}}
	if api == model.Gemini {
		ms = append(ms, mode{name: "array", geminiArray: true}, mode{name: "sse-no-ids", stream: true, noIDs: true})
	}
	return ms
}

// echoExec answers a call with its tool's name and arguments; arguments holding "fail" make an error.
func echoExec(_ context.Context, name string, args json.RawMessage) (string, bool) {
	return fmt.Sprintf("%s ran %s", name, args), strings.Contains(string(args), "fail")
}

// startHost runs a modeltest host against srv until its conversation ends.
func startHost(t *testing.T, srv *model.Server, m mode, h modeltest.Host) (done chan error, text *string) {
	t.Helper()
	h.API, h.BaseURL = srv.API(), srv.BaseURL()
	h.Stream, h.GeminiArray, h.NoCallIDs = m.stream, m.geminiArray, m.noIDs
	if h.Exec == nil {
		h.Exec = echoExec
	}
	if h.Tools == nil {
		h.Tools = []modeltest.Tool{{Name: "bash"}, {Name: "other"}}
	}
	done = make(chan error, 1)
	text = new(string)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		s, err := h.Run(ctx)
		*text = s
		done <- err
	}()
	return done, text
}

// A conversation in every API and mode: one call, parallel calls in one answer (results in the calls'
// order), an error (flagged where the API carries a flag), side requests answered at once, and the final
// text ending it.
func TestConversation(t *testing.T) {
	for _, api := range model.APIs() {
		for _, m := range modes(api) {
			t.Run(string(api)+"/"+m.name, func(t *testing.T) {
				t.Parallel()
				srv, err := model.Start(api, model.Options{Tools: []string{"bash"}, FinalText: "all done"})
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				done, text := startHost(t, srv, m, modeltest.Host{SideRequests: true})
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()

				steps := []struct {
					calls []model.Call
					want  []string
					err   []bool
				}{
					{calls: []model.Call{{Name: "bash", Args: json.RawMessage(`{"command":"echo hi","timeout":5}`)}},
						want: []string{`bash ran {"command":"echo hi","timeout":5}`}, err: []bool{false}},
					{calls: []model.Call{
						{Name: "bash", Args: json.RawMessage(`{"command":"a"}`)},
						{Name: "other", Args: json.RawMessage(`{"x":"é ü"}`)},
						{Name: "bash", Args: json.RawMessage(`{"command":"c"}`)},
					}, want: []string{`bash ran {"command":"a"}`, `other ran {"x":"é ü"}`, `bash ran {"command":"c"}`}, err: []bool{false, false, false}},
					{calls: []model.Call{{Name: "bash", Args: json.RawMessage(`{"command":"fail","timeout":"x"}`)}},
						want: []string{`bash ran {"command":"fail","timeout":"x"}`}, err: []bool{api.ErrorFlag()}},
				}
				ids := map[string]bool{}
				for i, st := range steps {
					res, err := srv.Do(ctx, st.calls)
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if len(res) != len(st.want) {
						t.Fatalf("step %d: %d results, want %d", i, len(res), len(st.want))
					}
					for k, r := range res {
						if r.Text != st.want[k] || r.IsError != st.err[k] {
							t.Errorf("step %d result %d: %q error %v, want %q error %v", i, k, r.Text, r.IsError, st.want[k], st.err[k])
						}
						if r.CallID == "" || ids[r.CallID] || len(r.Raw) == 0 {
							t.Errorf("step %d result %d: call id %q (seen: %v), raw %s", i, k, r.CallID, ids[r.CallID], r.Raw)
						}
						ids[r.CallID] = true
					}
				}
				srv.Finish()
				select {
				case err := <-done:
					if err != nil {
						t.Fatal(err)
					}
				case <-ctx.Done():
					t.Fatal("the host did not end after Finish")
				}
				if *text != "all done" {
					t.Errorf("final text %q", *text)
				}
				if w := srv.Warnings(); len(w) > 0 {
					t.Errorf("warnings: %q", w)
				}
			})
		}
	}
}

// What the server cannot send or does not get: arguments that are not an object (for the APIs whose
// arguments are objects), no host at all, a host that died (Abort), a conversation already finished.
func TestDoFailures(t *testing.T) {
	for _, api := range model.APIs() {
		t.Run(string(api), func(t *testing.T) {
			t.Parallel()
			srv, err := model.Start(api, model.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			_, err = srv.Do(ctx, []model.Call{{Name: "bash", Args: json.RawMessage(`[1,2]`)}})
			objects := api == model.Anthropic || api == model.Gemini
			if objects != (err != nil && strings.Contains(err.Error(), "not a JSON object")) {
				t.Errorf("array arguments: %v", err)
			}
			_, err = srv.Do(ctx, []model.Call{{Name: "bash", Args: json.RawMessage(`{}`)}})
			if err == nil || !strings.Contains(err.Error(), "made no request") || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("no host: %v", err)
			}
			died := errors.New("the host died")
			srv.Abort(died)
			if _, err := srv.Do(context.Background(), []model.Call{{Name: "bash", Args: json.RawMessage(`{}`)}}); !errors.Is(err, died) {
				t.Errorf("after Abort: %v", err)
			}
		})
	}
}

// A host that dies while the model waits for a call's result: Abort ends the Do at once.
func TestAbortWhileWaiting(t *testing.T) {
	srv, err := model.Start(model.OpenAIResponses, model.Options{Tools: []string{"bash"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	release := make(chan struct{})
	defer close(release)
	startHost(t, srv, mode{stream: true}, modeltest.Host{Exec: func(context.Context, string, json.RawMessage) (string, bool) {
		<-release // the tool hangs
		return "", false
	}})
	errc := make(chan error, 1)
	go func() {
		_, err := srv.Do(context.Background(), []model.Call{{Name: "bash", Args: json.RawMessage(`{}`)}})
		errc <- err
	}()
	<-srv.Started()
	died := errors.New("the host exited (exit status 3)")
	srv.Abort(died)
	if err := <-errc; !errors.Is(err, died) {
		t.Fatalf("got %v", err)
	}
}

// The tool results real hosts send, in each API's shapes: strings and arrays of text parts, error flags,
// Gemini responses of other keys, and a turn that carries the results of only some calls.
func TestResultShapes(t *testing.T) {
	type sent struct {
		path, body string
	}
	cases := []struct {
		api   model.API
		calls int
		// turn is the host's request after the call(s), with CALL0, CALL1 for the ids.
		turn      sent
		wantText  []string
		wantError []bool
		wantErr   string
	}{
		{api: model.Anthropic, calls: 1, turn: sent{"/v1/messages", `{"model":"m","tools":[{"name":"bash"}],"messages":[{"role":"user","content":"go"},
			{"role":"assistant","content":[{"type":"tool_use","id":"CALL0","name":"bash","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"CALL0","content":[{"type":"text","text":"Exit code 3\nout"},{"type":"image","source":{}},{"type":"text","text":"\nerr"}],"is_error":true},{"type":"text","text":"a note"}]}]}`},
			wantText: []string{"Exit code 3\nout\nerr"}, wantError: []bool{true}},
		{api: model.Anthropic, calls: 1, turn: sent{"/v1/messages", `{"model":"m","tools":[{"name":"bash"}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"CALL0"}]}]}`},
			wantText: []string{""}, wantError: []bool{false}},
		{api: model.OpenAIResponses, calls: 2, turn: sent{"/v1/responses", `{"model":"m","tools":[{"type":"function","name":"bash"}],"input":[
			{"type":"function_call_output","call_id":"CALL1","output":[{"type":"input_text","text":"two"}]},
			{"type":"function_call_output","call_id":"CALL0","output":"one"}]}`},
			wantText: []string{"one", "two"}, wantError: []bool{false, false}},
		{api: model.OpenAIChat, calls: 1, turn: sent{"/v1/chat/completions", `{"model":"m","tools":[{"type":"function","function":{"name":"bash"}}],"messages":[
			{"role":"tool","tool_call_id":"CALL0","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`},
			wantText: []string{"ab"}, wantError: []bool{false}},
		{api: model.Gemini, calls: 2, turn: sent{"/v1beta/models/m:generateContent", `{"tools":[{"functionDeclarations":[{"name":"bash"}]}],"contents":[
			{"role":"model","parts":[{"functionCall":{"id":"CALL0","name":"bash","args":{}}},{"functionCall":{"id":"CALL1","name":"bash","args":{}}}]},
			{"role":"user","parts":[{"functionResponse":{"id":"CALL0","name":"bash","response":{"error":"bad"}}},{"functionResponse":{"id":"CALL1","name":"bash","response":{"output":"x","llmContent":"y"}}}]}]}`},
			wantText: []string{"bad", `{"output":"x","llmContent":"y"}`}, wantError: []bool{true, false}},
		{api: model.OpenAIChat, calls: 2, turn: sent{"/v1/chat/completions", `{"model":"m","tools":[{"type":"function","function":{"name":"bash"}}],"messages":[
			{"role":"tool","tool_call_id":"CALL0","content":"a"}]}`},
			wantErr: "carried no result for call"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d-%s", i, c.api), func(t *testing.T) {
			t.Parallel()
			srv, err := model.Start(c.api, model.Options{Tools: []string{"bash"}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			// The first turn takes the calls; the ids are learnt from the answer.
			first := map[model.API]sent{
				model.Anthropic:       {"/v1/messages", `{"model":"m","tools":[{"name":"bash"}],"messages":[{"role":"user","content":"go"}]}`},
				model.OpenAIResponses: {"/v1/responses", `{"model":"m","tools":[{"type":"function","name":"bash"}],"input":"go"}`},
				model.OpenAIChat:      {"/v1/chat/completions", `{"model":"m","tools":[{"type":"function","function":{"name":"bash"}}],"messages":[{"role":"user","content":"go"}]}`},
				model.Gemini:          {"/v1beta/models/m:generateContent", `{"tools":[{"functionDeclarations":[{"name":"bash"}]}],"contents":[{"role":"user","parts":[{"text":"go"}]}]}`},
			}[c.api]
			type got struct {
				res []model.Result
				err error
			}
			gotc := make(chan got, 1)
			calls := make([]model.Call, c.calls)
			for k := range calls {
				calls[k] = model.Call{Name: "bash", Args: json.RawMessage(`{}`)}
			}
			go func() {
				res, err := srv.Do(context.Background(), calls)
				gotc <- got{res, err}
			}()
			answer := post(t, srv.URL()+first.path, first.body, "")
			ids := callIDs(answer)
			if len(ids) != c.calls {
				t.Fatalf("answer %s: ids %q", answer, ids)
			}
			body := c.turn.body
			for k, id := range ids {
				body = strings.ReplaceAll(body, fmt.Sprintf("CALL%d", k), id)
			}
			posted := make(chan string, 1)
			go func() { posted <- post(t, srv.URL()+c.turn.path, body, "") }()
			g := <-gotc
			// The turn that carried the results waits for the next calls: the final text ends it.
			srv.Finish()
			if a := <-posted; !strings.HasPrefix(a, "200 ") || !strings.Contains(a, "done") {
				t.Errorf("the turn with the results got %s", a)
			}
			if c.wantErr != "" {
				if g.err == nil || !strings.Contains(g.err.Error(), c.wantErr) {
					t.Fatalf("got %v, want an error with %q", g.err, c.wantErr)
				}
				return
			}
			if g.err != nil {
				t.Fatal(g.err)
			}
			for k, r := range g.res {
				if r.Text != c.wantText[k] || r.IsError != c.wantError[k] || r.CallID != ids[k] {
					t.Errorf("result %d: %q error %v id %s, want %q error %v id %s", k, r.Text, r.IsError, r.CallID, c.wantText[k], c.wantError[k], ids[k])
				}
			}
		})
	}
}

// post sends a request and returns the answer's body.
func post(t *testing.T, url, body, encoding string) string {
	t.Helper()
	var rd = bytes.NewBufferString(body)
	if encoding == "gzip" {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(body))
		zw.Close()
		rd = &b
	}
	req, _ := http.NewRequest(http.MethodPost, url, rd)
	req.Header.Set("Content-Type", "application/json")
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return ""
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, b.String())
}

// callIDs finds the call ids in an answer, in order.
func callIDs(answer string) []string {
	var ids []string
	for _, key := range []string{`"call_id":"`, `"id":"toolu_`, `"id":"call_`} {
		rest := answer
		for {
			i := strings.Index(rest, key)
			if i < 0 {
				break
			}
			rest = rest[i+len(key):]
			j := strings.IndexByte(rest, '"')
			id := rest[:j]
			switch key {
			case `"id":"toolu_`:
				id = "toolu_" + id
			case `"id":"call_`:
				id = "call_" + id
			}
			ids = append(ids, id)
		}
		if len(ids) > 0 {
			return ids
		}
	}
	return ids
}

// Requests beside the conversation, and request bodies: gzip is read, an encoding the server does not
// read is refused with a warning; a request without the tool is answered at once; the record has every
// request and answer, without the key.
func TestRequestsAndRecord(t *testing.T) {
	dir := t.TempDir()
	srv, err := model.Start(model.OpenAIChat, model.Options{Tools: []string{"bash"}, RecordDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	noTool := `{"model":"m","messages":[{"role":"user","content":"title?"}]}`
	if got := post(t, srv.URL()+"/v1/chat/completions", noTool, "gzip"); !strings.HasPrefix(got, "200 ") || !strings.Contains(got, `"content":"ok"`) {
		t.Errorf("gzip request without the tool: %s", got)
	}
	if got := post(t, srv.URL()+"/v1/chat/completions", noTool, "zstd"); !strings.HasPrefix(got, "415 ") {
		t.Errorf("zstd request: %s", got)
	}
	if got := post(t, srv.URL()+"/v1/telemetry", `{}`, ""); got != "200 {}" {
		t.Errorf("telemetry: %s", got)
	}
	if w := srv.Warnings(); len(w) != 1 || !strings.Contains(w[0], `"zstd"`) {
		t.Errorf("warnings: %q", w)
	}
	srv.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 6 {
		t.Fatalf("record: %q", files)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "0001-v1_chat_completions.request.json"))
	var rec struct {
		Body    json.RawMessage   `json:"body"`
		Headers map[string]string `json:"headers"`
	}
	if err := json.Unmarshal(b, &rec); err != nil || !strings.Contains(string(rec.Body), "title?") {
		t.Errorf("record of request 1: %s (%v)", b, err)
	}
}

// A turn that comes without the results of the calls in flight (a retry, another conversation) ends at
// once with the final text, and does not take the next calls.
func TestTurnWithoutResults(t *testing.T) {
	srv, err := model.Start(model.Anthropic, model.Options{Tools: []string{"bash"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body := `{"model":"m","tools":[{"name":"bash"}],"messages":[{"role":"user","content":"go"}]}`
	errc := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		_, err := srv.Do(ctx, []model.Call{{Name: "bash", Args: json.RawMessage(`{}`)}})
		errc <- err
	}()
	if got := post(t, srv.URL()+"/v1/messages", body, ""); !strings.Contains(got, `"tool_use"`) {
		t.Fatalf("first turn: %s", got)
	}
	if got := post(t, srv.URL()+"/v1/messages", body, ""); !strings.Contains(got, `"text":"done"`) {
		t.Fatalf("the retry: %s", got)
	}
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "sent no result") {
		t.Fatalf("Do: %v", err)
	}
	if w := srv.Warnings(); len(w) != 1 || !strings.Contains(w[0], "carried none of the 1 results") {
		t.Errorf("warnings: %q", w)
	}
}

// The Responses API's own shell tool ({"type": "shell"}, no name): a call of it is a shell_call item whose
// action is the call's parameters (whole, and streamed as output_item.added and .done without argument
// deltas), and its result is read from the shell_call_output item as the object {output,
// max_output_length} (max_output_length only when the host sent one; the envelope's type, call_id, id and
// status are left out).
func TestResponsesShellTool(t *testing.T) {
	const args = `{"commands":["echo hi","exit 3"],"timeout_ms":1000,"max_output_length":5}`
	cases := []struct {
		name, output, want string
	}{
		{"with limit", `"output":[{"stdout":"hi\n","stderr":"","outcome":{"type":"exit","exit_code":0}},{"stdout":"","stderr":"","outcome":{"type":"exit","exit_code":3}}],"max_output_length":5`,
			`{"max_output_length":5,"output":[{"stdout":"hi\n","stderr":"","outcome":{"type":"exit","exit_code":0}},{"stdout":"","stderr":"","outcome":{"type":"exit","exit_code":3}}]}`},
		{"timeout, no limit", `"output":[{"stdout":"","stderr":"","outcome":{"type":"timeout"}}],"max_output_length":null`,
			`{"output":[{"stdout":"","stderr":"","outcome":{"type":"timeout"}}]}`},
		{"empty output", `"output":[]`, `{"output":[]}`},
	}
	for _, c := range cases {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", c.name, stream), func(t *testing.T) {
				t.Parallel()
				srv, err := model.Start(model.OpenAIResponses, model.Options{Tools: []string{"shell"}})
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				type got struct {
					res []model.Result
					err error
				}
				gotc := make(chan got, 1)
				go func() {
					res, err := srv.Do(context.Background(), []model.Call{{Name: "shell", Args: json.RawMessage(args)}})
					gotc <- got{res, err}
				}()
				tools := `"tools":[{"type":"shell","environment":{"type":"local"}}]`
				answer := post(t, srv.URL()+"/v1/responses", fmt.Sprintf(`{"model":"m","stream":%v,%s,"input":"go"}`, stream, tools), "")
				item := shellCallItem(t, answer, stream)
				if item.Type != "shell_call" || !strings.HasPrefix(item.CallID, "call_") || item.Status != "completed" {
					t.Fatalf("the call item: %+v\nanswer: %s", item, answer)
				}
				if string(item.Action) != args {
					t.Errorf("action %s, want the call's parameters %s", item.Action, args)
				}
				if stream && strings.Contains(answer, "function_call_arguments") {
					t.Errorf("a shell_call streamed argument deltas:\n%s", answer)
				}
				turn := fmt.Sprintf(`{"model":"m",%s,"input":[{"type":"shell_call","call_id":%q,"action":%s},
					{"type":"shell_call_output","call_id":%q,"status":"completed",%s}]}`, tools, item.CallID, args, item.CallID, c.output)
				posted := make(chan string, 1)
				go func() { posted <- post(t, srv.URL()+"/v1/responses", turn, "") }()
				g := <-gotc
				srv.Finish()
				if a := <-posted; !strings.HasPrefix(a, "200 ") {
					t.Errorf("the turn with the result got %s", a)
				}
				if g.err != nil {
					t.Fatal(g.err)
				}
				if r := g.res[0]; r.Text != c.want || r.CallID != item.CallID || r.IsError {
					t.Errorf("result %q (id %s, error %v), want %q", r.Text, r.CallID, r.IsError, c.want)
				}
			})
		}
	}
}

// shellItem is what TestResponsesShellTool reads of a shell_call item.
type shellItem struct {
	Type   string          `json:"type"`
	CallID string          `json:"call_id"`
	Status string          `json:"status"`
	Action json.RawMessage `json:"action"`
}

// shellCallItem is the one output item of an answer: the response's, or the output_item.done event's.
func shellCallItem(t *testing.T, answer string, stream bool) shellItem {
	t.Helper()
	body, ok := strings.CutPrefix(answer, "200 ")
	if !ok {
		t.Fatalf("answer %s", answer)
	}
	if !stream {
		var r struct{ Output []shellItem }
		if err := json.Unmarshal([]byte(body), &r); err != nil || len(r.Output) != 1 {
			t.Fatalf("answer %s: %v", answer, err)
		}
		return r.Output[0]
	}
	for line := range strings.SplitSeq(body, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || !strings.Contains(data, `"response.output_item.done"`) {
			continue
		}
		var ev struct{ Item shellItem }
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		return ev.Item
	}
	t.Fatalf("no output_item.done in %s", answer)
	return shellItem{}
}
