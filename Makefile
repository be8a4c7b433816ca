# agentbash: `make test` is what CI runs (through .ci/run).
SHELL := /bin/bash
GO ?= go
GENERATED = find . -path ./.git -prune -o \( -name '*_gen.go' -o -path ./spec/schema.json \) -type f -print

.PHONY: test test-norace quick fmt-check vet check generate lint bench bench-quick bench-go bench-smoke fuzz soak mutate hosts thirdparty desktop-commander docker

test: fmt-check vet check
	$(GO) test -race -count=1 ./...

# test-norace runs, without the race detector, the tests that it scales down or skips: memory bounds at full
# size (the detector multiplies memory and time), the sandbox's 50 escapes of each form and the
# conformance suite of every variant sandboxed, in process and served (a race-built sandbox helper takes
# about a second to start), and the escapes hidden from the run marker, 10 of each form through a cgroup
# per run (runtime/proc, and through run, serve and background shells). The conformance suite of every
# variant in containers (TestDockerBuiltins) runs in `make docker`.
test-norace:
	$(GO) test -count=1 -run 'Memory|MaxKeep|WriteAllocs|HugeLimit|ServeGrowth|SandboxNoSurvivor|SandboxedBuiltins|ConformanceCommandSandboxed|CgroupNoSurvivors|CgroupNonRootHost|ContainHiddenEscapes|ContainBackgroundShells' ./runtime/textcap ./runtime ./runtime/proc ./cmd/agentbash ./conformance

# docker runs what needs a Docker Engine, in a step of its own (CI's other steps run with
# AGENTBASH_DOCKER=off, which skips it there): the Docker executor's tests, the conformance suite of every
# variant in containers (locally, and two over TCP), the CLI's -executor docker, README's "Run commands in
# containers", and `make bench`'s container rows with fewer rounds. It first starts the engines (.ci/docker:
# docker.io installed when missing, dockerd started when `docker info` fails, a second engine on TCP);
# where none can be started, the tests skip naming what is missing and the target does not fail. Without
# AGENTBASH_DOCKER=off, `make test` runs the same tests whenever an engine answers.
docker:
	@if out=$$(bash .ci/docker start); then export $$(echo "$$out" | grep '^AGENTBASH_DOCKER_TCP='); \
	else echo "docker: no Docker Engine could be started: the tests that need one skip"; fi; \
	unset AGENTBASH_DOCKER; set -e; \
	$(GO) test -race -count=1 ./runtime/proc/docker; \
	$(GO) test -race -count=1 -run 'Docker|Executor' -skip 'DockerBuiltins' ./conformance ./cmd/agentbash; \
	$(GO) test -count=1 -run 'DockerBuiltins|^TestREADME$$' ./conformance ./docs; \
	$(GO) run ./internal/benchtable -quick -run containers $(BENCHFLAGS)

# quick is a first check: every package's tests without the race detector or fuzzing; -short leaves out only
# the tests that run the go command to compile, and serve's 10,000-request growth test.
quick:
	$(GO) test -count=1 -short ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files -co --exclude-standard '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# check regenerates everything and fails if any generated file changed (or appeared): generated code is
# checked in and must be fresh.
check:
	@before=$$($(GENERATED) | sort | xargs -r sha256sum); \
	$(GO) generate ./... || exit 1; \
	after=$$($(GENERATED) | sort | xargs -r sha256sum); \
	if [ "$$before" != "$$after" ]; then \
		echo "stale generated files (run 'make generate' and commit):"; \
		diff <(echo "$$before") <(echo "$$after") | grep '^[<>]' | awk '{print $$3}' | sort -u; \
		exit 1; \
	fi; echo "generated files are fresh"

generate:
	$(GO) generate ./...

lint:
	$(GO) run honnef.co/go/tools/cmd/staticcheck ./...

# bench measures agentbash against baselines measured in the same run (start-up, one call, 1 GiB of
# output through each variant, serve's concurrency, every policy engine and shell shape, the conformance
# suite), prints one table and writes it to BENCHMARKS.md; it fails when a figure misses its target.
bench:
	$(GO) run ./internal/benchtable -write BENCHMARKS.md

