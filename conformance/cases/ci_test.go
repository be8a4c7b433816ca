package cases_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentbash/agentbash/conformance"
	"github.com/agentbash/agentbash/conformance/cases"
	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

// untrusted is the runtime in process on a spec of one's own, not trusted with blocked commands as
// written: a stand-in for an independent target that checks its policies its own way.
type untrusted struct{ conformance.Target }

func (u untrusted) Open(ctx context.Context) (target.Conn, error) {
	c, err := u.Target.Open(ctx)
	if err != nil {
		return nil, err
	}
	return untrustedConn{c}, nil
}

type untrustedConn struct{ target.Conn }

func (c untrustedConn) Capabilities() target.Capabilities {
	caps := c.Conn.Capabilities()
	caps.ChecksPoliciesFirst = false
	return caps
}

// A target that leaves out one deny rule is caught, for every variant with deny rules: the rule left out
// is the last one whose case the policy blocks guarded (so a shell that runs the command exits first), and
// the case that exercises it fails with the policy's error as the diff. The rule's case was derived from
// the rule itself when no example covers it.
func TestMissingDenyRule(t *testing.T) {
	for _, id := range variants.IDs() {
		v := mustVariant(t, id)
		for pi := range v.Policies {
			pol := &v.Policies[pi]
			entries := cases.RuleEntries(pol)
			if len(entries) == 0 {
				continue
			}
			t.Run(id+"/"+pol.Name, func(t *testing.T) {
				t.Parallel()
				// The cases of this policy that an untrusted target gets, and the rules they exercise.
				var pick *cases.RuleEntry
				for _, c := range cases.Cases(v) {
					if c.Group != "policies" || c.Hazard != "" || c.Skip != "" || !strings.Contains(c.Name, " "+pol.Name+" ") {
						continue
					}
					for _, e := range entries {
						if slices.Contains(c.Features, e.Feature(pol.Name)) {
							pick = e
						}
					}
				}
				if pick == nil {
					t.Skipf("no case of %s reaches an untrusted target", pol.Name)
				}
				broken := withoutRule(v, pol.Name, pick)
				r, err := conformance.Check(context.Background(), v, untrusted{conformance.InProcess(broken)}, conformance.Filter(func(c conformance.Case) bool {
					return c.Group == "policies" && strings.Contains(c.Name, " "+pol.Name+" ")
				}))
				if err != nil {
					t.Fatal(err)
				}
				caught := false
				for _, res := range r.Results {
					if res.Status == conformance.Fail && slices.Contains(res.Features, pick.Feature(pol.Name)) {
						caught = true
						// The target runs the command, or blocks it by another rule. A policy whose failure is a
						// result case (not a raised error) shows as a result that differs.
						asResult := pol.Fail != nil && pol.Fail.Result != "" && strings.Contains(res.Diff, "texts differ")
						if !asResult && !strings.Contains(res.Diff, "want the error") && !strings.Contains(res.Diff, "error.message") {
							t.Errorf("%s: the diff does not show the policy's error:\n%s", res.Case, res.Text())
						}
					}
					if res.Status == conformance.Fail && !slices.Contains(res.Features, pick.Feature(pol.Name)) {
						t.Errorf("%s fails, but does not exercise %s:\n%s", res.Case, pick.Label(), res.Text())
					}
				}
				if !caught {
					t.Errorf("leaving out %s (%s) is not caught:\n%s", pick.Label(), pick.Text(), r.Summary())
				}
				t.Logf("left out %s %s: caught", pol.Name, pick.Label())
			})
		}
	}
}

// withoutRule is v with one entry of a policy left out.
func withoutRule(v *spec.Variant, policy string, e *cases.RuleEntry) *spec.Variant {
	cp := *v
	cp.Policies = slices.Clone(v.Policies)
	for i := range cp.Policies {
		p := &cp.Policies[i]
		if p.Name != policy {
			continue
		}
		for _, x := range cases.RuleEntries(p) {
			if x.Label() != e.Label() {
				continue
			}
			p.Rules = slices.Clone(p.Rules)
			for ri := range p.Rules {
				texts, _ := cases.EntryTexts(p.Rules[ri])
				for j, text := range texts {
					if text == e.Text() && "rule "+cases.RuleName(p.Rules[ri], ri)+suffix(len(texts), j) == e.Label() {
						if len(texts) == 1 {
							p.Rules = slices.Delete(p.Rules, ri, ri+1)
						} else {
							p.Rules[ri] = cases.WithoutEntry(p.Rules[ri], j)
						}
						p.Examples = nil
						if len(p.Rules) == 0 {
							// A policy with no rule left is no policy: the target checks nothing.
							cp.Policies = slices.Delete(cp.Policies, i, i+1)
							cp.Tools = slices.Clone(v.Tools)
							for ti := range cp.Tools {
								cp.Tools[ti].Checks = slices.DeleteFunc(slices.Clone(cp.Tools[ti].Checks), func(ch spec.Check) bool { return ch.Policy == policy })
							}
						}
						return &cp
					}
				}
			}
		}
	}
	return &cp
}

func suffix(n, j int) string {
	if n > 1 {
		return "[" + string(rune('0'+j)) + "]"
	}
	return ""
}

func mustVariant(t *testing.T, id string) *spec.Variant {
	t.Helper()
	v, err := variants.Spec(id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
