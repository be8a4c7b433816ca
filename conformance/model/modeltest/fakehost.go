package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/agentbash/agentbash/conformance/model"
	"github.com/agentbash/agentbash/internal/jsonenc"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate" // spec.Parse and Load check YAML specs against the JSON Schema
	"github.com/agentbash/agentbash/variants"
)

// FakeHost is the main function of a host CLI for tests (a test binary runs it when its arguments say
// so): it holds a conversation with the model at -base in the API -api and runs each tool call with this
// module's runtime on -variant (an id or a spec file), in its working directory (the workspace),
// answering what a model sees: the result's text, or a raised error's message with the error flag. It
// returns the exit status.
//
//	-api API         the model API
//	-base URL        the base URL ({base_url})
//	-mode MODE       sse (default), whole, or array (Gemini's streamGenerateContent without alt=sse)
//	-variant NAME    the spec whose tools the host offers and runs
//	-prefix P        the host names each tool P+name
//	-side            the requests beside the conversation first (models, token counting, a title)
//	-noids           Gemini functionResponses without ids
//	-die-after N     exit with status 3 once N calls ran, before sending their results
//	-hang-after N    hang once N calls ran, before sending their results
//	-child DURATION  first start `sleep DURATION` in a session of its own (it must die with the host)
func FakeHost(args []string) int {
	fs := flag.NewFlagSet("fakehost", flag.ContinueOnError)
	api := fs.String("api", "", "the model API")
	base := fs.String("base", "", "the base URL")
	mode := fs.String("mode", "sse", "sse, whole, or array")
	variant := fs.String("variant", "", "the spec whose tools the host offers and runs")
	prefix := fs.String("prefix", "", "the host names each tool with this prefix")
	side := fs.Bool("side", false, "make the requests beside the conversation first")
	noIDs := fs.Bool("noids", false, "Gemini functionResponses without ids")
	dieAfter := fs.Int("die-after", 0, "exit with status 3 once this many calls ran")
	hangAfter := fs.Int("hang-after", 0, "hang once this many calls ran")
	child := fs.String("child", "", "start this sleep in a session of its own first")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *child != "" {
		cmd := exec.Command("sleep", *child)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "fakehost:", err)
			return 1
		}
	}
	var v *spec.Variant
	var err error
	if strings.HasSuffix(*variant, ".yaml") {
		v, err = spec.Load(*variant)
	} else {
		v, err = variants.Spec(*variant)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakehost:", err)
		return 1
	}
	ws, _ := os.Getwd()
	eng, err := runtime.New(v, runtime.WithWorkspace(ws))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakehost:", err)
		return 1
	}
	defer eng.Close()
	var tools []Tool
	for _, t := range v.Tools {
		schema, _ := jsonenc.Marshal(t.InputSchema())
		tools = append(tools, Tool{Name: *prefix + t.Name, Schema: schema})
	}
	h := Host{API: model.API(*api), BaseURL: *base, Stream: *mode == "sse", GeminiArray: *mode == "array", NoCallIDs: *noIDs,
		Tools: tools, SideRequests: *side,
		Exec: func(ctx context.Context, name string, args json.RawMessage) (string, bool) {
			res, err := eng.Call(ctx, strings.TrimPrefix(name, *prefix), args)
			if err != nil {
				var te *runtime.ToolError
				if errors.As(err, &te) {
					return te.Message, true
				}
				return err.Error(), true
			}
			var s string
			if json.Unmarshal(res, &s) == nil {
				return s, false
			}
			return string(res), false
		},
		OnCall: func(n int) {
			if *dieAfter > 0 && n >= *dieAfter {
				fmt.Fprintln(os.Stderr, "fakehost: dying on purpose after", n, "calls")
				os.Exit(3)
			}
			if *hangAfter > 0 && n >= *hangAfter {
				fmt.Fprintln(os.Stderr, "fakehost: hanging on purpose after", n, "calls")
				select {}
			}
		}}
	text, err := h.Run(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakehost:", err)
		return 1
	}
	fmt.Println(text)
	return 0
}
