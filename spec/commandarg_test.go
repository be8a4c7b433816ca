package spec

import (
	"reflect"
	"testing"
)

func TestCommandArg(t *testing.T) {
	for _, c := range []struct {
		name  string
		param Param
		want  any
		ok    bool
	}{
		{"command", Param{Name: "cmd", Type: TypeString, Role: RoleCommand}, "ls -a", true},
		{"commands", Param{Name: "commands", Type: TypeArray, Role: RoleCommands}, []string{"ls -a"}, true},
		{"argv", Param{Name: "command", Type: TypeArray, Role: RoleArgv}, []string{"/bin/sh", "-c", "ls -a"}, true},
		{"none", Param{Name: "id", Type: TypeString, Role: RoleShellID}, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tool := &Tool{Params: []Param{c.param}}
			name, value, ok := tool.CommandArg("ls -a")
			if ok != c.ok || !reflect.DeepEqual(value, c.want) || (ok && name != c.param.Name) {
				t.Fatalf("got %q %#v %v, want %q %#v %v", name, value, ok, c.param.Name, c.want, c.ok)
			}
		})
	}
}
