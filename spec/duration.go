package spec

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a length of time written as a Go duration ("500ms", "2s").
type Duration time.Duration

// D returns the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// UnmarshalYAML reads a Go duration string; a negative or malformed one is an error at its position.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return &Error{Line: n.Line, Col: n.Column, Msg: fmt.Sprintf("%q is not a non-negative Go duration (500ms, 2s)", s)}
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration as a Go duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// MarshalText writes the duration as a Go duration string (JSON too).
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }
