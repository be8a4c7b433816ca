package policy

import (
	"strings"

	"github.com/agentbash/agentbash/runtime/policy/shellexpand"
)

// argCache keeps one command line's options and operands per set of options with values.
type argCache struct {
	ids      []int
	opts     [][]string
	operands [][]shellexpand.Field
}

func (c *argCache) split(args []shellexpand.Field, r *shellRule) ([]string, []shellexpand.Field) {
	for i, id := range c.ids {
		if id == r.voID {
			return c.opts[i], c.operands[i]
		}
	}
	o, ops := splitArgs(args, r.valueOpts)
	c.ids, c.opts, c.operands = append(c.ids, r.voID), append(c.opts, o), append(c.operands, ops)
	return o, ops
}

// matchCall reports whether a rule blocks the command name with these arguments.
func (r *shellRule) matchCall(name string, args []shellexpand.Field, cache *argCache) bool {
	if len(r.redirects) > 0 || !r.matchName(name) {
		return false
	}
	if len(r.subcommands) == 0 && len(r.flags) == 0 && len(r.operands) == 0 && !r.dynOperands && len(r.args) == 0 {
		return true
	}
	if !r.mayMatch(args) {
		return false
	}
	opts, operands := cache.split(args, r)
	if len(r.subcommands) > 0 {
		if len(operands) == 0 || operands[0].Dyn || !r.subcommands[operands[0].Val] {
			return false
		}
		operands = operands[1:]
	}
	for _, g := range r.flags {
		if !flagGroup(opts, g, r.valueOpts) {
			return false
		}
	}
	if len(r.operands) > 0 || r.dynOperands {
		if !r.operandMatch(operands) {
			return false
		}
	}
	if len(r.args) > 0 {
		hit := false
		for _, a := range args {
			for _, re := range r.args {
				if !a.Dyn && re.MatchString(a.Val) {
					hit = true
				}
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

// mayMatch is a cheap necessary condition: a subcommand rule needs its subcommand among the arguments, a
// flag rule needs an option.
func (r *shellRule) mayMatch(args []shellexpand.Field) bool {
	sub, opt := len(r.subcommands) == 0, len(r.flags) == 0
	for i := range args {
		a := &args[i]
		if a.Dyn {
			return true
		}
		if !sub && r.subcommands[a.Val] {
			sub = true
		}
		if !opt && len(a.Val) > 1 && a.Val[0] == '-' {
			opt = true
		}
	}
	return sub && opt
}

// splitArgs separates options from operands, GNU style (options anywhere before "--"), skipping the
// values of options that take one.
func splitArgs(args []shellexpand.Field, valueOpts map[string]bool) (opts []string, operands []shellexpand.Field) {
	skip, ddash := false, false
	for _, f := range args {
		switch {
		case skip:
			skip = false
		case f.Dyn || ddash:
			operands = append(operands, f)
		case f.Val == "--":
			ddash = true
		case len(f.Val) > 1 && f.Val[0] == '-':
			opts = append(opts, f.Val)
			if strings.HasPrefix(f.Val, "--") {
				name, _, has := strings.Cut(f.Val, "=")
				skip = valueOpts[name] && !has
				continue
			}
			if valueOpts[f.Val] {
				skip = true
				continue
			}
			for k := 1; k < len(f.Val); k++ {
				if valueOpts["-"+f.Val[k:k+1]] {
					skip = k == len(f.Val)-1
					break
				}
			}
		default:
			operands = append(operands, f)
		}
	}
	return opts, operands
}

func flagGroup(opts []string, g []flagSpec, valueOpts map[string]bool) bool {
	for _, fs := range g {
		for _, o := range opts {
			switch fs.kind {
			case 's':
				if strings.HasPrefix(o, "--") {
					continue
				}
				for k := 1; k < len(o); k++ {
					if o[k] == fs.val[1] {
						return true
					}
					if valueOpts["-"+o[k:k+1]] {
						break
					}
				}
			case 'l':
				name, _, _ := strings.Cut(o, "=")
				if len(name) > 2 && strings.HasPrefix(name, "--") && strings.HasPrefix(fs.val, name) {
					return true
				}
			case 'w':
				name, _, _ := strings.Cut(o, "=")
				if name == fs.val {
					return true
				}
			}
		}
	}
	return false
}

// operandMatch: a known operand matching a pattern; with DynamicOperands, an operand only known at run
// time whose known start matches a pattern (or is empty) and whose known end names nothing below it.
func (r *shellRule) operandMatch(operands []shellexpand.Field) bool {
	for _, op := range operands {
		if op.Dyn {
			if !r.dynOperands {
				continue
			}
			if strings.Trim(op.Suffix(), "/*") != "" {
				continue
			}
			pre := op.Prefix()
			if pre == "" || len(r.operands) == 0 {
				return true
			}
			for _, re := range r.operands {
				if re.MatchString(pre) || re.MatchString(strings.TrimRight(pre, "/")) {
					return true
				}
			}
			continue
		}
		for _, re := range r.operands {
			if re.MatchString(op.Val) {
				return true
			}
		}
	}
	return false
}