# bench-quick measures the same targets with fewer rounds; it writes nothing. CI runs it with
# BENCHFLAGS=-timing-advisory: on a shared machine a missed time target is reported, not failed; a missed
# memory bound or a missing figure still fails.
bench-quick:
	$(GO) run ./internal/benchtable -quick $(BENCHFLAGS)

# bench-go runs every `go test` benchmark of the packages (the figures a change to one package moves).
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# bench-smoke runs every `go test` benchmark once (CI): a benchmark that no longer runs fails.
bench-smoke:
	$(GO) test -count=1 -run '^$$' -bench . -benchtime 1x ./...

# A brief run of every fuzz target (CI). The budget is a count of executions, not a duration: with a
# duration, Go 1.26's fuzz coordinator can fail a healthy target with "context deadline exceeded" as the
# time runs out (go.dev/issue/75804, fixed in Go 1.27); a count has no deadline to race.
FUZZ_EXECS ?= 5000x
# Targets that start processes in every execution (tens of milliseconds each) get fewer executions.
FUZZ_SLOW ?= FuzzTimeoutKills
FUZZ_SLOW_EXECS ?= 500x
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			n=$(FUZZ_EXECS); case " $(FUZZ_SLOW) " in *" $$f "*) n=$(FUZZ_SLOW_EXECS);; esac; \
			echo "fuzz $$pkg $$f ($$n)"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $$n $$pkg || exit 1; \
		done; \
	done

# soak runs 2,000 mixed calls (timeouts, cancels, background shells, escapes) across the built-in variants
# under the race detector and prints the figures: outcomes, and goroutines, descriptors and processes
# before, at peak and after (CI runs the same test with 300 calls as part of make test).
SOAK_CALLS ?= 2000
soak:
	AGENTBASH_SOAK_CALLS=$(SOAK_CALLS) $(GO) test -race -count=1 -timeout 30m -run '^TestSoak$$' -v ./runtime/

# hosts checks the shell tools of real agent CLIs (conformance/hosts/hosts.yaml: the pinned npm packages,
# installed into $(HOSTS_CACHE)) against their specs, the suite playing the model, and prints a table per
# host; a host whose package npm cannot install is skipped with the reason. A case that fails unexpectedly
# is run once more: one that then passes is reported as flaky and does not fail the run. HOSTSFLAGS: -host
# NAME, -run REGEXP, -record DIR, -retries N (0: no second run), -v.
HOSTS_CACHE ?= $(or $(AGENTBASH_HOSTS_CACHE),$(HOME)/.cache/agentbash/hosts)
hosts:
	$(GO) run ./conformance/hosts -cache $(HOSTS_CACHE) $(HOSTSFLAGS)

# thirdparty checks third-party MCP servers published on npm (conformance/examples/thirdparty.yaml: the
# pinned packages, installed with --ignore-scripts into $(THIRDPARTY_CACHE), each with its spec and
# baseline in conformance/examples/) and prints a table; it fails on an unexpected failure, a stale
# baseline entry, or a process left behind (looked for in /proc). THIRDPARTYFLAGS: -server NAME, -v.
THIRDPARTY_CACHE ?= $(or $(AGENTBASH_THIRDPARTY_CACHE),$(HOME)/.cache/agentbash/thirdparty)
thirdparty:
	$(GO) run ./conformance/thirdparty -cache $(THIRDPARTY_CACHE) $(THIRDPARTYFLAGS)

# desktop-commander checks npm @wonderwhy-er/desktop-commander's process tools as thirdparty checks its
# servers (conformance/examples/desktop-commander: the spec and the baseline of its upstream faults); about
# 4 minutes, so not in CI.
desktop-commander:
	$(GO) run ./conformance/thirdparty -cache $(THIRDPARTY_CACHE) -server desktop-commander $(THIRDPARTYFLAGS)

# mutate applies a fixed list of small wrong changes (internal/mutate/mutants.go) one at a time to a copy of
# the tree, runs the owning packages' tests for each and prints the mutation score (not in CI: minutes).
mutate:
	$(GO) run ./internal/mutate
