package main

import (
	"fmt"
	"time"
)

// conformanceSuite runs the conformance suite of each variant against `agentbash serve` of the same
// variant over the wire protocol, as a third party's CI runs it against theirs.
func conformanceSuite(e *env) ([]*row, error) {
	var rows []*row
	total := 0.0
	for _, id := range builtins {
		start := time.Now()
		if _, err := runProcess(e.workspace, e.agentbash, "conformance", id, "--", e.agentbash, "serve", id, "-transport", "wire"); err != nil {
			return nil, err
		}
		d := seconds(time.Since(start))
		total += d
		rows = append(rows, &row{measure: id, figure: secs(d)})
	}
	rows = append(rows, &row{measure: fmt.Sprintf("all %d variants", len(builtins)), figure: secs(total)})
	return rows, nil
}
