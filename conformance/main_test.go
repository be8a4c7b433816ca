package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/internal/jsonenc"
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
//	late      wire, on the spec with every output limit one unit higher (a cut one byte late)
//	nomarker  wire, on the spec with every truncation marker empty
//	hangbg    wire, but a command with "&" runs through os/exec, which waits for the background child
//	leave     wire, but each "echo hello" also leaves a "sleep 3" running in the workspace
//	errclass  wire, with the error class ValueError reported as RuntimeError
//	sloppy    wire, with a log line on stdout before each answer, and every other call held back so
//	          that answers come out of order
//	mcpsloppy an MCP server over stdio that prints a log line before its first message and returns each
//	          text in three content items
//	wrongyield wire, on the spec with every yield window 50 ms whatever is sent
//	loststdin wire, but every session write is sent with nothing to write (the text is lost)
//	tokens    wire, on the spec with every token budget counting 3 bytes a token
//	mcpslow, mcpnotify, mcpnoeof, mcpnoterm, mcpleave: MCP servers over stdio that misbehave as real ones
//	          do (faultyMCP, faults_test.go)
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == "conformance-fake" {
		os.Exit(fake(os.Args[2], os.Args[3]))
	}
	os.Exit(m.Run())
}

// fakeTarget is the wire target of a fake mode.
func fakeTarget(mode, variant string) *target.WireTarget {
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
	case "mcpsloppy":
		return sloppyMCP(v)
	case "mcpslow", "mcpnotify", "mcpnoeof", "mcpnoterm", "mcpleave":
		return faultyMCP(mode, v)
	case "dead":
		fmt.Fprintln(os.Stderr, "fake: cannot start: no configuration")
		return 3
	case "late", "nomarker":
		cp := *v
		cp.Tools = append([]spec.Tool(nil), v.Tools...)
		for i := range cp.Tools {
			t := &cp.Tools[i]
			if t.Output != nil && t.Output.Truncate != nil {
				o, tr := *t.Output, *t.Output.Truncate
				if mode == "late" {
					tr.Limit++
				} else {
					tr.Marker = ""
				}
				o.Truncate, t.Output = &tr, &o
			}
		}
		v = &cp
	case "wrongyield", "tokens":
		cp := *v
		cp.Tools = append([]spec.Tool(nil), v.Tools...)
		for i := range cp.Tools {
			t := &cp.Tools[i]
			if mode == "wrongyield" && t.Session != nil && t.Session.Yield != nil {
				st, y := *t.Session, *t.Session.Yield
				fifty := 50.0
				y.Unit, y.Default, y.Min, y.Max, y.Empty = spec.Milliseconds, fifty, &fifty, &fifty, nil
				st.Yield, t.Session = &y, &st
			}
			if mode == "tokens" && t.Output != nil && t.Output.Budget != nil && t.Output.Budget.Unit == spec.BudgetTokens {
				o, b := *t.Output, *t.Output.Budget
				b.BytesPerToken = 3
				o.Budget, t.Output = &b, &o
			}
		}
		v = &cp
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
	var mu sync.Mutex
	var sloppyCalls int
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
		var calls int
		if mode == "sloppy" {
			fmt.Fprintln(out, "sloppy target: handling a request")
			mu.Lock()
			sloppyCalls++
			calls = sloppyCalls
			mu.Unlock()
			if calls%2 == 1 {
				time.Sleep(150 * time.Millisecond)
			}
		}
		switch {
		case mode == "hangbg" && strings.Contains(cmd, "&"):
			c := exec.CommandContext(ctx, "/bin/sh", "-c", cmd)
			c.Dir = ws
			b, err := c.Output() // waits until every holder of the pipe is gone
			return jsonenc.Marshal(map[string]any{"stdout": string(b), "error": fmt.Sprint(err)})
		case mode == "leave" && cmd == "echo hello":
			c := exec.Command("/bin/sh", "-c", "sleep 3")
			c.Dir = ws
			c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := c.Start(); err == nil {
				go c.Wait()
			}
		}
		if t := v.Tool(tool); mode == "loststdin" && t != nil && t.Kind == spec.KindSessionWrite {
			var m map[string]any
			if json.Unmarshal(params, &m) == nil {
				m[t.Param(spec.RoleStdin).Name] = ""
				params, _ = json.Marshal(m)
			}
		}
		res, err := pool.Call(ctx, ws, tool, params)
		var te *runtime.ToolError
		if mode == "errclass" && errors.As(err, &te) && te.Type == "ValueError" {
			err = &runtime.ToolError{Type: "RuntimeError", Message: te.Message}
		}
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

// sloppyMCP serves v over MCP on stdio as some real servers do: a log line on stdout before the first
// message, and each text split into three content items.
func sloppyMCP(v *spec.Variant) int {
	wd, _ := os.Getwd()
	eng, err := runtime.New(v, runtime.WithWorkspace(wd))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		return 1
	}
	defer eng.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "sloppy", Version: "0"}, nil)
	for i := range v.Tools {
		name := v.Tools[i].Name
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := eng.Call(ctx, name, req.Params.Arguments)
			text, isErr := string(res), false
			var te *runtime.ToolError
			switch {
			case errors.As(err, &te):
				text, isErr = te.Message, true
			case err != nil:
				return nil, err
			default:
				var s string
				if json.Unmarshal(res, &s) == nil {
					text = s
				}
			}
			// STDOUT, STDERR, ERROR: three items whose texts join to the whole.
			a, b := runeCut(text, len(text)/3), runeCut(text, 2*len(text)/3)
			return &mcp.CallToolResult{IsError: isErr, Content: []mcp.Content{
				&mcp.TextContent{Text: text[:a]}, &mcp.TextContent{Text: text[a:b]}, &mcp.TextContent{Text: text[b:]}}}, nil
		})
	}
	fmt.Println("sloppy MCP server v0 starting, logging to stdout")
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
	}
	return 0
}

// runeCut moves i back to the start of a UTF-8 sequence.
func runeCut(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
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
