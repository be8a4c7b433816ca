package runtime

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentbash/agentbash/spec"
)

// wrapped is a command rewritten by the variant's shell.wrap, and its pids file (shell.wrap.pids_file),
// which is removed when the run is over.
type wrapped struct {
	pidsFile string
}

// wrapCommand renders shell.wrap's template for command. With pids_file, it makes an empty pids file of
// the run's own under the system's temporary directory (so a sandboxed shell may write it): one create, no
// directory, as a call's hot path wants; the caller removes it.
func (c *call) wrapCommand(w *spec.CommandWrap, command string) (string, *wrapped, error) {
	wr := &wrapped{}
	if w.PidsFile {
		f, err := os.CreateTemp("", "agentbash-bgpids-*.tmp")
		if err != nil {
			return "", nil, err
		}
		wr.pidsFile = f.Name()
		f.Close()
	}
	text, err := c.t.tmpl.render(w.Command, &spec.Data{Command: command, PidsFile: wr.pidsFile})
	if err != nil {
		wr.remove()
		return "", nil, err
	}
	return text, wr, nil
}

// maxPidsFile bounds what is read of a pids file: a command could write anything to it.
const maxPidsFile = 1 << 16

// backgroundPids reads the pids the wrapped command reported, one per line, leaving out shell (the
// shell's own) and lines that are not a number.
func (w *wrapped) backgroundPids(shell int) []int {
	if w == nil || w.pidsFile == "" {
		return nil
	}
	f, err := os.Open(w.pidsFile)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxPidsFile))
	var pids []int
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		n, err := strconv.Atoi(strings.TrimSpace(string(line)))
		if err != nil || n == shell {
			continue
		}
		pids = append(pids, n)
	}
	return pids
}

// remove removes the run's pids file.
func (w *wrapped) remove() {
	if w != nil && w.pidsFile != "" {
		_ = os.Remove(w.pidsFile)
	}
}

// activity is a writer that reports each write on a channel without blocking (timeout.idle).
type activity struct {
	w  io.Writer
	ch chan struct{}
}

func (a activity) Write(p []byte) (int, error) {
	select {
	case a.ch <- struct{}{}:
	default:
	}
	return a.w.Write(p)
}

// waitBackground waits, for a tool with a wait block, the window of a start in the background: the
// parameter with role yield as sent (a negative one as 0) or the default, clamped to the range. Then the
// data holds the output so far and whether the command still runs (its exit, if it ended).
func (c *call) waitBackground(sh *bgShell, st *streams) error {
	p := sh.p
	w := c.t.spec.Wait
	if w == nil {
		return nil
	}
	v := w.Default
	if prm := c.t.spec.Param(spec.RoleYield); prm != nil {
		if n, ok := c.params[prm.Name].(json.Number); ok {
			f, err := n.Float64()
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return c.invalid(prm.Name, "must be a number")
			}
			v = max(f, 0)
		}
	}
	timer := time.NewTimer(w.Window(v, false))
	defer timer.Stop()
	select {
	case <-sh.Done(): // exited and drained: as a poll or a list sees it from now on
		c.data.Running = false
		c.fillExit(p.Exit())
	case <-timer.C:
	case <-c.ctx.Done():
		return c.ctx.Err() // the shell stays registered, as a start the host gave up on
	}
	c.fillStreams(st.snapshots())
	return nil
}
