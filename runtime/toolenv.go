package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// toolEnv is env with a tool's own variables (spec.Tool.Env) set over it.
func toolEnv(env []string, vars map[string]string) []string {
	out := make([]string, 0, len(env)+len(vars))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := vars[k]; !over {
			out = append(out, kv)
		}
	}
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}

// nonce is a call's random hexadecimal digits (spec.Data.Nonce).
func nonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
