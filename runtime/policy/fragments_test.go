package policy

import "testing"

func TestFragmentsCompile(t *testing.T) {
	for _, name := range fragments {
		t.Run(name, func(t *testing.T) {
			compileFragment(t, name)
		})
	}
}
