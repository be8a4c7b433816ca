package spec

import "strings"

// positions maps a field path (tools[0].timeout.max) to its line and column in the YAML file.
type positions map[string][2]int

// fieldAt names the field whose value starts at line:col, or "".
func (p positions) fieldAt(line, col int) string {
	for ptr, lc := range p {
		if lc == [2]int{line, col} {
			if f, ok := strings.CutSuffix(ptr, "#value"); ok {
				return pointerToField(f)
			}
		}
	}
	return ""
}
