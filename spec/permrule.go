package spec

import (
	"strconv"
	"strings"
)

// PermissionRule is a parsed `Tool` or `Tool(pattern)` rule of a permission policy.
type PermissionRule struct {
	// Tool is the tool name (case-sensitive).
	Tool string
	// Pattern is the content pattern; empty means every call of the tool.
	Pattern string
}

// RuleError is a permission rule that does not parse. Its text is the rule language's own, exactly:
// `Invalid permission rule: empty string`, `Invalid permission rule "<rule>": <problem>`, and for a list
// `Permission rule at index <i> is invalid: <that text>`.
type RuleError struct {
	// Rule is the rule as written.
	Rule string
	// Problem is empty string, missing closing parenthesis, tool name is empty, or pattern inside
	// parentheses is empty.
	Problem string
	// Index is the rule's place in its list, or -1 for a rule parsed alone.
	Index int
}

func (e *RuleError) Error() string {
	msg := "Invalid permission rule \"" + e.Rule + "\": " + e.Problem
	if e.Problem == "empty string" {
		msg = "Invalid permission rule: empty string"
	}
	if e.Index >= 0 {
		return "Permission rule at index " + strconv.Itoa(e.Index) + " is invalid: " + msg
	}
	return msg
}

// ParsePermissionRule parses `Tool` or `Tool(pattern)` with the rule language's parsing and exact error
// messages (a *RuleError): the text is trimmed as JavaScript's trim() does; without `(` it is a bare tool
// name; otherwise it must end with `)`, and both the tool name before `(` and the pattern inside (each
// trimmed) must be non-empty.
func ParsePermissionRule(s string) (PermissionRule, error) {
	fail := func(problem string) (PermissionRule, error) {
		return PermissionRule{}, &RuleError{Rule: s, Problem: problem, Index: -1}
	}
	trimmed := jsTrim(s)
	if trimmed == "" {
		return fail("empty string")
	}
	open := strings.IndexByte(trimmed, '(')
	if open < 0 {
		return PermissionRule{Tool: trimmed}, nil
	}
	if !strings.HasSuffix(trimmed, ")") {
		return fail("missing closing parenthesis")
	}
	tool := jsTrim(trimmed[:open])
	if tool == "" {
		return fail("tool name is empty")
	}
	// The text ends with ")" and has "(" before it, so open+1 <= len-1.
	pattern := jsTrim(trimmed[open+1 : len(trimmed)-1])
	if pattern == "" {
		return fail("pattern inside parentheses is empty")
	}
	return PermissionRule{Tool: tool, Pattern: pattern}, nil
}

// ParsePermissionRules parses a list of rules; an error (a *RuleError) names the index:
// `Permission rule at index <i> is invalid: <message>`.
func ParsePermissionRules(rules []string) ([]PermissionRule, error) {
	out := make([]PermissionRule, 0, len(rules))
	for i, s := range rules {
		r, err := ParsePermissionRule(s)
		if err != nil {
			re := *err.(*RuleError)
			re.Index = i
			return nil, &re
		}
		out = append(out, r)
	}
	return out, nil
}

// jsTrim is JavaScript's String.prototype.trim: white space and line terminators.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0x2028, 0x2029, 0xa0, 0x1680, 0x202f, 0x205f, 0x3000, 0xfeff:
			return true
		}
		return r >= 0x2000 && r <= 0x200a
	})
}
