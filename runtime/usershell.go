package runtime

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentbash/agentbash/runtime/proc"
	"github.com/agentbash/agentbash/spec"
)

// userShell is the shell argv of a spec whose shell block has `user`: the program the variable names (in
// the environment commands get) when it is set, not refused and found; else argv[0], looked up on that
// environment's PATH when it is a bare name; else the fallback. The rest of argv follows it.
func userShell(sh spec.Shell, env []string) []string {
	u := sh.User
	if u == nil || len(sh.Argv) == 0 {
		return sh.Argv
	}
	prog := ""
	if name, _ := proc.Getenv(env, u.Env); name != "" && !slices.ContainsFunc(u.Refuse, func(r string) bool {
		return strings.EqualFold(r, filepath.Base(name))
	}) {
		prog = findProgram(name, env)
	}
	if prog == "" {
		if prog = findProgram(sh.Argv[0], env); prog == "" {
			prog = sh.Argv[0]
			if u.Fallback != "" && !strings.Contains(prog, "/") {
				prog = u.Fallback
			}
		}
	}
	return append([]string{prog}, sh.Argv[1:]...)
}

// findProgram is name as a host finds it: an absolute path that is a regular file, or the first
// executable regular file of that name on env's PATH; "" when there is none.
func findProgram(name string, env []string) string {
	if filepath.IsAbs(name) {
		if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
			return name
		}
		return ""
	}
	if strings.Contains(name, "/") {
		return ""
	}
	p, err := proc.LookPath(name, env, "")
	if err != nil {
		return ""
	}
	return p
}
