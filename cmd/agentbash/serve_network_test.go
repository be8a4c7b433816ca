package main

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
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime/serve"
)

// Flags that do not fit the transport, or each other, are usage errors; so is a bad token or permissions
// file. Beyond the loopback interface without a token the server refuses to start, and says what to do.
func TestServeNetworkFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	spaced := filepath.Join(dir, "spaced")
	badPerms := filepath.Join(dir, "perms.json")
	for f, content := range map[string]string{empty: "\n", spaced: "two words\n", badPerms: `{"ask":["Bash(rm:*)"],"asks":[]}`} {
		if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-token-file", empty}, 2, "-token-file is for the http and sse transports, not stdio"},
		{[]string{"-transport", "wire", "-tls-cert", "c.pem"}, 2, "-tls-cert is for the http and sse transports, not wire"},
		{[]string{"-transport", "http", "-max-engines", "3"}, 2, "-max-engines is for the wire transport, not http"},
		{[]string{"-transport", "sse", "-session-idle", "1m"}, 2, "-session-idle is for the http transport"},
		{[]string{"-transport", "http", "-tls-cert", "c.pem"}, 2, "-tls-cert and -tls-key go together"},
		{[]string{"-transport", "http", "-max-sessions", "0"}, 2, "-max-sessions 0: it must be positive"},
		{[]string{"-transport", "http", "-token-file", empty}, 1, "the file is empty"},
		{[]string{"-transport", "http", "-token-file", spaced}, 1, "the token has white space in it"},
		{[]string{"-transport", "http", "-token-file", filepath.Join(dir, "missing")}, 1, "-token-file: open"},
		{[]string{"-permissions", badPerms}, 1, `unknown field "asks"`},
		{[]string{"-transport", "http", "-addr", "0.0.0.0:0"}, 1, "-insecure-no-token to serve it to anyone"},
	} {
		var o, e bytes.Buffer
		code := Main(append([]string{"serve", "rye"}, tc.args...), &o, &e)
		if code != tc.code || !strings.Contains(e.String(), tc.msg) {
			t.Errorf("serve rye %s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, e.String(), tc.code, tc.msg)
		}
	}
}

// bearerRT adds a bearer token to every request.
type bearerRT struct {
	token string
	base  http.RoundTripper
}

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// connectHTTP connects the go-sdk client to a streamable HTTP URL.
func connectHTTP(t *testing.T, url string, hc *http.Client, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, opts).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// `serve -transport http` with a token (from -token-file, or $AGENTBASH_TOKEN) over TLS: without the token
// or with another a client gets 401; with it the calls work, and -audit FILE has a JSON line for each.
func TestServeTokenTLSAudit(t *testing.T) {
	t.Parallel()
	const token = "cli-test-token-0123456789"
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, pool := writeTestCert(t, dir)
	for _, tc := range []struct {
		name string
		args []string
		env  bool
	}{
		{name: "token file, TLS", args: []string{"-token-file", tokenFile, "-tls-cert", certFile, "-tls-key", keyFile}},
		{name: "environment", env: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			audit := filepath.Join(t.TempDir(), "audit.jsonl")
			args := append([]string{"-audit", audit}, tc.args...)
			var url string
			if tc.env {
				url = startHTTPEnv(t, "rye", t.TempDir(), newMarker(t), serve.TokenEnv+"="+token, args...)
			} else {
				url, _ = startHTTP(t, "rye", serve.HTTP, t.TempDir(), newMarker(t), args...)
			}
			base := http.DefaultTransport.(*http.Transport).Clone()
			if strings.HasPrefix(url, "https://") {
				base.TLSClientConfig = &tls.Config{RootCAs: pool}
			} else if !tc.env {
				t.Fatalf("not HTTPS: %s", url)
			}
			for _, bad := range []string{"", "not-" + token} {
				hc := &http.Client{Transport: base}
				if bad != "" {
					hc.Transport = bearerRT{bad, base}
				}
				if _, err := connectHTTP(t, url, hc, nil); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
					t.Errorf("token %q: %v", bad, err)
				}
			}
			cs, err := connectHTTP(t, url, &http.Client{Transport: bearerRT{token, base}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []string{"echo hi", "exit 7"} {
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": c}}); err != nil {
					t.Fatal(err)
				}
			}
			b, err := os.ReadFile(audit)
			if err != nil {
				t.Fatal(err)
			}
			var codes []int
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				var r serve.AuditRecord
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatalf("%v: %s", err, sc.Bytes())
				}
				if r.Transport != serve.HTTP || r.Session != cs.ID() || r.Tool != "bash" || r.ExitCode == nil {
					t.Errorf("audit line: %s", sc.Bytes())
					continue
				}
				codes = append(codes, *r.ExitCode)
			}
			if fmt.Sprint(codes) != "[0 7]" {
				t.Errorf("audit exit codes %v, want [0 7]:\n%s", codes, b)
			}
			if st, err := os.Stat(audit); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("the audit file's mode: %v %v", st.Mode(), err)
			}
		})
	}
}

