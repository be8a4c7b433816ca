// Command app uses a Bash tool of one's own through its typed Go API: the adapter agentbash gen wrote from
// examples/myshell/myshell.yaml. It runs a command, a command that times out, and a call with a parameter
// of the wrong type, as a model might send it, and prints what the host gets back.
//
//	go run ./examples/app -workspace /tmp
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/agentbash/agentbash/examples/myshell"
	"github.com/agentbash/agentbash/runtime"
)

func main() {
	workspace := flag.String("workspace", ".", "the directory commands run in")
	flag.Parse()
	if err := run(context.Background(), *workspace, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "app:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, workspace string, w io.Writer) error {
	tool, err := myshell.New(runtime.WithWorkspace(workspace)) // any runtime.Option
	if err != nil {
		return err
	}
	defer tool.Close() // ends whatever the tool left running

	// What to show the model: the tool's name, description and input schema.
	for _, d := range myshell.Definitions() {
		fmt.Fprintf(w, "tool %s: %s\n", d.Name, d.Description)
	}

	// A call with typed parameters and a typed result.
	res, err := tool.Shell(ctx, myshell.ShellParams{Cmd: "echo hello; exit 3"})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "ok=%v code=%d output=%q\n", res.Ok, res.Code, res.Output)

	// An optional parameter is a pointer: one second, and the command is killed.
	res, err = tool.Shell(ctx, myshell.ShellParams{Cmd: "echo started; sleep 10", TimeoutS: new(1)})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "ok=%v code=%d output=%q\n", res.Ok, res.Code, res.Output)

	// The JSON a model sent, as it came: a raised error has its class's Go type.
	_, err = tool.Call(ctx, json.RawMessage(`{"cmd": 42}`))
	var invalid *myshell.ValidationError
	if !errors.As(err, &invalid) {
		return fmt.Errorf("want a ValidationError, got %v", err)
	}
	fmt.Fprintf(w, "raised ValidationError: %s\n", invalid.Message)
	return nil
}
