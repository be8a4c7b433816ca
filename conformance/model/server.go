package model

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentbash/agentbash/internal/jsonenc"
)

// API is a model API the server speaks.
type API string

// The APIs.
const (
	Anthropic       API = "anthropic"
	OpenAIResponses API = "openai-responses"
	OpenAIChat      API = "openai-chat"
	Gemini          API = "gemini"
)

// APIs lists the APIs, in the order the documentation gives them.
func APIs() []API { return []API{Anthropic, OpenAIResponses, OpenAIChat, Gemini} }

// ParseAPI returns the API named s.
func ParseAPI(s string) (API, error) {
	for _, a := range APIs() {
		if string(a) == s {
			return a, nil
		}
	}
	names := make([]string, 0, 4)
	for _, a := range APIs() {
		names = append(names, string(a))
	}
	return "", fmt.Errorf("unknown model API %q (want one of %s)", s, strings.Join(names, ", "))
}

// ErrorFlag reports whether the API carries an error flag with a tool's result (Anthropic's is_error,
// Gemini's error key); with the others a model sees only the text.
func (a API) ErrorFlag() bool { return a == Anthropic || a == Gemini }

// PathPrefix is what the API's clients expect the base URL to end with: "/v1" for the OpenAI APIs (their
// SDKs append /responses and /chat/completions), nothing for Anthropic (/v1/messages is appended) and
// Gemini (/v1beta/models/... is appended).
func (a API) PathPrefix() string {
	if a == OpenAIResponses || a == OpenAIChat {
		return "/v1"
	}
	return ""
}

// Call is a tool call the model makes.
type Call struct {
	// Name is the tool's name, as the host names it.
	Name string
	// Args are the arguments, a JSON value (an object, for the APIs whose arguments are objects).
	Args json.RawMessage
	// ID is the call's id, set by the server.
	ID string
}

// Result is a tool's result, as the host sent it back to the model.
type Result struct {
	// CallID is the id of the call it answers.
	CallID string
	// Text is what the model reads: the result's text parts joined (a Gemini response that is not a
	// plain output or error, as its JSON).
	Text string
	// IsError is the API's error flag (always false for an API without one: see API.ErrorFlag).
	IsError bool
	// Raw is the result as the host sent it (the tool_result block, the function_call_output item, the
	// tool message, the functionResponse part).
	Raw json.RawMessage
}

// Options configure a server.
type Options struct {
	// Tools are the names of the tools under test, as the host names them: a request that offers one of
	// them is a turn of the conversation. Empty: any request that offers a tool is one.
	Tools []string
	// FinalText is the text that ends the conversation (default "done").
	FinalText string
	// RecordDir, when set, receives every request and the answer it got, numbered in order.
	RecordDir string
	// OnFirstTurn, when set, is called at the first turn, before the model answers it (so before any
	// tool call): a moment to see what the host runs of its own.
	OnFirstTurn func()
}

// Server is the fake model: an HTTP server on 127.0.0.1 speaking one API.
type Server struct {
	api  API
	opts Options
	ln   net.Listener
	http *http.Server
	d    dialect

	next     chan action   // the driver's next calls, taken by the turn waiting for them
	finished chan struct{} // closed by Finish: every turn from then on gets the final text
	finish   sync.Once
	aborted  chan struct{}
	abortErr error
	abort    sync.Once
	first    chan struct{} // closed at the first turn
	firstOne sync.Once

	mu      sync.Mutex
	waiting map[string]*pending // calls sent to the host whose results have not come
	warn    []string
	seq     atomic.Int64 // request numbers, for the record
	turnLen atomic.Int64 // the size of the last turn's body: the conversation's history
	ids     atomic.Int64 // call and message numbers
	nonce   string
}

// action is one answer the driver asks for: these calls, in one response.
type action struct {
	calls []Call
	pend  []*pending
}

// pending is a call waiting for its result.
type pending struct {
	call Call
	ch   chan outcome // buffered: one outcome
}

type outcome struct {
	res Result
	err error
}

func (p *pending) settle(o outcome) {
	select {
	case p.ch <- o:
	default:
	}
}

// Start starts a server speaking api on 127.0.0.1, on a port of its own.
func Start(api API, opts Options) (*Server, error) {
	d := dialectOf(api)
	if d == nil {
		return nil, fmt.Errorf("model: unknown API %q", api)
	}
	if opts.FinalText == "" {
		opts.FinalText = "done"
	}
	if opts.RecordDir != "" {
		if err := os.MkdirAll(opts.RecordDir, 0o755); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	var nb [4]byte
	_, _ = rand.Read(nb[:])
	s := &Server{api: api, opts: opts, ln: ln, d: d, next: make(chan action), finished: make(chan struct{}),
		aborted: make(chan struct{}), first: make(chan struct{}), waiting: map[string]*pending{}, nonce: hex.EncodeToString(nb[:])}
	s.http = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = s.http.Serve(ln) }()
	return s, nil
}

