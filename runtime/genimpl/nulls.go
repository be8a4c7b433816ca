package genimpl

import (
	"bytes"
	"encoding/json"
	"errors"
)

// SetNulls adds each name with the value null to params, a JSON object that does not hold it: how a
// generated Params type sends a nullable parameter as null (XNull set). A model may do so, and null can
// mean something else than leaving the parameter out (a Python tool's timeout=None: no time limit).
func SetNulls(params []byte, names ...string) ([]byte, error) {
	if len(names) == 0 {
		return params, nil
	}
	t := bytes.TrimSpace(params)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, errors.New("agentbash: SetNulls needs a JSON object")
	}
	var held map[string]json.RawMessage
	if err := json.Unmarshal(t, &held); err != nil {
		return nil, err
	}
	out := append([]byte(nil), t[:len(t)-1]...)
	for _, n := range names {
		if _, ok := held[n]; ok {
			return nil, errors.New("agentbash: parameter " + n + " has a value and is to be sent as null")
		}
		k, err := json.Marshal(n)
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(out)) > 1 {
			out = append(out, ',')
		}
		out = append(append(out, k...), ":null"...)
	}
	return append(out, '}'), nil
}
