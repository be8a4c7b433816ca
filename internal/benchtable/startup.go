package main

// startupGap is the cause of the start-up target's gap, with the figures that show it.
const startupGap = "Start-up ≤ 3x an empty Go program is not met. The JSON Schema validator (santhosh-tekuri/jsonschema/v6) " +
	"compiles the meta-schemas of five drafts in its package `init`, which Go runs in every process that links it, " +
	"used or not: the row \"a program that only links the validator\" is that cost alone, 3x to 4x. The row " +
	"`agentbash version` is the same binary doing nothing: the validator's init, the other packages' inits " +
	"(about 1.5 ms in all, `GODEBUG=inittrace=1`) and the page-in of a 24 MB binary (it links the MCP SDK, the " +
	"generator and the conformance client). What `run` adds beyond it is the call itself: the embedded spec " +
	"read (about 1.5 ms), the engine (0.2 ms), and a first call (1.5 to 3 ms, with the process's first spawn " +
	"of /bin/sh, both streams captured, the group kill and the sweep; a later call takes 0.85 ms). agentbash " +
	"no longer validates a built-in spec at start (built-ins are checked against the schema by their tests and " +
	"`make check`; the validator runs only for a spec read from a file). The run fails past 12x."

func startup(e *env) ([]*row, error) {
	run := []string{e.agentbash, "run", "rye", "--", "true"}
	meds, err := interleave(e.startRounds,
		wallOf(e.workspace, run...),
		wallOf(e.workspace, e.empty),
		wallOf(e.workspace, e.validator),
		wallOf(e.workspace, "/bin/sh", "-c", "true"),
		wallOf(e.workspace, e.agentbash, "version"),
	)
	if err != nil {
		return nil, err
	}
	ours, empty, validator, sh, version := meds[0], meds[1], meds[2], meds[3], meds[4]
	rows := []*row{
		(&row{measure: code("agentbash run rye -- true") + ", whole process", figure: ms(ours),
			baseline: "empty Go program " + ms(empty), ratio: ours / empty}).
			judge(ours/empty, limit{max: 3, text: "≤ 3x", gap: startupGap, bound: 12}),
		{measure: "a program that only links the JSON Schema validator", figure: ms(validator),
			baseline: "empty Go program " + ms(empty), ratio: validator / empty},
		{measure: code("agentbash version") + " (the same binary, no call)", figure: ms(version),
			baseline: "empty Go program " + ms(empty), ratio: version / empty},
		{measure: code("agentbash run rye -- true") + " against a shell", figure: ms(ours),
			baseline: code("sh -c true") + " " + ms(sh), ratio: ours / sh},
	}

	// 32 processes started at once: a host that starts one per call.
	meds, err = interleave(max(3, e.startRounds/5),
		func() (float64, error) { d, err := runConcurrently(32, e.workspace, run...); return seconds(d), err },
		func() (float64, error) {
			d, err := runConcurrently(32, e.workspace, "/bin/sh", "-c", "true")
			return seconds(d), err
		},
	)
	if err != nil {
		return nil, err
	}
	rows = append(rows, &row{measure: "32 `agentbash run rye -- true` at once", figure: ms(meds[0]),
		baseline: "32 `sh -c true` at once " + ms(meds[1]), ratio: meds[0] / meds[1]})

	// A 1 s timeout: when does the answer come?
	var answers []float64
	for range 3 {
		r, err := runProcess(e.workspace, e.agentbash, "run", "rye", "-params", `{"command":"sleep 5","timeout":1}`)
		if err != nil {
			return nil, err
		}
		answers = append(answers, seconds(r.wall))
	}
	a := median(answers)
	rows = append(rows, (&row{measure: "rye, `sleep 5` with a 1 s timeout: the answer, whole process", figure: secs(a),
		baseline: "the timeout 1.00 s + start-up " + ms(ours), ratio: a / (1 + ours)}).
		judge(a-1-ours, limit{max: 0.05, text: "≤ 50 ms after timeout + start-up"}))
	return rows, nil
}