// API is the API the server speaks.
func (s *Server) API() API { return s.api }

// URL is the server's root, http://127.0.0.1:PORT.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// BaseURL is the URL a host's base-URL setting takes: URL with the API's PathPrefix.
func (s *Server) BaseURL() string { return s.URL() + s.api.PathPrefix() }

// HistorySize is the size in bytes of the host's last turn request: its conversation's history, which
// every turn sends again.
func (s *Server) HistorySize() int64 { return s.turnLen.Load() }

// Started is closed when the host made its first turn request.
func (s *Server) Started() <-chan struct{} { return s.first }

// Do makes the model's next answer these calls (several: parallel tool calls in one answer), and returns
// their results as the host sent them back, in the calls' order. It fails when ctx ends first, when the
// server was aborted (Abort: the host died) or finished, or when the host's next turn did not carry a
// call's result. The calls' ids are set.
func (s *Server) Do(ctx context.Context, calls []Call) ([]Result, error) {
	act := action{calls: make([]Call, len(calls))}
	for i, c := range calls {
		if err := s.d.check(c); err != nil {
			return nil, err
		}
		c.ID = s.d.callID(s.newID())
		act.calls[i] = c
		act.pend = append(act.pend, &pending{call: c, ch: make(chan outcome, 1)})
	}
	select {
	case s.next <- act:
	case <-ctx.Done():
		return nil, fmt.Errorf("the host made no request for the model's next answer (%w)", context.Cause(ctx))
	case <-s.aborted:
		return nil, s.abortErr
	case <-s.finished:
		return nil, errors.New("model: the conversation is finished")
	}
	out := make([]Result, len(calls))
	for i, p := range act.pend {
		select {
		case o := <-p.ch:
			if o.err != nil {
				return nil, o.err
			}
			out[i] = o.res
		case <-ctx.Done():
			s.forget(act.pend)
			return nil, fmt.Errorf("the host sent no result for call %s (%s) (%w)", p.call.ID, p.call.Name, context.Cause(ctx))
		case <-s.aborted:
			s.forget(act.pend)
			return nil, s.abortErr
		}
	}
	return out, nil
}

// forget drops calls that will not be waited for.
func (s *Server) forget(ps []*pending) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range ps {
		delete(s.waiting, p.call.ID)
	}
}

// Finish ends the conversation: the turn waiting for the next answer, and every turn after it, gets the
// final text.
func (s *Server) Finish() { s.finish.Do(func() { close(s.finished) }) }

// Abort fails the Do in progress, and every later one, with err (the host died).
func (s *Server) Abort(err error) {
	s.abort.Do(func() {
		s.abortErr = err
		close(s.aborted)
	})
}

// Warnings are what the host did that the server tolerated: requests it could not read, a turn that came
// without the results of the calls in flight.
func (s *Server) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.warn)
}

func (s *Server) warnf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.warn) < 50 {
		s.warn = append(s.warn, fmt.Sprintf(format, args...))
	}
}

// Close finishes the conversation and stops the server, closing its connections.
func (s *Server) Close() error {
	s.Finish()
	return s.http.Close()
}

func (s *Server) newID() string { return fmt.Sprintf("%s%04d", s.nonce, s.ids.Add(1)) }

// endpoint is what a request asks for.
type endpoint int

const (
	epOther  endpoint = iota // anything else: an empty JSON object
	epTurn                   // a model call (a turn, if it offers the tool)
	epCount                  // token counting
	epModels                 // a model list or a model's metadata
)

// maxBody bounds a request body (a long conversation's history).
const maxBody = 256 << 20

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	n := s.seq.Add(1)
	rec := s.recorder(n, w, r)
	defer rec.done()
	w = rec
	body, err := readBody(r)
	rec.body = body
	if err != nil {
		s.warnf("request %d (%s %s): %v", n, r.Method, r.URL.Path, err)
		http.Error(w, err.Error(), http.StatusUnsupportedMediaType)
		return
	}
	switch s.d.route(r) {
	case epTurn:
		s.turn(w, r, body, n)
	case epCount:
		s.d.writeCount(w, r)
	case epModels:
		s.d.writeModels(w, r)
	default:
		writeJSON(w, map[string]any{})
	}
}

