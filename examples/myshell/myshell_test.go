package myshell_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/agentbash/agentbash/examples/myshell"
	"github.com/agentbash/agentbash/gen"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate"
)

// The committed adapter is what agentbash gen writes from the spec today (make check regenerates it too).
func TestGeneratedIsFresh(t *testing.T) {
	v, err := spec.Load("myshell.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want, err := gen.Generate(v, gen.Config{Package: "myshell", SpecFile: "myshell.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("myshell_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("myshell_gen.go is stale: run go generate ./examples/...")
	}
}

func Example() {
	dir, _ := os.MkdirTemp("", "myshell-example-")
	defer os.RemoveAll(dir)
	tool, err := myshell.New(runtime.WithWorkspace(dir))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tool.Close()
	res, err := tool.Shell(context.Background(), myshell.ShellParams{Cmd: "echo hello; echo oops >&2"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ok=%v code=%d output=%q\n", res.Ok, res.Code, res.Output)
	// Output: ok=true code=0 output="hello\noops\n"
}
