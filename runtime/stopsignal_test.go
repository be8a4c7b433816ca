package runtime_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// stopSpec kills a command at its timeout, with timeout.signal SIGNAL first.
const stopSpec = `id: t
title: test
source: {seed: none, repo: none/none, path: none}
shell: {argv: [/bin/bash, -c], grace: 400ms}
tools:
  - name: bash
    description: d
    params:
      - {name: command, type: string, required: true, role: command}
    timeout: {unit: ms, default: 300, expiry: kill SIGNAL}
    output: {capture: combined}
    results:
      format: text
      cases:
        exit: {text: "exit {{.ExitCode}} {{.Signal}}: {{.Output}}"}
        timeout: {text: "timeout {{.Signal}}: {{.Output}}"}
`

// TestTimeoutSignal: timeout.signal asks the command's process group to end before it is killed, so a
// TERM trap runs (in the shell, and in a subshell whose parent died of the signal); a command that ignores
// it is killed once shell.grace has passed. Without it the group is killed at once.
func TestTimeoutSignal(t *testing.T) {
	const trapSub = `sleep 4 | (trap 'echo trapped in the subshell' TERM; sleep 10)`
	for _, tc := range []struct {
		name, signal, command, want string
	}{
		{"shell trap", ", signal: SIGTERM", `trap 'echo trapped; exit 3' TERM; echo started; sleep 10 & wait`, "timeout 0: started\ntrapped\n"},
		{"the group outlives the shell", ", signal: SIGTERM", trapSub, "timeout 15: Terminated\ntrapped in the subshell\n"},
		{"TERM ignored: killed after the grace", ", signal: SIGTERM", `trap '' TERM; echo started; sleep 10`, "timeout 9: started\n"},
		{"SIGINT", ", signal: SIGINT", `trap 'echo interrupted; exit 4' INT; sleep 10 & wait`, "timeout 0: interrupted\n"},
		{"output at expiry", ", signal: SIGTERM, output_at_expiry: true", `trap 'echo trapped; exit 3' TERM; echo started; sleep 10 & wait`, "timeout 0: started\n"},
		{"no signal: killed at once", "", `trap 'echo trapped' TERM; echo started; sleep 10 & wait`, "timeout 9: started\n"},
		{"no signal, subshell", "", trapSub, "timeout 9: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, _ := newEngine(t, strings.Replace(stopSpec, " SIGNAL", tc.signal, 1))
			got, err := callText(t, eng, `{"command":`+quote(tc.command)+`}`)
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v\nwant %q", got, err, tc.want)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
