package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/serve"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// The test binary doubles as the targets under test: started as `<test binary> conformance-fake MODE
// VARIANT`, it serves VARIANT (an id, or a spec file) in one of these modes:
//
//	wire      serve.ServeWire on a pool, as `agentbash serve -transport wire` does
//	mcp       the MCP server over stdio, as `agentbash serve` does (in its working directory)
//	nopolicy  wire, on the spec with its policy checks removed (runs what it is sent)
//	marker    wire, with "[output truncated]" written "[truncated]" in every answer
//	exitcode  wire, with the exit code 3 reported as 1
//	hang      wire, but never answers a request whose command is "echo hello"
//	crash     wire, but dies (exit status 2, a panic message on stderr) on a command with "oops"
//	garbage   wire, but answers "echo hello" with a line that is not JSON, and never with an answer
//	dead      exits at once with status 3
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == "conformance-fake" {
		os.Exit(fake(os.Args[2], os.Args[3]))
	}
	os.Exit(m.Run())
}

// fakeTarget is the wire target of a fake mode.
func fakeTarget(mode, variant string) *WireTarget {
	return Wire(os.Args[0], "conformance-fake", mode, variant)
}

func loadAny(name string) (*spec.Variant, error) {
	if strings.HasSuffix(name, ".yaml") {
		return spec.Load(name)
	}
	return variants.Spec(name)
}

// syncWriter makes each Write whole among concurrent writers.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// commandOf reads the command parameter of a request.
func commandOf(params json.RawMessage) string {
	var p struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Command
}

func fake(mode, name string) int {
	v, err := loadAny(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		return 1
	}
	ctx := context.Background()
	switch mode {
	case "mcp":
		wd, _ := os.Getwd()
		eng, err := runtime.New(v, runtime.WithWorkspace(wd))
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake:", err)
			return 1
		}
		defer eng.Close()
		if err := serve.NewMCP(v, eng, nil).ServeStdio(ctx, os.Stdin, os.Stdout, 0); err != nil {
			fmt.Fprintln(os.Stderr, "fake:", err)
			return 1
		}
		return 0
	case "dead":
		fmt.Fprintln(os.Stderr, "fake: cannot start: no configuration")
		return 3
	case "nopolicy":
		cp := *v
		cp.Tools = append([]spec.Tool(nil), v.Tools...)
		for i := range cp.Tools {
			var checks []spec.Check
			for _, ch := range cp.Tools[i].Checks {
				if ch.Policy == "" {
					checks = append(checks, ch)
				}
			}
			cp.Tools[i].Checks = checks
		}
		v = &cp
	}
	out := &syncWriter{w: os.Stdout}
	pool := serve.NewPool(v, serve.PoolOptions{})
	defer pool.Close()
	backend := serve.BackendFunc(func(ctx context.Context, ws, tool string, params json.RawMessage) (json.RawMessage, error) {
		cmd := commandOf(params)
		switch {
		case mode == "hang" && cmd == "echo hello":
			<-ctx.Done() // the suite must kill us
			return nil, ctx.Err()
		case mode == "crash" && strings.Contains(cmd, "oops"):
			fmt.Fprintln(os.Stderr, "panic: simulated crash")
			os.Exit(2)
		case mode == "garbage" && cmd == "echo hello":
			fmt.Fprintln(out, "hello from a target that forgot the protocol")
			<-ctx.Done()
			return nil, ctx.Err()
		}
		res, err := pool.Call(ctx, ws, tool, params)
		switch mode {
		case "marker":
			res = json.RawMessage(strings.ReplaceAll(string(res), "[output truncated]", "[truncated]"))
		case "exitcode":
			res = json.RawMessage(strings.ReplaceAll(string(res), `"exit_code":3`, `"exit_code":1`))
		}
		return res, err
	})
	if err := serve.ServeWire(ctx, backend, os.Stdin, out, nil); err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		return 1
	}
	return 0
}

// statusOf indexes a report's results by case name.
func statusOf(r *Report) map[string]Result {
	m := map[string]Result{}
	for _, res := range r.Results {
		m[res.Case] = res
	}
	return m
}

func mustVariant(t *testing.T, name string) *spec.Variant {
	t.Helper()
	v, err := loadAny(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
