package cases

import (
	"encoding/json"
	"slices"

	"github.com/agentbash/agentbash/spec"
)

// Features lists the features of a spec that the battery can exercise, sorted: each parameter of each
// tool ("tool bash param command"), each required, not_empty and not_blank check ("tool Bash check
// required description"), the timeout rules and the working-directory checks, output and result
// truncation, the values of enums, invalid parameters, unknown shell ids, carried state, and every rule of every policy a tool checks ("policy
// toolregistry_deny rule sudo"; each pattern of a rule's list on its own: "rule dangerous[2]"). A report
// counts those its cases exercised (a case exercises its Features and the parameters it sends).
func Features(v *spec.Variant) []string {
	var fs []string
	policies := map[string]bool{}
	for i := range v.Tools {
		t := &v.Tools[i]
		p := "tool " + t.Name + " "
		kind := t.Kind
		hasRole := func(role spec.Role) bool {
			return slices.ContainsFunc(t.Params, func(q spec.Param) bool { return q.Role == role })
		}
		if (kind == spec.KindExec || kind == spec.KindSessionStart) && !hasRole(spec.RoleCommand) {
			continue // the battery has nothing to call it with
		}
		for _, q := range t.Params {
			fs = append(fs, p+"param "+q.Name)
			if len(q.Enum) > 0 && (q.Role == "" || q.Role == spec.RoleNone) && !v.Conformance.IsFixed(t, q.Name) {
				fs = append(fs, p+"enum "+q.Name)
			}
		}
		for _, ch := range t.Checks {
			switch {
			case ch.Required != "":
				fs = append(fs, p+"check required "+ch.Required)
			case ch.NotEmpty != "":
				fs = append(fs, p+"check not_empty "+ch.NotEmpty)
			case ch.NotBlank != "":
				fs = append(fs, p+"check not_blank "+ch.NotBlank)
			case ch.Timeout && t.Timeout != nil && hasRole(spec.RoleTimeout):
				fs = append(fs, p+"check timeout")
			case ch.Workdir && hasRole(spec.RoleWorkdir):
				fs = append(fs, p+"check workdir")
			case ch.Policy != "":
				policies[ch.Policy] = true
			}
		}
		switch kind {
		case spec.KindExec:
			fs = append(fs, p+"invalid parameter")
			if len(t.Carry) > 0 {
				fs = append(fs, p+"carry")
			}
			if t.Timeout != nil && hasRole(spec.RoleTimeout) {
				fs = append(fs, p+"timeout")
			}
			if t.Output != nil && t.Output.Truncate != nil {
				fs = append(fs, p+"output truncation")
			}
			for name, sh := range t.Results.Cases {
				if sh.Truncate != nil && sh.Text != nil && (name == spec.OutcomeExit || name == spec.OutcomeSuccess) {
					fs = append(fs, p+"result truncation")
					break
				}
			}
		case spec.KindPoll, spec.KindKill:
			if hasRole(spec.RoleShellID) {
				fs = append(fs, p+"unknown shell id")
			}
		case spec.KindSessionStart:
			fs = append(fs, p+"invalid parameter", p+"session")
			if v.Sessions != nil && v.Sessions.MaxLive <= 128 {
				fs = append(fs, p+"session limit")
			}
		case spec.KindSessionWrite, spec.KindSessionRead, spec.KindSessionKill:
			if hasRole(spec.RoleSessionID) {
				fs = append(fs, p+"unknown session id")
			}
			if kind == spec.KindSessionRead && t.Session != nil && t.Session.Page != nil {
				fs = append(fs, p+"session page")
			}
		}
		if t.Output != nil && t.Output.Budget != nil && (kind == spec.KindExec || kind == spec.KindSessionStart) {
			fs = append(fs, p+"output budget")
		}
	}
	if r := v.Redact; r != nil {
		for _, rule := range r.Rules {
			fs = append(fs, "redact "+rule.Name)
		}
	}
	for i := range v.Policies {
		pol := &v.Policies[i]
		if !policies[pol.Name] {
			continue
		}
		entries := ruleEntries(pol)
		for _, e := range entries {
			fs = append(fs, e.feature(pol.Name))
		}
		if len(entries) == 0 {
			fs = append(fs, "policy "+pol.Name)
		}
	}
	slices.Sort(fs)
	return slices.Compact(fs)
}

// AllFeatures are the features a case exercises: its own Features and a parameter for each key of the
// params of each of its calls.
func (c Case) AllFeatures() []string {
	fs := slices.Clone(c.Features)
	for _, st := range c.Calls() {
		var keys map[string]json.RawMessage
		if json.Unmarshal(st.Params, &keys) == nil {
			for k := range keys {
				fs = append(fs, "tool "+st.Tool+" param "+k)
			}
		}
	}
	return fs
}
