package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"

	"github.com/agentbash/agentbash/internal/dockerimage"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/runtime/proc/docker"
	"github.com/agentbash/agentbash/variants"
)

// dockerID is the variant the container rows call.
const dockerID = "codegensandbox"

// containers measures the Docker executor on the local engine (busybox-static and bash-static, the
// workspace bound): a call in a running container against the same call on this machine (target ≤ +2 ms:
// the agent's stream adds a round trip, not a process), a container's first call (its start-up: create,
// the agent's start, the call), and 32 workspaces' containers started at once, then a call in each in
// flight at once. Without an engine (or with $AGENTBASH_DOCKER off) the rows say so and have no target.
func containers(e *env) ([]*row, error) {
	ctx := context.Background()
	if why := dockerimage.Off(); why != "" {
		return []*row{{measure: "a call in a running container", figure: "—", baseline: why}}, nil
	}
	cli, err := client.New(client.FromEnv)
	if err == nil {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = cli.Ping(pctx, client.PingOptions{})
		cancel()
	}
	if err != nil {
		return []*row{{measure: "a call in a running container", figure: "—", baseline: "no Docker Engine (" + err.Error() + "): .ci/docker starts one"}}, nil
	}
	defer cli.Close()
	image, err := dockerimage.Ensure(ctx, cli, dockerimage.Box)
	var missing *dockerimage.MissingError
	if errors.As(err, &missing) {
		return []*row{{measure: "a call in a running container", figure: "—", baseline: err.Error()}}, nil
	}
	if err != nil {
		return nil, err
	}
	agent, err := dockerimage.Agent(e.dir)
	if err != nil {
		return nil, err
	}
	x, err := docker.New(docker.Config{Image: image, Agent: agent})
	if err != nil {
		return nil, err
	}
	defer x.Close()
	v, err := variants.Spec(dockerID)
	if err != nil {
		return nil, err
	}
	t := &v.Tools[0]
	params, _ := json.Marshal(commandParams(t, "true"))
	newEngine := func(ws string, opts ...runtime.Option) (*runtime.Engine, error) {
		return runtime.New(v, append([]runtime.Option{runtime.WithWorkspace(ws)}, opts...)...)
	}
	timed := func(eng *runtime.Engine) (float64, error) {
		start := time.Now()
		_, err := eng.Call(ctx, t.Name, params)
		return seconds(time.Since(start)), err
	}

	// A call in a running container against a local one, in blocks interleaved.
	local, err := newEngine(e.workspace)
	if err != nil {
		return nil, err
	}
	defer local.Close()
	inBox, err := newEngine(e.workspace, runtime.WithExecutor(x))
	if err != nil {
		return nil, err
	}
	defer inBox.Close()
	if _, err := timed(inBox); err != nil { // the container's start
		return nil, err
	}
	block := func(eng *runtime.Engine) func() (float64, error) {
		return func() (float64, error) {
			var sum float64
			for range e.callBlock {
				d, err := timed(eng)
				if err != nil {
					return 0, err
				}
				sum += d
			}
			return sum / float64(e.callBlock), nil
		}
	}
	meds, err := interleave(e.callRounds, block(inBox), block(local))
	inBox.Close()
	local.Close()
	if err != nil {
		return nil, err
	}
	rows := []*row{(&row{measure: dockerID + ": `true` in a running container", figure: ms(meds[0]), baseline: "on this machine " + ms(meds[1]), ratio: meds[0] / meds[1]}).
		judge((meds[0]-meds[1])*1e3, limit{max: 2, text: "≤ +2 ms"})}

	// A container's first call: a fresh engine (workspace) each time.
	var firsts []float64
	for i := range max(e.callRounds, 5) {
		ws, err := os.MkdirTemp(e.dir, fmt.Sprintf("first-%d-", i))
		if err != nil {
			return nil, err
		}
		eng, err := newEngine(ws, runtime.WithExecutor(x))
		if err != nil {
			return nil, err
		}
		d, err := timed(eng)
		eng.Close()
		if err != nil {
			return nil, err
		}
		firsts = append(firsts, d)
	}
	rows = append(rows, &row{measure: dockerID + ": a container's first call (create, the agent's start, `true`)", figure: ms(median(firsts))})

	// 32 workspaces at once: their containers started together, then a call in each in flight at once,
	// against 32 local calls in flight.
	const n = 32
	engines := make([]*runtime.Engine, n)
	dirs := make([]string, n)
	for i := range engines {
		if dirs[i], err = os.MkdirTemp(e.dir, fmt.Sprintf("ws-%d-", i)); err != nil {
			return nil, err
		}
		if engines[i], err = newEngine(dirs[i], runtime.WithExecutor(x)); err != nil {
			return nil, err
		}
	}
	all := func(engs []*runtime.Engine) (float64, error) {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make([]error, len(engs))
		for i, eng := range engs {
			wg.Go(func() { _, errs[i] = timed(eng) })
		}
		wg.Wait()
		return seconds(time.Since(start)), errors.Join(errs...)
	}
	started, err := all(engines)
	if err != nil {
		return nil, err
	}
	locals := make([]*runtime.Engine, n)
	for i := range locals {
		if locals[i], err = newEngine(dirs[i]); err != nil {
			return nil, err
		}
	}
	meds, err = interleave(e.callRounds, func() (float64, error) { return all(engines) }, func() (float64, error) { return all(locals) })
	for _, eng := range append(engines, locals...) {
		eng.Close()
	}
	if err != nil {
		return nil, err
	}
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", docker.LabelWorkspace)})
	if err != nil {
		return nil, err
	}
	var left []string
	for _, c := range list.Items {
		if strings.HasPrefix(c.Labels[docker.LabelWorkspace], e.dir+"/") {
			left = append(left, c.ID)
		}
	}
	rows = append(rows,
		&row{measure: fmt.Sprintf("%d workspaces' containers started at once (each one's first call)", n), figure: ms(started)},
		&row{measure: fmt.Sprintf("a call in each of %d running containers, in flight at once", n), figure: ms(meds[0]), baseline: "on this machine " + ms(meds[1]), ratio: meds[0] / meds[1]},
		(&row{measure: "containers left after the engines closed", figure: fmt.Sprint(len(left))}).judge(float64(len(left)), limit{max: 0, text: "0"}))
	return rows, nil
}
