package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/policy"
)

// syncBuffer is a bytes.Buffer safe for concurrent writes and reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runServer runs Run with c (on a free loopback port unless c.Addr says otherwise) and returns the URL it
// serves; the server is stopped, and Run's return checked, at the test's end.
func runServer(t *testing.T, c Config) string {
	t.Helper()
	if c.Addr == "" {
		c.Addr = "127.0.0.1:0"
	}
	if c.Workspace == "" {
		c.Workspace = t.TempDir()
	}
	urls := make(chan string, 1)
	c.Listening = func(u string) { urls <- u }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, c) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("Run did not return")
		}
	})
	select {
	case u := <-urls:
		return u
	case err := <-done:
		t.Fatalf("Run = %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not listen")
	}
	return ""
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// client connects the go-sdk client to url over streamable HTTP.
func client(t *testing.T, url string, hc *http.Client, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// initialize sends an initialize request with curl's bare means and returns the response.
func initialize(t *testing.T, url, token string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// Sessions are bounded (a new one past the limit is refused with 503 and says why) and the idle ones are
// closed, so that initializes without DELETE do not pile up: the SDK's sessions go too.
func TestHTTPSessionsBoundedAndExpire(t *testing.T) {
	const max = 5
	v := mustSpec(t, "rye")
	eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	m := NewMCP(v, eng, &MCPOptions{SessionIdle: 300 * time.Millisecond, MaxSessions: max})
	defer m.Close()
	srv := httpServer(t, m.HTTPHandler())
	sdkSessions := func() int {
		n := 0
		for range m.Server().Sessions() {
			n++
		}
		return n
	}
	for round := range 3 {
		for i := range max + 3 {
			res := initialize(t, srv, "")
			switch {
			case i < max && res.StatusCode != http.StatusOK:
				t.Fatalf("round %d, initialize %d: %s", round, i, res.Status)
			case i >= max && res.StatusCode != http.StatusServiceUnavailable:
				t.Fatalf("round %d, initialize %d past the limit: %s", round, i, res.Status)
			}
		}
		if n, sdk := m.Sessions(), sdkSessions(); n != max || sdk != max {
			t.Errorf("round %d: %d sessions counted, %d in the SDK; want %d", round, n, sdk, max)
		}
		if !proctest.Poll(10*time.Second, func() bool { return m.Sessions() == 0 && sdkSessions() == 0 }) {
			t.Fatalf("round %d: idle sessions not closed: %d counted, %d in the SDK", round, m.Sessions(), sdkSessions())
		}
	}
	// The refusal says why.
	for range max {
		initialize(t, srv, "")
	}
	req, _ := http.NewRequest(http.MethodPost, srv, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(msg), "too many MCP sessions: 5 are open") {
		t.Errorf("past the limit: %s %s", res.Status, msg)
	}
}

// A session in use is not idle: a client whose event stream is open keeps its session past the idle
// time, and its calls work.
func TestHTTPSessionInUseStays(t *testing.T) {
	v := mustSpec(t, "rye")
	eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	m := NewMCP(v, eng, &MCPOptions{SessionIdle: 100 * time.Millisecond})
	defer m.Close()
	srv := httpServer(t, m.HTTPHandler())
	cs, err := client(t, srv, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Several idle periods pass (the sweep runs every 25 ms): the open stream holds the session.
	deadline := time.Now().Add(600 * time.Millisecond)
	for time.Now().Before(deadline) {
		if m.Sessions() != 1 {
			t.Fatalf("%d sessions: the session in use was closed", m.Sessions())
		}
		time.Sleep(20 * time.Millisecond)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo still"}})
	if err != nil || !strings.Contains(textOf(res), "still") {
		t.Fatalf("a call after the idle time: %v %v", res, err)
	}
}

// httpServer serves h on a loopback port through Run's server (Protect with defaults) and returns its URL.
func httpServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := newHTTPServer(Protect(h, HTTPOptions{}), HTTPOptions{}, nil)
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String()
}

// A request body sent a byte a second is cut off at the read timeout: answered 408, the connection closed.
func TestHTTPSlowBody(t *testing.T) {
	url := runServer(t, Config{Variant: mustSpec(t, "rye"), Transport: HTTP, HTTP: HTTPOptions{ReadTimeout: 500 * time.Millisecond}})
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{", addr)
	closed := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(conn) // until the server closes the connection
		closed <- string(b)
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for sent := 0; ; sent++ {
		select {
		case got := <-closed:
			if !strings.HasPrefix(got, "HTTP/1.1 408") {
				t.Errorf("the server answered %q", got)
			}
			return
		case <-tick.C:
			if sent > 300 { // 30 s of a byte every 100 ms: never cut off
				t.Fatal("a body sent a byte at a time was never cut off")
			}
			_, _ = conn.Write([]byte(" "))
		}
	}
}

// Bearer tokens: without one, or with another, a request is answered 401; the go-sdk client with it
// works; TLS serves the same with a certificate generated here.
func TestHTTPToken(t *testing.T) {
	const token = "s3cret-token-for-the-test"
	dir := t.TempDir()
	certFile, keyFile, pool := testCert(t, dir)
	for _, tc := range []struct {
		name string
		tls  bool
	}{{"http", false}, {"https", true}} {
		t.Run(tc.name, func(t *testing.T) {
			o := HTTPOptions{Token: token}
			base := http.DefaultTransport.(*http.Transport).Clone()
			if tc.tls {
				o.TLSCert, o.TLSKey = certFile, keyFile
				base.TLSClientConfig = &tls.Config{RootCAs: pool}
			}
			var log syncBuffer
			url := runServer(t, Config{Variant: mustSpec(t, "rye"), Transport: HTTP, HTTP: o, Log: &log})
			// A probe that connects and leaves (a port scan, a readiness check) is not worth a log line.
			if conn, err := net.Dial("tcp", strings.TrimSuffix(url[strings.Index(url, "//")+2:], "/mcp")); err == nil {
				conn.Close()
			}
			if want := map[bool]string{false: "http://", true: "https://"}[tc.tls]; !strings.HasPrefix(url, want) {
				t.Fatalf("the URL %s is not %s", url, want)
			}
			for _, bad := range []string{"", "wrong-token", token + "x"} {
				hc := &http.Client{Transport: base}
				if bad != "" {
					hc.Transport = bearer{bad, base}
				}
				if _, err := client(t, url, hc, nil); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
					t.Errorf("token %q: connected (%v)", bad, err)
				}
			}
			cs, err := client(t, url, &http.Client{Transport: bearer{token, base}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo hi"}})
			if err != nil || !strings.Contains(textOf(res), `"stdout":"hi\n"`) {
				t.Errorf("a call with the token: %v %v", res, err)
			}
			if strings.Contains(log.String(), "handshake") {
				t.Errorf("the log: %s", log.String())
			}
		})
	}
}

// testCert writes a self-signed certificate for 127.0.0.1 and its key, and returns a pool that trusts it.
func testCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "agentbash test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// Beyond the loopback interface Run needs a token, unless told to do without one: then it warns.
func TestHTTPNonLoopback(t *testing.T) {
	v := mustSpec(t, "rye")
	err := Run(context.Background(), Config{Variant: v, Transport: HTTP, Addr: "0.0.0.0:0", Workspace: t.TempDir()})
	if !errors.Is(err, ErrNoToken) {
		t.Errorf("no token on 0.0.0.0: %v", err)
	}
	for _, tc := range []struct {
		o    HTTPOptions
		warn string
	}{
		{HTTPOptions{AllowNoToken: true}, "needs no token: anyone who reaches it can run commands"},
		{HTTPOptions{Token: "t"}, "without TLS: the token and every command travel in clear text"},
	} {
		var log syncBuffer
		runServer(t, Config{Variant: v, Transport: HTTP, Addr: "0.0.0.0:0", HTTP: tc.o, Log: &log})
		if !strings.Contains(log.String(), "WARNING") || !strings.Contains(log.String(), tc.warn) {
			t.Errorf("%+v: the log says %q", tc.o, log.String())
		}
	}
	var log syncBuffer
	runServer(t, Config{Variant: v, Transport: HTTP, Log: &log})
	if strings.Contains(log.String(), "WARNING") {
		t.Errorf("a warning on the loopback interface: %q", log.String())
	}
}

// The audit log has one JSON line per call: where it came from, the call with the spec's redaction
// applied, its outcome, exit code, duration and size.
func TestAuditLog(t *testing.T) {
	var audit syncBuffer
	ws := t.TempDir()
	url := runServer(t, Config{Variant: mustSpec(t, "codegensandbox"), Transport: HTTP, Audit: &audit, Workspace: ws})
	cs, err := client(t, url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	secret := "ghp_" + strings.Repeat("a1", 20)
	for _, args := range []map[string]any{
		{"command": "echo " + secret + "; exit 4", "description": "d"},
		{"command": "sudo ls", "description": "d"},
		{"command": "echo fine", "description": "d"},
	} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Bash", Arguments: args}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "KillShell", Arguments: map[string]any{"shell_id": "nope"}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(audit.String(), secret) {
		t.Errorf("the secret is in the audit log:\n%s", audit.String())
	}
	var recs []AuditRecord
	sc := bufio.NewScanner(strings.NewReader(audit.String()))
	for sc.Scan() {
		var r AuditRecord
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.DisallowUnknownFields()
		if err := d.Decode(&r); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		recs = append(recs, r)
	}
	if len(recs) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(recs), audit.String())
	}
	for i, r := range recs {
		if r.Transport != HTTP || r.Session != cs.ID() || r.Client != "test/1" || !strings.HasPrefix(r.Remote, "127.0.0.1:") {
			t.Errorf("line %d: where from: %+v", i, r)
		}
		if ts, err := time.Parse(time.RFC3339Nano, r.Time); err != nil || time.Since(ts) > time.Minute || r.DurationMS <= 0 || r.Bytes <= 0 {
			t.Errorf("line %d: time %q, duration %v, bytes %d", i, r.Time, r.DurationMS, r.Bytes)
		}
	}
	want := []struct {
		tool, outcome, errType string
		exit                   int // -1: none
	}{
		{"Bash", "failure", "", 4},
		{"Bash", "error", "ToolError", -1},
		{"Bash", "success", "", 0},
		{"KillShell", "error", "ToolError", -1},
	}
	for i, w := range want {
		r := recs[i]
		code := -1
		if r.ExitCode != nil {
			code = *r.ExitCode
		}
		if r.Tool != w.tool || r.Outcome != w.outcome || r.ErrorType != w.errType || code != w.exit {
			t.Errorf("line %d: %+v, want %+v", i, r, w)
		}
	}
	if c := recs[0].Command; !strings.Contains(c, "[REDACTED") || !strings.Contains(string(recs[0].Params), "[REDACTED") {
		t.Errorf("not redacted: command %q, params %s", c, recs[0].Params)
	}
	if recs[1].Message == "" {
		t.Error("no message for a refused call")
	}
}

// A call a policy asks about is put to the client's user through elicitation: it runs on accept only; a
// decline, a cancel or a client without elicitation gets the policy's denial, as without a server.
func TestApprovalElicitation(t *testing.T) {
	v := mustSpec(t, "agentrail")
	ws := t.TempDir()
	var audit syncBuffer
	url := runServer(t, Config{Variant: v, Transport: HTTP, Workspace: ws, Audit: &audit,
		Runtime: []runtime.Option{runtime.WithPolicyOptions(policy.WithPermissions(policy.HostPermissions{Ask: []string{"Bash(touch:*)"}}))}})
	denial := `Permission denied for tool "Bash"`
	for _, tc := range []struct {
		name    string
		handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		runs    bool
	}{
		{name: "accept", runs: true, handler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if !strings.Contains(r.Params.Message, "touch accept") || !strings.Contains(r.Params.Message, "Bash(touch:*)") {
				return nil, fmt.Errorf("the user was asked %q", r.Params.Message)
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		}},
		{name: "decline", handler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}},
		{name: "cancel", handler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}},
		{name: "error", handler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("no user here")
		}},
		{name: "no elicitation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts *mcp.ClientOptions
			if tc.handler != nil {
				opts = &mcp.ClientOptions{ElicitationHandler: tc.handler}
			}
			cs, err := client(t, url, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			file := strings.ReplaceAll(tc.name, " ", "-")
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "touch " + file}})
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(filepath.Join(ws, file))
			if ran := statErr == nil; ran != tc.runs {
				t.Errorf("ran %t, want %t: %s", ran, tc.runs, textOf(res))
			}
			if !tc.runs && (!res.IsError || textOf(res) != denial || res.Meta[ErrorTypeKey] != "ToolError") {
				t.Errorf("refused with %q (%v), want the policy's denial %q", textOf(res), res.Meta, denial)
			}
		})
	}
	// The audit log says what was asked and answered.
	if strings.Count(audit.String(), `"approval":"accepted"`) != 1 || strings.Count(audit.String(), `"approval":"refused"`) != 4 {
		t.Errorf("the audit log:\n%s", audit.String())
	}
}

// A request that makes no session stops counting when its answer is written, not when its handler returns:
// the client's next request (its initialize, after server/discover) must find the room its answer freed.
func TestSessionlessAnswerFreesItsCount(t *testing.T) {
	tests := []struct {
		name      string
		sessionID string // the answer's Mcp-Session-Id ("" for none)
		want      int    // sessions counted while the handler still runs
	}{
		{"no session made", "", 0},
		{"a session made", "s-1", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			table := newSessionTable(mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil), time.Hour, 1)
			defer table.close()
			release := make(chan struct{})
			h := table.streamable(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.sessionID != "" {
					w.Header().Set(sessionIDHeader, tc.sessionID)
				}
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				<-release // the handler has answered and has not returned yet
			}))
			srv := httptest.NewServer(h)
			defer srv.Close()
			res, err := http.Post(srv.URL, "application/json", strings.NewReader(`{}`))
			if err != nil {
				close(release)
				t.Fatal(err)
			}
			got := table.Len()
			close(release)
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if got != tc.want {
				t.Errorf("%d sessions counted once the answer came, want %d", got, tc.want)
			}
		})
	}
}
