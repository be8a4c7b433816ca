package runtime

import (
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentbash/agentbash/spec"
)

// coerceParam reads a parameter the model sent as the tool's coerce mode says, before the type checks.
// handled: the parameter is read (present, its value in c.params as the tool's code sees it) and the
// caller does nothing more with it.
func (c *call) coerceParam(p *spec.Param, v any) (handled bool, err error) {
	switch c.t.spec.Coerce {
	case spec.CoercePython:
		// json.loads made the value; the code sees it as it is, None included. What another type does is
		// the role's (commandTypeError, timeoutRunError, the working directory's checks).
		c.present[p.Name] = true
		return true, nil
	case spec.CoercePydantic:
		if v == nil {
			if p.Nullable {
				return false, nil
			}
			_, problem := pydanticLax(p.Type, struct{}{})
			return true, c.invalid(p.Name, problem)
		}
		nv, problem := pydanticLax(p.Type, v)
		if problem != "" {
			return true, c.invalid(p.Name, problem)
		}
		if m, ok := v.(map[string]any); ok && p.Type == spec.TypeObject && p.InvalidEntries != "drop" {
			// dict[str, str]: each value must be a string; pydantic names the first that is not.
			for _, k := range c.keysOf(p.Name, m) {
				if _, isStr := m[k].(string); !isStr {
					return true, c.invalid(p.Name+"."+k, "Input should be a valid string")
				}
			}
		}
		c.params[p.Name] = nv
	case spec.CoerceAjv:
		if v == nil && p.Nullable {
			return false, nil
		}
		if nv, ok := ajvCoerce(p.Type, v); ok {
			c.params[p.Name] = nv
		}
	}
	return false, nil
}

// ajvCoerce converts a value as Ajv's coerceTypes does for a parameter of type typ (its coerceToTypes of
// a scalar); ok false leaves the value as it is, for the type check.
func ajvCoerce(typ spec.Type, v any) (any, bool) {
	switch typ {
	case spec.TypeString:
		switch x := v.(type) {
		case json.Number:
			return jsNumberString(x), true
		case bool:
			return strconv.FormatBool(x), true
		case nil:
			return "", true
		}
	case spec.TypeInteger, spec.TypeNumber:
		var f float64
		switch x := v.(type) {
		case string:
			n, ok := jsNumber(x)
			if !ok || x == "" {
				return nil, false
			}
			f = n
		case bool:
			if x {
				f = 1
			}
		case nil:
		default:
			return nil, false
		}
		if typ == spec.TypeInteger && f != math.Trunc(f) {
			return nil, false
		}
		return json.Number(strconv.FormatFloat(f, 'f', -1, 64)), true
	case spec.TypeBoolean:
		switch x := v.(type) {
		case string:
			if x == "true" || x == "false" {
				return x == "true", true
			}
		case json.Number:
			if f, err := x.Float64(); err == nil && (f == 0 || f == 1) {
				return f == 1, true
			}
		case nil:
			return false, true
		}
	}
	return nil, false
}

// jsNumberPrefixRE is a string JavaScript's Number() reads in base 16, 8 or 2.
var jsNumberPrefixRE = regexp.MustCompile(`^0([xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)$`)

