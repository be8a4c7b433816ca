//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package confine

import (
	"reflect"
	"testing"
)

// A config survives its encoding; a truncated or extended encoding is refused.
func TestConfigEncoding(t *testing.T) {
	for _, c := range []Config{
		{},
		{Dir: "/ws", Path: "/bin/sh", Roots: []string{"/ws", "/tmp/x"}, Argv: []string{"sh", "-c", "echo 'a b'\n"},
			Env: []string{"A=1", "B="}, Files: []string{"/tmp/c/1.cwd", "/tmp/c/1.env"}, Sockets: []string{"/run/a.sock", "/tmp/d"}, Ctty: true},
		{Path: "/bin/true", Argv: []string{"true", ""}, Env: []string{}},
	} {
		b := EncodeConfig(c)
		got, ok := decodeConfig(b)
		if !ok || !reflect.DeepEqual(norm(got), norm(c)) {
			t.Errorf("decode(encode(%+v)) = %+v, %v", c, got, ok)
		}
		if _, ok := decodeConfig(b[:len(b)-1]); ok {
			t.Errorf("a truncated encoding of %+v decoded", c)
		}
		if _, ok := decodeConfig(append(b[:len(b):len(b)], 'x', 0)); ok {
			t.Errorf("an extended encoding of %+v decoded", c)
		}
	}
}

// norm makes empty lists nil.
func norm(c Config) Config {
	for _, l := range []*[]string{&c.Roots, &c.Argv, &c.Env, &c.Files, &c.Sockets} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	return c
}