// startHTTPEnv is startHTTP with one more environment entry.
func startHTTPEnv(t *testing.T, id, ws, marker, env string, extra ...string) string {
	t.Helper()
	cmd := agentbashCmd(marker, append([]string{"serve", id, "-transport", serve.HTTP, "-addr", "127.0.0.1:0", "-workspace", ws}, extra...)...)
	cmd.Env = append(cmd.Env, env)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), " on http"); i >= 0 {
				urls <- sc.Text()[i+4:]
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not say where it listens")
	}
	return ""
}

// writeTestCert writes a self-signed certificate for 127.0.0.1 and its key, and returns a pool trusting it.
func writeTestCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "agentbash cli test"},
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

// -permissions gives agentrail's permission policy an ask rule: a client that accepts (MCP elicitation)
// runs the command, one without elicitation gets the policy's denial.
func TestServeApprovalPermissions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	perms := filepath.Join(dir, "perms.json")
	if err := os.WriteFile(perms, []byte(`{"ask": ["Bash(touch:*)"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	url, _ := startHTTP(t, "agentrail", serve.HTTP, ws, newMarker(t), "-permissions", perms)
	accept := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept"}, nil
	}}
	for _, tc := range []struct {
		file string
		opts *mcp.ClientOptions
		runs bool
	}{{"asked-and-accepted", accept, true}, {"cannot-ask", nil, false}} {
		cs, err := connectHTTP(t, url, nil, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "touch " + tc.file}})
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(filepath.Join(ws, tc.file))
		if (statErr == nil) != tc.runs || !tc.runs && text(res) != `Permission denied for tool "Bash"` {
			t.Errorf("%s: ran %t, answer %q", tc.file, statErr == nil, text(res))
		}
	}
}

// Twenty thousand initializes without a DELETE (the probe): sessions past -max-sessions are
// refused, idle ones expire, and the server's memory stays bounded (peak RSS under 96 MiB). Not under the
// race detector, which multiplies memory.
func TestServeHTTPSessionGrowth(t *testing.T) {
	if raceEnabled {
		t.Skip("memory is not representative under the race detector: run without -race")
	}
	if testing.Short() {
		t.Skip("sends 20,000 requests")
	}
	url, cmd := startHTTP(t, "rye", serve.HTTP, t.TempDir(), newMarker(t), "-session-idle", "1s", "-max-sessions", "256")
	const n, workers = 20000, 8
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`
	var ok, refused, other atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= n {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				res, err := hc.Do(req)
				if err != nil {
					other.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				switch res.StatusCode {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusServiceUnavailable:
					refused.Add(1)
				default:
					other.Add(1)
				}
			}
		})
	}
	wg.Wait()
	// The idle sessions expire (-session-idle 1s): a new one is made again.
	made := proctest.Poll(20*time.Second, func() bool {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := hc.Do(req)
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	if !made {
		t.Error("no new session once the idle ones should have expired")
	}
	hwm := procStatusKiB(t, cmd.Process.Pid, "VmHWM:")
	t.Logf("%d initializes: %d sessions made, %d refused past the limit, %d other; peak RSS %d KiB", n, ok.Load(), refused.Load(), other.Load(), hwm)
	if other.Load() != 0 || ok.Load() < 256 || refused.Load() == 0 || ok.Load()+refused.Load() != n {
		t.Errorf("answers: %d made, %d refused, %d other", ok.Load(), refused.Load(), other.Load())
	}
	if hwm == 0 || hwm > 96<<10 {
		t.Errorf("peak RSS %d KiB, want under 96 MiB", hwm)
	}
}

// procStatusKiB reads a field of /proc/PID/status in KiB.
func procStatusKiB(t *testing.T, pid int, field string) int {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}
