package matrix

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentbash/agentbash/spec"
)

// List writes the one-line summary of each variant `agentbash list` prints: its shell, timeout, expiry,
// output limit, result format, tools and hosts, as a table.
func List(w io.Writer, vs []*spec.Variant) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSHELL\tTIMEOUT\tON EXPIRY\tOUTPUT LIMIT\tRESULT\tTOOLS\tHOSTS")
	for _, v := range vs {
		t := v.Tools[0]
		shell := strings.Join(v.Shell.Argv, " ")
		if v.Shell.Embedded {
			shell = "(embedded)"
		}
		timeout, expiry := "-", "-"
		if t.Timeout != nil {
			timeout = fmt.Sprintf("%g%s", t.Timeout.Default, t.Timeout.Unit)
			expiry = string(t.Timeout.Expiry)
		}
		limit := "-"
		if t.Output.Truncate != nil {
			tr := t.Output.Truncate
			scope := "per stream"
			if t.Output.Capture == spec.CaptureCombined {
				scope = "combined"
			}
			limit = fmt.Sprintf("%d %s %s (%s)", tr.Limit, tr.Unit, tr.Keep, scope)
		}
		for _, tr := range t.ResultTruncates() {
			limit = fmt.Sprintf("%d %s %s (result)", tr.Limit, tr.Unit, tr.Keep)
		}
		if sp := t.Output.Spill; sp != nil {
			limit = spillLimit(sp) + " (spilled)"
		}
		if sp := t.Results.Spill; sp != nil {
			limit = fmt.Sprintf("over %d %s (result spilled)", sp.Over.Limit, sp.Over.Unit)
		}
		names := make([]string, len(v.Tools))
		for i, t := range v.Tools {
			names[i] = t.Name
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, shell, timeout, expiry, limit, t.Results.Format,
			strings.Join(names, ","), strings.Join(v.Hosts, ","))
	}
	return tw.Flush()
}