// turn answers a model call.
func (s *Server) turn(w http.ResponseWriter, r *http.Request, body []byte, n int64) {
	t, err := s.d.parse(r, body)
	if err != nil {
		s.warnf("request %d (%s %s) is not a %s request the server can read: %v", n, r.Method, r.URL.Path, s.api, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !s.offers(t.tools) {
		// Not the conversation under test (a title, a classifier, a summary): a minimal answer, an
		// instance of the schema when the request asks for JSON.
		text := "ok"
		if t.json {
			b, _ := jsonenc.Marshal(minimalInstance(t.schema))
			text = string(b)
		}
		s.write(w, r, t, nil, text, n)
		return
	}
	s.turnLen.Store(int64(len(body)))
	s.firstOne.Do(func() {
		if s.opts.OnFirstTurn != nil {
			s.opts.OnFirstTurn()
		}
		close(s.first)
	})
	s.mu.Lock()
	got := 0
	for _, res := range t.results {
		if p, ok := s.waiting[res.CallID]; ok {
			delete(s.waiting, res.CallID)
			p.settle(outcome{res: res})
			got++
		}
	}
	left := len(s.waiting)
	if got > 0 && left > 0 {
		// The turn answers some calls but not all: the others will never be answered.
		for id, p := range s.waiting {
			delete(s.waiting, id)
			p.settle(outcome{err: fmt.Errorf("the host's next request (%d) carried no result for call %s (%s); it carried the results of %d other calls", n, id, p.call.Name, got)})
		}
		left = 0
	}
	s.mu.Unlock()
	if left > 0 {
		// A turn with none of the results in flight: a retry, or a conversation beside the one under
		// test. It must not take the driver's next calls: it ends at once.
		s.warnf("request %d offered the tool but carried none of the %d results in flight (a retry, or another conversation): answered with the final text", n, left)
		s.write(w, r, t, nil, s.opts.FinalText, n)
		return
	}
	select {
	case <-s.finished:
		s.write(w, r, t, nil, s.opts.FinalText, n)
		return
	default:
	}
	select {
	case act := <-s.next:
		s.mu.Lock()
		for _, p := range act.pend {
			s.waiting[p.call.ID] = p
		}
		s.mu.Unlock()
		if err := s.write(w, r, t, act.calls, "", n); err != nil {
			for _, p := range act.pend {
				p.settle(outcome{err: fmt.Errorf("writing the model's answer to the host: %v", err)})
			}
			s.forget(act.pend)
		}
	case <-s.finished:
		s.write(w, r, t, nil, s.opts.FinalText, n)
	case <-s.aborted:
		http.Error(w, "the conversation was aborted", http.StatusServiceUnavailable)
	case <-r.Context().Done():
	}
}

// offers reports whether a request that offers these tools is a turn of the conversation under test.
func (s *Server) offers(tools []string) bool {
	if len(s.opts.Tools) == 0 {
		return len(tools) > 0
	}
	for _, t := range tools {
		if slices.Contains(s.opts.Tools, t) {
			return true
		}
	}
	return false
}

// write answers a turn with calls, or with text when there are none.
func (s *Server) write(w http.ResponseWriter, r *http.Request, t *turn, calls []Call, text string, n int64) error {
	id := s.newID()
	var err error
	if t.stream {
		sw, serr := newSSE(w)
		if serr != nil {
			return serr
		}
		err = s.d.stream(sw, t, id, calls, text)
	} else {
		err = s.d.whole(w, t, id, calls, text)
	}
	if err != nil {
		s.warnf("request %d: writing the answer: %v", n, err)
	}
	return err
}

// turn is what a model call holds that the server reads.
type turn struct {
	model   string
	stream  bool              // the answer is server-sent events
	array   bool              // the answer is a JSON array of responses (Gemini's streamGenerateContent without alt=sse)
	tools   []string          // the names of the tools offered
	builtin map[string]string // of those, the API's own tools (named by their type): name -> type
	results []Result          // every tool result in the request
	json    bool              // the answer's text must be JSON (a structured output)
	schema  any               // the JSON Schema of that text, when the request gives one
}

// dialect is one API's side of the conversation.
type dialect interface {
	route(r *http.Request) endpoint
	parse(r *http.Request, body []byte) (*turn, error)
	check(c Call) error
	callID(n string) string
	whole(w http.ResponseWriter, t *turn, id string, calls []Call, text string) error
	stream(w *sseWriter, t *turn, id string, calls []Call, text string) error
	writeCount(w http.ResponseWriter, r *http.Request)
	writeModels(w http.ResponseWriter, r *http.Request)
}

func dialectOf(api API) dialect {
	switch api {
	case Anthropic:
		return anthropicDialect{}
	case OpenAIResponses:
		return responsesDialect{}
	case OpenAIChat:
		return chatDialect{}
	case Gemini:
		return geminiDialect{}
	}
	return nil
}

// readBody reads a request's body, decoded from gzip or deflate.
func readBody(r *http.Request) ([]byte, error) {
	var rd io.Reader = http.MaxBytesReader(nil, r.Body, maxBody)
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(rd)
		if err != nil {
			return nil, fmt.Errorf("a gzip body that does not decode: %v", err)
		}
		defer zr.Close()
		rd = zr
	case "deflate":
		fr := flate.NewReader(rd)
		defer fr.Close()
		rd = fr
	default:
		return nil, fmt.Errorf("a body in the content encoding %q, which the fake model does not decode (turn request compression off in the host)", enc)
	}
	return io.ReadAll(rd)
}

func writeJSON(w http.ResponseWriter, v any) error {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	_, err = w.Write(b)
	return err
}

// sseWriter writes server-sent events, flushing each.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func newSSE(w http.ResponseWriter) (*sseWriter, error) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sseWriter{w: w, rc: http.NewResponseController(w)}, nil
}

