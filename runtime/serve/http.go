package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// DefaultReadTimeout bounds how long a client of the HTTP transports takes to send a request's body (and,
// up to 10 seconds of it, its headers).
const DefaultReadTimeout = 30 * time.Second

// maxHeaderWait bounds the time to send a request's headers.
const maxHeaderWait = 10 * time.Second

// TokenEnv is the environment variable `agentbash serve` reads the bearer token of the HTTP transports from
// when no token file is given.
const TokenEnv = "AGENTBASH_TOKEN"

// HTTPOptions configure the HTTP transports' server (Run) and Protect.
type HTTPOptions struct {
	// Token is the bearer token every request must carry (Authorization: Bearer TOKEN), compared in
	// constant time; a request without it, or with another, is answered 401 Unauthorized. Empty: no
	// authentication.
	Token string
	// AllowNoToken lets Run listen beyond the loopback interface without a Token (with a warning on
	// Config.Log); without it Run refuses to (ErrNoToken).
	AllowNoToken bool
	// TLSCert and TLSKey are the PEM files of the server's certificate and key: with them the server
	// speaks HTTPS.
	TLSCert, TLSKey string
	// ReadTimeout bounds how long a client takes to send a request's body (default DefaultReadTimeout);
	// past it the request is answered 408 and its connection closed. The headers have at most 10 seconds
	// of it. An event stream the server writes (a GET) is not bounded.
	ReadTimeout time.Duration
	// SessionIdle and MaxSessions are the MCP server's (MCPOptions).
	SessionIdle time.Duration
	MaxSessions int
}

// ErrNoToken is Run's refusal to listen beyond the loopback interface without a token.
var ErrNoToken = errors.New("serve: no token for an address beyond this machine")

// Protect wraps an MCP HTTP handler (HTTPHandler, SSEHandler) for a network: with o.Token every request
// must carry it as a bearer token (go-sdk's auth.RequireBearerToken, the token compared in constant
// time), and a request body must arrive within o.ReadTimeout and be at most DefaultMaxLine bytes (413
// otherwise), so that a client sending a byte a second holds nothing for long. The body is read before
// the handler runs; what the handler streams back is not bounded in time.
func Protect(h http.Handler, o HTTPOptions) http.Handler {
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	h = readBody(h, o.ReadTimeout)
	if o.Token == "" {
		return h
	}
	want := sha256.Sum256([]byte(o.Token))
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		got := sha256.Sum256([]byte(token))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			return nil, fmt.Errorf("%w: the bearer token is not this server's", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{}, nil
	}
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

// readBody reads a request's body whole within the timeout before h runs.
func readBody(h http.Handler, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(timeout))
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, DefaultMaxLine))
		var mbe *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &mbe):
			http.Error(w, fmt.Sprintf("the request body is over the limit of %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		case errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded):
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("the request body did not arrive within %v", timeout), http.StatusRequestTimeout)
			return
		case err != nil:
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		// The connection's later reads (the server watching for the client's going away) have no deadline.
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

// newHTTPServer is the server of the HTTP transports: headers within 10 seconds (or ReadTimeout if
// shorter), idle keep-alive connections closed after two minutes; its errors go to logw, but for failed
// TLS handshakes (a port probe, a client that does not trust the certificate: the client knows).
func newHTTPServer(h http.Handler, o HTTPOptions, logw io.Writer) *http.Server {
	rt := o.ReadTimeout
	if rt <= 0 {
		rt = DefaultReadTimeout
	}
	if logw == nil {
		logw = io.Discard
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: min(maxHeaderWait, rt), IdleTimeout: 2 * time.Minute,
		ErrorLog: log.New(serverLog{logw}, "agentbash serve: ", 0)}
}

// serverLog writes the HTTP server's log lines but those of failed TLS handshakes.
type serverLog struct{ w io.Writer }

func (l serverLog) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("TLS handshake error")) {
		return len(p), nil
	}
	return l.w.Write(p)
}

// loopback reports whether a listener is reachable from this machine only.
func loopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