// jsNumber is JavaScript's Number(s) (white space trimmed, "" is 0, decimal with an exponent, 0x/0o/0b,
// Infinity), without NaN: ok false where Number() gives NaN or a value that is not finite.
func jsNumber(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, true
	}
	if m := jsNumberPrefixRE.FindStringSubmatch(t); m != nil {
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[m[1][0]]
		n, ok := new(big.Int).SetString(m[1][1:], base)
		if !ok {
			return 0, false
		}
		f, _ := new(big.Float).SetInt(n).Float64()
		return f, !math.IsInf(f, 0)
	}
	if strings.ContainsAny(t, "_xXpP") || strings.EqualFold(t, "inf") || strings.HasSuffix(strings.ToLower(t), "nan") || strings.Contains(strings.ToLower(t), "inf") {
		return 0, false // Go's ParseFloat reads these, JavaScript does not (or they are not finite)
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// jsNumberString is JavaScript's String() of a JSON number: the shortest form, an exponent only from 1e21
// (or below 1e-6).
func jsNumberString(n json.Number) string {
	f, err := n.Float64()
	if err != nil {
		return string(n)
	}
	if f == 0 {
		return "0"
	}
	if a := math.Abs(f); a >= 1e21 || a < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		if exp[0] == '+' {
			return mant + "e+" + strings.TrimLeft(exp[1:], "0")
		}
		return mant + "e-" + strings.TrimLeft(exp[1:], "0")
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// goDecodeError finds the first number in the arguments that encoding/json cannot put in a float64 (with
// coerce go): a Go host that decodes the arguments into map[string]any refuses the whole request.
func (c *call) goDecodeError() error {
	if c.t.spec.Coerce != spec.CoerceGo {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(string(c.raw)))
	d.UseNumber()
	for {
		t, err := d.Token()
		if err != nil {
			return nil
		}
		if n, ok := t.(json.Number); ok {
			if _, err := strconv.ParseFloat(string(n), 64); err != nil {
				c.data.Value = n
				return c.invalid("(params)", "number "+string(n)+" out of float64 range")
			}
		}
	}
}

// pydanticLax converts a value as pydantic v2 validates it in lax mode for a field of type typ, or says
// what pydantic answers (its message).
func pydanticLax(typ spec.Type, v any) (any, string) {
	switch typ {
	case spec.TypeString:
		if _, ok := v.(string); !ok {
			return nil, "Input should be a valid string"
		}
	case spec.TypeInteger:
		return pydanticInt(v)
	case spec.TypeNumber:
		switch x := v.(type) {
		case bool:
			return json.Number(map[bool]string{true: "1.0", false: "0.0"}[x]), ""
		case json.Number:
			return x, ""
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), ""
			}
			return nil, "Input should be a valid number, unable to parse string as a number"
		}
		return nil, "Input should be a valid number"
	case spec.TypeBoolean:
		switch x := v.(type) {
		case bool:
			return x, ""
		case json.Number:
			f, err := strconv.ParseFloat(string(x), 64)
			_, intErr := strconv.ParseInt(string(x), 10, 64)
			switch {
			case err == nil && f == 0:
				return false, ""
			case err == nil && f == 1:
				return true, ""
			case intErr != nil:
				// A float other than 0.0 and 1.0, or an int beyond i64.
				return nil, "Input should be a valid boolean"
			}
			return nil, "Input should be a valid boolean, unable to interpret input"
		case string:
			switch strings.ToLower(x) {
			case "0", "off", "f", "false", "n", "no":
				return false, ""
			case "1", "on", "t", "true", "y", "yes":
				return true, ""
			}
			return nil, "Input should be a valid boolean, unable to interpret input"
		}
		return nil, "Input should be a valid boolean"
	case spec.TypeObject:
		if _, ok := v.(map[string]any); !ok {
			return nil, "Input should be an object"
		}
	case spec.TypeArray:
		if _, ok := v.([]any); !ok {
			return nil, "Input should be a valid list"
		}
	}
	if _, unknown := v.(struct{}); unknown {
		return nil, "Input should be a valid " + string(typ)
	}
	return v, ""
}

// pydanticIntString is a string pydantic reads as an integer: digits (single underscores between them),
// an optional sign, an optional fraction of zeros, white space around.
var pydanticIntString = regexp.MustCompile(`^[+-]?[0-9](?:_?[0-9])*(?:\.0*)?$`)

// maxPydanticFloatInt is the largest float pydantic turns into an int (i64's range).
const maxPydanticFloatInt = float64(math.MaxInt64)

func pydanticInt(v any) (any, string) {
	switch x := v.(type) {
	case bool:
		if x {
			return json.Number("1"), ""
		}
		return json.Number("0"), ""
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			return canonicalInt(s), ""
		}
		f, err := strconv.ParseFloat(s, 64)
		switch {
		case math.IsInf(f, 0) || (err != nil && !math.IsInf(f, 0)):
			return nil, "Input should be a finite number"
		case f != math.Trunc(f):
			return nil, "Input should be a valid integer, got a number with a fractional part"
		case math.Abs(f) > maxPydanticFloatInt:
			return nil, "Unable to parse input string as an integer, exceeded maximum size"
		}
		return json.Number(strconv.FormatFloat(f, 'f', 0, 64)), ""
	case string:
		t := strings.TrimSpace(x)
		if !pydanticIntString.MatchString(t) {
			return nil, "Input should be a valid integer, unable to parse string as an integer"
		}
		t, _, _ = strings.Cut(strings.ReplaceAll(t, "_", ""), ".")
		return canonicalInt(t), ""
	}
	return nil, "Input should be a valid integer"
}

// canonicalInt writes an integer literal as Python's int prints it ("+5" and "-0" are 5 and 0).
func canonicalInt(s string) json.Number {
	i, ok := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
	if !ok {
		return json.Number(s)
	}
	return json.Number(i.String())
}

// pyFalsy reports whether Python finds a value json.loads made false: None, False, 0, 0.0, "", [], {}.
func pyFalsy(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case json.Number:
		f, _, _ := pyNumber(x)
		return f == 0
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// policyTypeError is CPython's answer to a policy that searches a command that is not a string (coerce
// python): re.search refuses it.
func (c *call) policyTypeError() *runtimeError {
	p := c.t.spec.Param(spec.RoleCommand)
	if c.t.spec.Coerce != spec.CoercePython || p == nil || c.argv != nil {
		return nil
	}
	v, ok := c.params[p.Name]
	if _, isStr := v.(string); !ok || isStr {
		return nil
	}
	return &runtimeError{class: "TypeError", msg: "expected string or bytes-like object, got '" + spec.PyType(v) + "'"}
}
