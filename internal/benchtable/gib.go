package main

import (
	"fmt"

	"github.com/agentbash/agentbash/variants"
)

// gibCommand writes 1 GiB of text (lines of "y").
const gibCommand = "yes | head -c 1073741824"

// gibGap is the cause of the 1 GiB target's gap.
const gibGap = "1 GiB through a variant ≤ 1.1x `| cat` is not met on every run against cat's best. cat reads with " +
	"blocking read(2) calls and does nothing with a byte; a Go program reads a pipe through the runtime's poller " +
	"(a read that finds the pipe empty parks the goroutine, and the thread waits in epoll_wait), which costs " +
	"about 1.5x to 2x cat's CPU by itself: the row \"a Go program that reads the stream\" is that floor, with no " +
	"decoding and nothing kept. A variant adds to it what its contract asks of every byte (UTF-8 decoding, " +
	"universal newlines, the counts, the truncation's head and tail): about 0.1 s of CPU per GiB, the same for " +
	"codex's output budget (a window that keeps only the budget's head and tail) as for the others. On two cores " +
	"that `yes` and `head` share with the reader, the reader's CPU is wall time. codex and agentrail start their " +
	"command in a session of its own (setsid, as upstream): with the kernel's autogroup scheduling the command " +
	"then has a CPU share apart from its reader's, and on a busy machine every reader pays more context " +
	"switches for it (the row `setsid … | cat` against `| cat`; measured here, 300,000 against 176,000 context " +
	"switches and about 1.5x the reader's CPU): those two are judged against cat reading a producer started " +
	"so, and their row against a producer in the reader's session is shown beside. The run fails past 1.7x."

// gibRSSGap is why a few variants' peak RSS passes 32 MiB for 1 GiB of output.
const gibRSSGap = "Peak RSS < 32 MiB for 1 GiB is missed on some runs by a variant that keeps a large head: " +
	"`agentbash run` holds the binary's file pages it touches (about 14 MiB of its text and read-only data, the floor of " +
	"every row) and its heap, which is mostly what the call keeps of the output; agentrail keeps a 1 MiB head of each " +
	"stream and answers about 3 MB of JSON. `agentbash run` sets a soft memory limit of 16 MiB (when GOMEMLIMIT is not " +
	"set), so the GC collects before the heap doubles: agentrail peaked at 28-29 MiB with it and 30-33 MiB without it " +
	"(measured 2026-11-27 with `/usr/bin/time -f %M agentbash run agentrail -- 'yes | head -c 1073741824'`). A variant " +
	"whose output spills to a file (opencode) keeps its head up to 8 MiB only until the file starts. The run fails past 56 MiB."

// gibResultSpillGap is why a variant that spills its rendered result passes 32 MiB.
const gibResultSpillGap = "Peak RSS < 32 MiB for 1 GiB is missed by a variant whose contract saves its whole rendered result to a file " +
	"(spec results.spill; gemini-cli: 44-48 MiB with run's memory limit, 52-54 MiB without it (GOMEMLIMIT=off), measured 2026-11-27 with `/usr/bin/time -f %M agentbash run gemini-cli -- " +
	"'head -c 1073741824 /dev/zero | tr \"\\0\" a'`): the result is rendered around the output, so the call keeps the output " +
	"(up to the runtime's 8 MiB) and holds the rendered text beside it until the file is written. The run fails past 80 MiB."

