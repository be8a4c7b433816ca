package sandbox_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/runtime/sandbox"
	"github.com/agentbash/agentbash/runtime/sandbox/sandboxtest"
)

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want sandbox.Mode
		err  bool
	}{
		{"off", sandbox.Off, false},
		{"read-only", sandbox.ReadOnly, false},
		{"workspace-write", sandbox.WorkspaceWrite, false},
		{"", sandbox.Off, true},
		{"full-access", sandbox.Off, true},
		{"Read-Only", sandbox.Off, true},
	} {
		got, err := sandbox.ParseMode(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil && got.String() != tc.in {
			t.Errorf("ParseMode(%q).String() = %q", tc.in, got.String())
		}
	}
}

func TestConfigString(t *testing.T) {
	for _, tc := range []struct {
		c    sandbox.Config
		want string
	}{
		{sandbox.Config{}, "off"},
		{sandbox.Config{Mode: sandbox.ReadOnly}, "read-only, no network"},
		{sandbox.Config{Mode: sandbox.WorkspaceWrite, Network: true}, "workspace-write, network allowed"},
		{sandbox.Config{Mode: sandbox.WorkspaceWrite, BestEffort: true}, "workspace-write, no network, best effort"},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// support is a machine with every mechanism but those named.
func support(missing ...sandbox.Mechanism) sandbox.Support {
	s := sandbox.Support{LandlockABI: 7}
	for _, m := range sandbox.Mechanisms() {
		st := sandbox.Status{Mechanism: m, Available: true}
		for _, x := range missing {
			if x == m {
				st = sandbox.Status{Mechanism: m, Detail: "gone"}
			}
		}
		s.Mechanisms = append(s.Mechanisms, st)
	}
	return s
}

func TestMissing(t *testing.T) {
	ww := sandbox.Config{Mode: sandbox.WorkspaceWrite}
	for _, tc := range []struct {
		name    string
		s       sandbox.Support
		c       sandbox.Config
		root    bool
		missing []sandbox.Mechanism
	}{
		{"everything", support(), ww, false, nil},
		{"off needs nothing", support(sandbox.Landlock, sandbox.UserNS), sandbox.Config{}, false, nil},
		{"no landlock", support(sandbox.Landlock), ww, false, []sandbox.Mechanism{sandbox.Landlock}},
		{"no network namespace", support(sandbox.NetNS), ww, false, []sandbox.Mechanism{sandbox.NetNS}},
		{"no network namespace, network allowed", support(sandbox.NetNS), sandbox.Config{Mode: sandbox.WorkspaceWrite, Network: true}, false, nil},
		{"no mount namespace, read-only", support(sandbox.MountNS), sandbox.Config{Mode: sandbox.ReadOnly}, false, []sandbox.Mechanism{sandbox.MountNS}},
		{"no seccomp", support(sandbox.Seccomp), sandbox.Config{Mode: sandbox.ReadOnly}, false, []sandbox.Mechanism{sandbox.Seccomp}},
		{"no seccomp, network allowed", support(sandbox.Seccomp), sandbox.Config{Mode: sandbox.ReadOnly, Network: true}, false, nil},
		{"no mount namespace, workspace-write", support(sandbox.MountNS), ww, false, []sandbox.Mechanism{sandbox.MountNS}},
		{"no user namespace: no namespace at all", support(sandbox.UserNS), ww, false,
			[]sandbox.Mechanism{sandbox.UserNS, sandbox.PIDNS, sandbox.NetNS, sandbox.MountNS}},
		{"no user namespace, as root", support(sandbox.UserNS), ww, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []sandbox.Mechanism
			for _, st := range tc.s.Missing(tc.c, tc.root) {
				got = append(got, st.Mechanism)
				if st.Detail == "" {
					t.Errorf("%s is missing without a reason", st.Mechanism)
				}
			}
			if strings.Join(mechs(got), ",") != strings.Join(mechs(tc.missing), ",") {
				t.Errorf("missing %v, want %v", got, tc.missing)
			}
		})
	}
}

func mechs(ms []sandbox.Mechanism) []string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m))
	}
	return out
}

func TestErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  *sandbox.Error
		want []string
	}{
		{&sandbox.Error{Missing: []sandbox.Status{{Mechanism: sandbox.Landlock, Detail: "the kernel has no Landlock"},
			{Mechanism: sandbox.NetNS, Detail: "CLONE_NEWNET: operation not permitted"}}},
			[]string{"sandbox: ", "lacks landlock (the kernel has no Landlock)", "; network namespace (CLONE_NEWNET", "did not run", "best effort"}},
		{&sandbox.Error{Step: "binding .git read-only", Path: "/ws/.git", Err: errors.New("operation not permitted")},
			[]string{"sandbox: binding .git read-only /ws/.git: operation not permitted", "did not run"}},
	} {
		got := tc.err.Error()
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q does not contain %q", got, w)
			}
		}
	}
}

func TestSimulate(t *testing.T) {
	restore := sandboxtest.Simulate(sandbox.Landlock, "disabled by the test")
	if got, want := sandbox.Unavailable(sandbox.Config{Mode: sandbox.ReadOnly}), "landlock (disabled by the test)"; !strings.HasPrefix(got, want) {
		t.Errorf("Unavailable = %q, want it to start with %q", got, want)
	}
	s := sandbox.Check()
	if s.Has(sandbox.Landlock) || s.LandlockABI != 0 {
		t.Fatalf("Landlock still reported after Simulate: %+v", s)
	}
	missing := s.Missing(sandbox.Config{Mode: sandbox.ReadOnly}, false)
	if len(missing) == 0 || missing[0].Mechanism != sandbox.Landlock || missing[0].Detail != "disabled by the test" {
		t.Errorf("missing = %+v", missing)
	}
	restore()
	if got := sandbox.Unavailable(sandbox.Config{Mode: sandbox.ReadOnly}); strings.Contains(got, "disabled by the test") {
		t.Errorf("Unavailable after restore = %q", got)
	}
	if got := sandbox.Check(); len(got.Mechanisms) != len(sandbox.Mechanisms()) {
		t.Errorf("Check reports %d mechanisms, want %d", len(got.Mechanisms), len(sandbox.Mechanisms()))
	}
}
