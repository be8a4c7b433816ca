// Command runonly makes the call `agentbash run rye -- true` makes (rye's built-in spec, an engine on the
// current directory, `true`, the answer on stdout) and links nothing else: none of what serve, gen,
// conformance, schema or the Docker executor link. `make bench` times it beside the agentbash binary, to
// show what linking everything in one binary costs its start.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
)

func main() {
	v, err := variants.Spec("rye")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	eng, err := runtime.New(v, runtime.WithWorkspace(wd))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := eng.Call(context.Background(), v.Tools[0].Name, []byte(`{"command":"true"}`))
	eng.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s\n", out)
}
