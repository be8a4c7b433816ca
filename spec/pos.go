package spec

// positions maps a field path (tools[0].timeout.max) to its line and column in the YAML file.
type positions map[string][2]int
