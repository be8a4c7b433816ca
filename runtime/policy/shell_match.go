package policy

import (
	"strings"

	"github.com/agentbash/agentbash/runtime/policy/shellexpand"
)

// argCache keeps one command line's options and operands per set of options with values. An analysis
// keeps one and resets it for each command line: its buffers are reused.
type argCache struct {
	n        int // entries in use
	ids      []int
	opts     [][]string
	operands [][]shellexpand.Field
}

// reset forgets the entries, keeping their buffers.
func (c *argCache) reset() { c.n = 0 }

// release drops the fields the buffers hold.
func (c *argCache) release() {
	for _, ops := range c.operands {
		clear(ops[:cap(ops)])
	}
	c.n = 0
}

func (c *argCache) split(args []shellexpand.Field, r *shellRule) ([]string, []shellexpand.Field) {
	for i := 0; i < c.n; i++ {
		if c.ids[i] == r.voID {
			return c.opts[i], c.operands[i]
		}
	}
	if c.n == len(c.ids) {
		c.ids, c.opts, c.operands = append(c.ids, 0), append(c.opts, nil), append(c.operands, nil)
	}
	o, ops := splitArgs(args, r.valueOpts, c.opts[c.n][:0], c.operands[c.n][:0])
	c.ids[c.n], c.opts[c.n], c.operands[c.n] = r.voID, o, ops
	c.n++
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
// values of options that take one; it appends them to opts and operands.
func splitArgs(args []shellexpand.Field, valueOpts map[string]bool, opts []string, operands []shellexpand.Field) ([]string, []shellexpand.Field) {
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