// event writes one event: its name (none when empty) and its data, a JSON value.
func (s *sseWriter) event(name string, data any) error {
	b, err := jsonenc.Marshal(data)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if name != "" {
		fmt.Fprintf(&buf, "event: %s\n", name)
	}
	buf.WriteString("data: ")
	buf.Write(b)
	buf.WriteString("\n\n")
	return s.raw(buf.Bytes())
}

func (s *sseWriter) raw(b []byte) error {
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}

// recorder keeps a copy of a request and of its answer, for Options.RecordDir.
type recorder struct {
	http.ResponseWriter
	s      *Server
	n      int64
	r      *http.Request
	body   []byte
	status int
	out    bytes.Buffer
}

func (s *Server) recorder(n int64, w http.ResponseWriter, r *http.Request) *recorder {
	return &recorder{ResponseWriter: w, s: s, n: n, r: r}
}

func (rc *recorder) WriteHeader(code int) {
	if rc.status == 0 {
		rc.status = code
	}
	rc.ResponseWriter.WriteHeader(code)
}

func (rc *recorder) Write(b []byte) (int, error) {
	if rc.status == 0 {
		rc.status = http.StatusOK
	}
	if rc.s.opts.RecordDir != "" {
		rc.out.Write(b)
	}
	return rc.ResponseWriter.Write(b)
}

func (rc *recorder) Unwrap() http.ResponseWriter { return rc.ResponseWriter }

// secretHeaders are not written to the record.
var secretHeaders = []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "Api-Key", "Cookie"}

func (rc *recorder) done() {
	dir := rc.s.opts.RecordDir
	if dir == "" {
		return
	}
	hdr := map[string]string{}
	for k, v := range rc.r.Header {
		if slices.Contains(secretHeaders, http.CanonicalHeaderKey(k)) {
			v = []string{"(not recorded)"}
		}
		hdr[k] = strings.Join(v, ", ")
	}
	var body any = string(rc.body)
	if len(rc.body) == 0 {
		body = nil
	} else if json.Valid(rc.body) {
		body = json.RawMessage(rc.body)
	}
	meta := map[string]any{"method": rc.r.Method, "path": rc.r.URL.Path, "query": rc.r.URL.RawQuery, "headers": hdr,
		"status": rc.status, "body": body}
	b, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return
	}
	name := fmt.Sprintf("%04d-%s", rc.n, strings.Trim(strings.NewReplacer("/", "_", ":", "_").Replace(rc.r.URL.Path), "_"))
	_ = os.WriteFile(filepath.Join(dir, name+".request.json"), b, 0o644)
	_ = os.WriteFile(filepath.Join(dir, name+".answer"), rc.out.Bytes(), 0o644)
}

// minimalInstance is a small value that a JSON Schema (as structured-output requests give it, in any
// case of type names) accepts: an object with every property, the first of an enum, a string "ok", the
// minimum of a number (or 1), an empty array (or minItems items).
func minimalInstance(schema any) any {
	m, _ := schema.(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if c, ok := m["const"]; ok {
		return c
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			return minimalInstance(alts[0])
		}
	}
	typ, _ := m["type"].(string)
	if ts, ok := m["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch strings.ToLower(typ) {
	case "string":
		return "ok"
	case "integer", "number":
		if v, ok := m["minimum"].(float64); ok {
			return v
		}
		return 1
	case "boolean":
		return false
	case "null":
		return nil
	case "array":
		n, _ := m["minItems"].(float64)
		out := []any{}
		for range int(n) {
			out = append(out, minimalInstance(m["items"]))
		}
		return out
	}
	out := map[string]any{}
	props, _ := m["properties"].(map[string]any)
	for k, p := range props {
		out[k] = minimalInstance(p)
	}
	return out
}