// gib pipes 1 GiB of output through each variant in an `agentbash run` process, against a shell whose
// pipe `cat` reads (the floor of any program that reads the output) and one that writes to /dev/null
// (nobody reads), and against a Go program that only reads it (the floor of a Go reader), interleaved; each
// figure is the best of its rounds. Targets: within 1.1x of `| cat`, under 32 MiB of peak RSS.
func gib(e *env) ([]*row, error) {
	type figure struct {
		walls []float64
		rss   int64
		// printed is the most a run printed; -1 for a baseline, whose output must be cut (the command
		// works). A variant whose contract sets no output limit prints the output whole.
		printed int64
	}
	run := func(f *figure, argv ...string) error {
		r, rss, err := runPeak(e.workspace, argv...)
		if err != nil {
			return err
		}
		if len(r.out) > 4<<20 && f.printed < 0 {
			return fmt.Errorf("%q printed %d bytes: the output was not cut", argv, len(r.out))
		}
		f.walls = append(f.walls, seconds(r.wall))
		f.rss = max(f.rss, rss)
		f.printed = max(f.printed, int64(len(r.out)))
		return nil
	}
	goreader, err := e.tool("goreader")
	if err != nil {
		return nil, err
	}
	// A variant whose shell leads a session (spec Shell.Session: codex, agentrail) starts its command with
	// setsid, as its upstream does; on a kernel with autogroup scheduling the command then gets a CPU share
	// of its own apart from its reader's, which costs any reader more context switches and CPU when the
	// machine is busy, cat included. Such a variant is measured against cat reading a producer started so.
	session := make([]bool, len(builtins))
	resultSpill := make([]bool, len(builtins))
	for i, id := range builtins {
		v, err := variants.Spec(id)
		if err != nil {
			return nil, err
		}
		session[i] = v.Shell.Session
		for _, t := range v.Tools {
			resultSpill[i] = resultSpill[i] || t.Results.Spill != nil
		}
	}
	var cat, catSession, devnull, iconv, gor figure
	for _, f := range []*figure{&cat, &catSession, &devnull, &iconv, &gor} {
		f.printed = -1
	}
	ours := make([]figure, len(builtins))
	for range e.gibRounds {
		if err := run(&catSession, "/bin/bash", "-c", "setsid -w /bin/sh -c '"+gibCommand+"' | cat >/dev/null"); err != nil {
			return nil, err
		}
		if err := run(&gor, goreader, gibCommand); err != nil {
			return nil, err
		}
		if err := run(&cat, "/bin/bash", "-c", gibCommand+" | cat >/dev/null"); err != nil {
			return nil, err
		}
		if err := run(&devnull, "/bin/bash", "-c", gibCommand+" >/dev/null"); err != nil {
			return nil, err
		}
		if err := run(&iconv, "/bin/bash", "-c", gibCommand+" | iconv -f UTF-8 -t UTF-8 >/dev/null"); err != nil {
			return nil, err
		}
		for i, id := range builtins {
			argv, err := runArgv(e.agentbash, id, gibCommand)
			if err != nil {
				return nil, err
			}
			if err := run(&ours[i], argv...); err != nil {
				return nil, err
			}
		}
	}
	// Best of the rounds: the time a stream takes when nothing else took the cores from it (on two cores,
	// yes, head and the reader already compete), for each command alike.
	c, d, v, g, cs := best(cat.walls), best(devnull.walls), best(iconv.walls), best(gor.walls), best(catSession.walls)
	rows := []*row{
		{measure: code(gibCommand + " | cat >/dev/null"), figure: secs(c), baseline: code(">/dev/null") + " " + secs(d), ratio: c / d},
		{measure: code("setsid -w sh -c '"+gibCommand+"' | cat >/dev/null") + " (the producer leads a session, as a variant with " + code("shell.session") + " starts it)", figure: secs(cs), baseline: code("| cat") + " " + secs(c), ratio: cs / c},
		{measure: "a Go program that reads the stream (" + code("os.File") + ", the runtime's poller, as agentbash's pumps; nothing decoded or kept)", figure: secs(g), baseline: code("| cat") + " " + secs(c), ratio: g / c},
		{measure: code("| iconv -f UTF-8 -t UTF-8 >/dev/null") + " (a reader that validates UTF-8, as the contracts decode)", figure: secs(v), baseline: code("| cat") + " " + secs(c), ratio: v / c},
	}
	for i, id := range builtins {
		w := best(ours[i].walls)
		if ours[i].printed > 4<<20 {
			// Its contract sets no limit: the answer holds what the runtime keeps of the output whole, so
			// neither the time of a reader nor a small memory bound applies.
			rows = append(rows, &row{measure: id + ": 1 GiB through `agentbash run` (no output limit in its contract: the answer carries " +
				mib(ours[i].printed) + ")", figure: secs(w), baseline: code("| cat") + " " + secs(c), ratio: w / c},
				&row{measure: id + ": its peak RSS", figure: mib(ours[i].rss)})
			continue
		}
		base, baseText := c, code("| cat")+" "+secs(c)
		if session[i] {
			base, baseText = cs, code("setsid … | cat")+" "+secs(cs)
		}
		rows = append(rows,
			(&row{measure: id + ": 1 GiB through `agentbash run`", figure: secs(w), baseline: baseText, ratio: w / base}).
				judge(w/base, limit{max: 1.1, text: "≤ 1.1x", gap: gibGap, bound: 1.7}))
		if session[i] {
			rows = append(rows, &row{measure: id + ": the same, against a producer in the reader's session", figure: secs(w),
				baseline: code("| cat") + " " + secs(c), ratio: w / c})
		}
		gap, bound := gibRSSGap, 56.0
		if resultSpill[i] {
			gap, bound = gibResultSpillGap, 80
		}
		rows = append(rows, (&row{measure: id + ": its peak RSS", figure: mib(ours[i].rss)}).
			judge(float64(ours[i].rss)/(1<<20), limit{max: 32, text: "< 32 MiB", memory: true, gap: gap, bound: bound}))
	}
	return rows, nil
}
