package geminicli_test

// list_background_processes and read_background_output (tools/shellBackgroundTools.ts of npm
// @google/gemini-cli 0.61.0): every expected text is written from the CLI's code (the history's lines, the
// log's last 64 KB read as ReadBackgroundOutputInvocation.execute reads it), never captured from our output.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/variants"
)

// readLog is ReadBackgroundOutputInvocation.execute's reading of a log, ported line for line: the last
// 64 KB, the first (cut) line left out when there was more, the last `lines` lines.
func readLog(content string, lines int) string {
	position := 0
	if len(content) > 64*1024 {
		position = len(content) - 64*1024
		content = content[position:]
	}
	if content == "" {
		return "Log is empty."
	}
	all := strings.Split(content, "\n")
	if all[len(all)-1] == "" {
		all = all[:len(all)-1]
	}
	if position > 0 && len(all) > 0 {
		all = all[1:]
	}
	tail := all[max(0, len(all)-lines):]
	header := "Full Log Output:\n"
	if lines < len(all) {
		header = fmt.Sprintf("Showing last %d of %d lines:\n", lines, len(all))
	}
	return header + strings.Join(tail, "\n")
}

func seq(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	return b.String()
}

func TestBackgroundTools(t *testing.T) {
	v, err := variants.Spec("gemini-cli")
	if err != nil {
		t.Fatal(err)
	}
	type read struct {
		params string // read_background_output's parameters besides pid
		want   string
	}
	cases := []struct {
		name    string
		command string
		delay   int
		gate    bool   // the command waits for a file named gate in the workspace, made after the start
		list    string // the list's line for the shell once it ended (PID masked as N)
		reads   []read
	}{
		{name: "exit code and the whole log", command: "echo one; echo two; exit 3",
			list:  "- [PID N] EXITED: `echo one; echo two; exit 3` (Exit Code: 3)",
			reads: []read{{"", readLog("one\ntwo\n", 100)}}},
		{name: "stderr is in the log", command: "echo err >&2",
			list:  "- [PID N] EXITED: `echo err >&2` (Exit Code: 0)",
			reads: []read{{"", "Full Log Output:\nerr"}}},
		{name: "nothing written", command: "true",
			list:  "- [PID N] EXITED: `true` (Exit Code: 0)",
			reads: []read{{"", "Log is empty."}}},
		{name: "a signal", command: "kill -9 $$",
			list:  "- [PID N] EXITED: `kill -9 $$` (Signal: 9)",
			reads: []read{{"", "Log is empty."}}},
		{name: "the last lines", command: "seq 1 150",
			list: "- [PID N] EXITED: `seq 1 150` (Exit Code: 0)",
			reads: []read{
				{"", readLog(seq(150), 100)},
				{`, "lines": 3`, "Showing last 3 of 150 lines:\n148\n149\n150"},
				{`, "lines": 150`, readLog(seq(150), 150)},
				{`, "lines": 500`, readLog(seq(150), 500)},
			}},
		{name: "a log past 64 KB", command: "seq 1 20000",
			list:  "- [PID N] EXITED: `seq 1 20000` (Exit Code: 0)",
			reads: []read{{"", readLog(seq(20000), 100)}, {`, "lines": 20000`, readLog(seq(20000), 20000)}}},
		{name: "escapes stripped", command: `printf '\033[31mred\033[0m\n'`,
			list:  "- [PID N] EXITED: `printf '\\033[31mred\\033[0m\\n'` (Exit Code: 0)",
			reads: []read{{"", "Full Log Output:\nred"}}},
		// ShellExecutionService.background writes the output so far and "\n" when the delay ends.
		{name: "the output of the delay, then a newline", command: "echo started; while [ ! -e gate ]; do sleep 0.01; done; echo more",
			delay: 1000, gate: true,
			list:  "- [PID N] EXITED: `echo started; while [ ! -e gate ]; do sleep 0.01; done; echo more` (Exit Code: 0)",
			reads: []read{{"", "Full Log Output:\nstarted\n\nmore"}, {`, "delay_ms": 20`, "Full Log Output:\nstarted\n\nmore"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			eng, err := runtime.New(v, runtime.WithWorkspace(dir))
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			call := func(tool string, params string) string {
				t.Helper()
				res, err := eng.Call(ctx, tool, json.RawMessage(params))
				if err != nil {
					t.Fatalf("%s %s: %v", tool, params, err)
				}
				var s string
				if err := json.Unmarshal(res, &s); err != nil {
					t.Fatalf("not a text result: %s", res)
				}
				return s
			}
			if got := call("list_background_processes", `{}`); got != "No background processes found." {
				t.Errorf("empty list: %q", got)
			}
			// A command that ends within the delay ends the wait at its exit; with no delay the start could
			// end while the command has printed but not yet exited, and the log would get the wait's "\n".
			delay := tc.delay
			if delay == 0 {
				delay = 30000
			}
			start, _ := json.Marshal(map[string]any{"command": tc.command, "is_background": true, "delay_ms": delay})
			call("run_shell_command", string(start))
			shells := eng.Shells()
			if len(shells) != 1 {
				t.Fatalf("%d shells", len(shells))
			}
			pid := shells[0].Pid
			if tc.gate {
				if got := call("list_background_processes", `{}`); got != fmt.Sprintf("- [PID %d] RUNNING: `%s`", pid, tc.command) {
					t.Errorf("running: %q", got)
				}
				if err := os.WriteFile(filepath.Join(dir, "gate"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := eng.WaitShell(ctx, shells[0].ID); err != nil {
				t.Fatal(err)
			}
			if got, want := call("list_background_processes", `{}`), strings.Replace(tc.list, "PID N", "PID "+strconv.Itoa(pid), 1); got != want {
				t.Errorf("list\n got %q\nwant %q", got, want)
			}
			for _, r := range tc.reads {
				if got := call("read_background_output", fmt.Sprintf(`{"pid": %d%s}`, pid, r.params)); got != r.want {
					t.Errorf("read %s\n got %q\nwant %q", r.params, short(got), short(r.want))
				}
			}
		})
	}
}

func short(s string) string {
	if len(s) > 200 {
		return s[:100] + " ... " + s[len(s)-100:]
	}
	return s
}

func TestBackgroundToolErrors(t *testing.T) {
	v, err := variants.Spec("gemini-cli")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, tool, params, want string
	}{
		{"a pid not in the history", "read_background_output", `{"pid": 1}`, "Background process history lookup failed for PID 1"},
		{"no pid", "read_background_output", `{}`, "params must have required property 'pid'"},
		{"lines below its minimum", "read_background_output", `{"pid": 1, "lines": 0}`, "params/lines must be >= 1"},
		{"a pid that is a string", "read_background_output", `{"pid": "1"}`, "params/pid must be integer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eng, err := runtime.New(v, runtime.WithWorkspace(t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			res, err := eng.Call(context.Background(), tc.tool, json.RawMessage(tc.params))
			var te *runtime.ToolError
			if !errors.As(err, &te) {
				t.Fatalf("want an error, got %s, %v", res, err)
			}
			if te.Type != "Error" || te.Message != tc.want {
				t.Errorf("got %s: %q, want Error: %q", te.Type, te.Message, tc.want)
			}
		})
	}
}
