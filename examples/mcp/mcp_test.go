// Package mcp holds an MCP client configuration that serves two Bash tools with agentbash serve: the
// built-in codegensandbox variant and the spec of one's own in examples/myshell. .mcp.json is Claude Code's
// project configuration (put it at the root of the project, where Claude Code starts the servers); Claude
// Desktop takes the same mcpServers block in its claude_desktop_config.json, with -workspace DIR added to
// each args, since it does not start servers in a project.
package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type config struct {
	MCPServers map[string]struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	} `json:"mcpServers"`
}

// TestConfig starts every server of .mcp.json as an MCP client would (the command, its arguments, in the
// project's root), with the go-sdk client: it lists the tools and calls the command tool.
func TestConfig(t *testing.T) {
	data, err := os.ReadFile(".mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	var c config
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf(".mcp.json: %v", err)
	}
	// What each server is called with: its command tool and arguments a model would send.
	calls := map[string]struct {
		tool  string
		args  map[string]any
		tools []string
		want  string
	}{
		"bash":    {"Bash", map[string]any{"command": "echo from-mcp", "description": "a test"}, []string{"Bash", "BashOutput", "KillShell"}, "from-mcp\n"},
		"myshell": {"shell", map[string]any{"cmd": "echo from-mcp"}, []string{"shell"}, `{"ok":true,"code":0,"output":"from-mcp\n"}`},
	}
	if len(c.MCPServers) != len(calls) {
		t.Fatalf(".mcp.json has %d servers, the test knows %d", len(c.MCPServers), len(calls))
	}
	bin := buildAgentbash(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range c.MCPServers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, ok := calls[name]
			if !ok {
				t.Fatalf("the test has no call for server %q", name)
			}
			if s.Command != "agentbash" {
				t.Fatalf("command %q, want agentbash", s.Command)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.Command(bin, s.Args...)
			cmd.Dir = root // Claude Code starts a project's servers in its root
			cmd.Env = os.Environ()
			for k, v := range s.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "examples-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range list.Tools {
				names = append(names, tl.Name)
			}
			if !slices.Equal(names, want.tools) {
				t.Errorf("tools %q, want %q", names, want.tools)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: want.tool, Arguments: want.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || len(res.Content) != 1 {
				t.Fatalf("call: %+v", res)
			}
			text, ok := res.Content[0].(*mcp.TextContent)
			if !ok || text.Text != want.want {
				t.Errorf("result %+v, want %q", res.Content[0], want.want)
			}
		})
	}
}

// buildAgentbash builds the agentbash command into a temporary directory.
func buildAgentbash(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agentbash")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/agentbash/agentbash/cmd/agentbash").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
