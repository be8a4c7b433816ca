package conformance

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// The test binary doubles as the targets under test: started as `<test binary> conformance-fake MODE
// VARIANT`, it serves VARIANT (an id, or a spec file) in one of these modes:
//
//	wire      ServeWire, as `agentbash target` does
//	mcp       ServeMCP
//	nopolicy  ServeWire on the spec with its policy checks removed (runs what it is sent)
//	marker    ServeWire, with "[output truncated]" written "[truncated]" in every answer
//	exitcode  ServeWire, with the exit code 3 reported as 1
//	hang      ServeWire, but never answers a request whose command is "echo hello"
//	crash     ServeWire, but dies (exit status 2, a panic message on stderr) on a command with "oops"
//	garbage   ServeWire, but answers "echo hello" with a line that is not JSON
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

func fake(mode, name string) int {
	v, err := loadAny(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		return 1
	}
	ctx := context.Background()
	switch mode {
	case "wire":
		if err := ServeWire(ctx, v, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "fake:", err)
			return 1
		}
		return 0
	case "mcp":
		if err := ServeMCP(ctx, v, os.Stdin, os.Stdout); err != nil {
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

	// The other modes filter the requests and answers of ServeWire.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- ServeWire(ctx, v, inR, outW)
		outW.Close()
	}()
	answered := make(chan string)
	var wg sync.WaitGroup
	wg.Go(func() {
		r := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				answered <- line
			}
			if err != nil {
				close(answered)
				return
			}
		}
	})
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		req, err := in.ReadString('\n')
		if req != "" {
			switch {
			case mode == "hang" && strings.Contains(req, `"command":"echo hello"`):
				time.Sleep(time.Hour) // the suite must kill us
			case mode == "crash" && strings.Contains(req, "oops"):
				fmt.Fprintln(os.Stderr, "panic: simulated crash")
				return 2
			case mode == "garbage" && strings.Contains(req, `"command":"echo hello"`):
				fmt.Fprintln(os.Stdout, "hello from a target that forgot the protocol")
				continue
			}
			if _, err := io.WriteString(inW, req); err != nil {
				return 1
			}
			ans := <-answered
			switch mode {
			case "marker":
				ans = strings.ReplaceAll(ans, "[output truncated]", "[truncated]")
			case "exitcode":
				ans = strings.ReplaceAll(ans, `"exit_code":3`, `"exit_code":1`)
			}
			os.Stdout.WriteString(ans)
		}
		if err != nil {
			break
		}
	}
	inW.Close()
	wg.Wait()
	if err := <-served; err != nil {
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
