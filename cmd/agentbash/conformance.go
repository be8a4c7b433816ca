package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentbash/agentbash/conformance"
	"github.com/agentbash/agentbash/conformance/model"
	"github.com/agentbash/agentbash/conformance/target"
	"github.com/agentbash/agentbash/spec"
)

// toolMap is a repeatable -tool SPEC=TARGET flag.
type toolMap map[string]string

func (m toolMap) String() string { return fmt.Sprint(map[string]string(m)) }

func (m toolMap) Set(s string) error {
	from, to, ok := strings.Cut(s, "=")
	if !ok || from == "" || to == "" {
		return fmt.Errorf("want SPEC=TARGET, got %q", s)
	}
	m[from] = to
	return nil
}

// hostFiles is a repeatable -host-file PATH=TEMPLATE flag: the template file's text, written at PATH before
// each start of a host.
type hostFiles []model.File

func (f *hostFiles) String() string { return fmt.Sprint(len(*f)) }

func (f *hostFiles) Set(s string) error {
	path, tmpl, ok := strings.Cut(s, "=")
	if !ok || path == "" || tmpl == "" {
		return fmt.Errorf("want PATH=TEMPLATE, got %q", s)
	}
	b, err := os.ReadFile(tmpl)
	if err != nil {
		return err
	}
	*f = append(*f, model.File{Path: path, Content: string(b)})
	return nil
}

// cmdConformance checks a target against a spec. It prints the report (text, or JSON with -json) and exits
// 1 when a case failed, when a baseline entry is stale or when no case was sent; 2 on a usage error.
func cmdConformance(args []string, stdout, stderr io.Writer) int {
	flagArgs, argv, dashed := splitDashes(args)
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	junit := fs.String("junit", "", "also write the report as JUnit XML to `FILE`")
	verbose := fs.Bool("v", false, "print a line per case on stderr as it is judged")
	list := fs.Bool("list", false, "print the names of the cases (after -run and -skip) and exit")
	trusted := fs.Bool("trusted", false, "also send commands a policy blocks as written: only for a target known to check its policies before running anything")
	mcpStdio := fs.Bool("mcp", false, "the target is an MCP server over stdio (started per case in the case's workspace; {workspace} in its argv is replaced)")
	mcpHTTP := fs.String("mcp-http", "", "the target is the MCP server at this streamable HTTP `URL` (needs -workspace)")
	mcpSSE := fs.String("mcp-sse", "", "the target is the MCP server at this HTTP+SSE `URL` (needs -workspace)")
	workspace := fs.String("workspace", "", "the workspace `DIR` the MCP server at -mcp-http or -mcp-sse serves: emptied and set up before each case")
	run := fs.String("run", "", "run only the cases whose name or group matches `REGEXP`")
	skip := fs.String("skip", "", "leave out the cases whose name or group matches `REGEXP`")
	startup := fs.Duration("startup", 0, "`TIME` a target has to start (an MCP stdio server answering initialize, a model target's host asking the model), apart from each case's bound (default 2m)")
	var notes notifications
	fs.Var(&notes, "notify", "send the JSON-RPC notification `METHOD[=PARAMS-JSON]` to an MCP server right after initialize (repeatable; besides the spec's conformance.notifications)")
	deadline := fs.Duration("deadline", 0, "`TIME` the target has to answer each request (default: the case's bound plus 10s)")
	parallel := fs.Int("parallel", 1, "`N` cases run at once (a wire target then has several requests in flight)")
	timeScale := fs.Float64("time-scale", 1, "multiply every case's time bound by `F` (a slow or loaded machine)")
	baseline := fs.String("baseline", "", "the YAML `FILE` of expected failures, with their reasons")
	update := fs.Bool("update-baseline", false, "write the run's failures to the -baseline file (keeping known reasons) instead of failing on them")
	tools := toolMap{}
	fs.Var(tools, "tool", "the spec's tool and the target's name for it, as `SPEC=TARGET` (repeatable)")
	modelAPI := fs.String("model", "", "the target is a host CLI (after --) that reaches its shell tool through this model `API`: anthropic, openai-responses, openai-chat or gemini; the suite plays the model ({base_url}, {workspace} and {home} are replaced in its argv, leading NAME=VALUE words are its environment)")
	var files hostFiles
	fs.Var(&files, "host-file", "before each start of the -model host, write the text of the file TEMPLATE at PATH, placeholders replaced, given as `PATH=TEMPLATE` (a relative PATH is under {home}; repeatable)")
	perCase := fs.Bool("host-per-case", false, "start the -model host for each case, in the case's own workspace (default: one start carries case after case)")
	record := fs.String("record", "", "write every request of the -model host, the answer it got, and each tool call with its result (calls.jsonl) under `DIR`")
	exf := addExecutorFlags(fs) // the reference's: the target's own are on its command line
	pos, code, ok := conformanceCmd.parse(fs, flagArgs, stdout, stderr)
	if !ok {
		return code
	}
	urls := 0
	for _, u := range []string{*mcpHTTP, *mcpSSE} {
		if u != "" {
			urls++
		}
	}
	switch {
	case len(pos) == 0:
		return conformanceCmd.usageError(stderr, "name a variant or a spec file")
	case len(pos) > 1:
		return conformanceCmd.usageError(stderr, "unexpected argument %q: put the target's command after --", pos[1])
	case *list:
	case urls > 1 || (urls == 1 && (dashed || *mcpStdio)) || (*modelAPI != "" && (urls > 0 || *mcpStdio)):
		return conformanceCmd.usageError(stderr, "give one target: -- ARGV, -mcp -- ARGV, -model API -- HOST-ARGV, -mcp-http URL or -mcp-sse URL")
	case *modelAPI == "" && (len(files) > 0 || *perCase || *record != ""):
		return conformanceCmd.usageError(stderr, "-host-file, -host-per-case and -record are for a -model target")
	case urls == 1 && *workspace == "":
		return conformanceCmd.usageError(stderr, "-mcp-http and -mcp-sse need -workspace DIR, the directory the server serves")
	case urls == 0 && (!dashed || len(argv) == 0):
		return conformanceCmd.usageError(stderr, "give the target's command after --, or -mcp-http URL or -mcp-sse URL")
	case *update && *baseline == "":
		return conformanceCmd.usageError(stderr, "-update-baseline needs -baseline FILE")
	}
	var api model.API
	if *modelAPI != "" {
		a, err := model.ParseAPI(*modelAPI)
		if err != nil {
			return conformanceCmd.usageError(stderr, "-model: %v", err)
		}
		api = a
	}
	v, err := loadVariant(pos[0])
	if err != nil {
		return conformanceCmd.fail(stderr, err)
	}
	for from := range tools {
		if _, err := toolNamed(v, from); err != nil {
			return conformanceCmd.fail(stderr, usagef("-tool %s=%s: %v", from, tools[from], err))
		}
	}
	var opts []conformance.Option
	if *trusted {
		opts = append(opts, conformance.Trusted())
	}
	if *deadline > 0 {
		opts = append(opts, conformance.Deadline(*deadline))
	}
	if *parallel > 1 {
		opts = append(opts, conformance.Parallel(*parallel))
	}
	if *startup > 0 {
		opts = append(opts, conformance.StartupDeadline(*startup))
	}
	if *timeScale != 1 && *timeScale > 0 {
		opts = append(opts, conformance.TimeScale(*timeScale))
	}
	if len(tools) > 0 {
		opts = append(opts, conformance.ToolNames(tools))
	}
	for _, f := range []struct {
		flag, re string
		keep     bool
	}{{"-run", *run, true}, {"-skip", *skip, false}} {
		if f.re == "" {
			continue
		}
		re, err := regexp.Compile(f.re)
		if err != nil {
			fmt.Fprintf(stderr, "agentbash conformance: %s: %v\n", f.flag, err)
			return 2
		}
		match := func(c conformance.Case) bool {
			return re.MatchString(c.Name) || (c.Group != "" && re.MatchString(c.Group))
		}
		if f.keep {
			opts = append(opts, conformance.Filter(match))
		} else {
			opts = append(opts, conformance.Exclude(match))
		}
	}
	if *list {
		return listCases(v, opts, stdout, stderr)
	}
	xopts, closeX, err := exf.open()
	if err != nil {
		return conformanceCmd.fail(stderr, err)
	}
	defer closeX()
	if len(xopts) > 0 {
		opts = append(opts, conformance.Reference(xopts...))
	}
	var old *conformance.Baseline
	if *baseline != "" {
		old, err = conformance.LoadBaseline(*baseline)
		switch {
		case err == nil:
			if !*update {
				opts = append(opts, conformance.WithBaseline(old))
			}
		case *update && os.IsNotExist(err):
			old = nil
		default:
			fmt.Fprintln(stderr, "agentbash conformance:", err)
			return 2
		}
	}
	if *verbose {
		opts = append(opts, conformance.OnResult(func(r conformance.Result) {
			fmt.Fprintf(stderr, "%-5s %s (%s)\n", strings.ToUpper(string(r.Status)), r.Case, time.Duration(r.ElapsedMS)*time.Millisecond)
		}))
	}
	var target conformance.Target
	switch {
	case *mcpHTTP != "" || *mcpSSE != "":
		m := conformance.MCPHTTP(*mcpHTTP, *workspace)
		if *mcpSSE != "" {
			m = conformance.MCPSSE(*mcpSSE, *workspace)
		}
		m.Notifications = append(specNotifications(v), notes...)
		target = m
	case api != "":
		m := conformance.Model(api, argv...)
		m.Files, m.PerCase, m.Record = files, *perCase, *record
		for _, t := range v.Tools {
			name := t.Name
			if to, ok := tools[name]; ok {
				name = to
			}
			m.Tools = append(m.Tools, name)
		}
		target = m
	case *mcpStdio:
		m := conformance.MCP(argv...)
		m.Stderr = &linePrefixer{w: stderr, prefix: "target stderr | "}
		m.Notifications = append(specNotifications(v), notes...)
		target = m
	default:
		w := conformance.Wire(argv...)
		w.Stderr = &linePrefixer{w: stderr, prefix: "target stderr | "}
		target = w
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	report, err := conformance.Check(ctx, v, target, opts...)
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	if *asJSON {
		b, err := report.JSON()
		if err != nil {
			fmt.Fprintln(stderr, "agentbash:", err)
			return 1
		}
		stdout.Write(b)
	} else {
		io.WriteString(stdout, report.Summary())
	}
	if *junit != "" {
		b, err := conformance.JUnit(report)
		if err == nil {
			err = os.WriteFile(*junit, b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "agentbash conformance: -junit:", err)
			return 1
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "agentbash conformance: interrupted after %s\n", time.Since(start).Round(time.Millisecond))
		return 1
	}
	if report.Ran() == 0 {
		fmt.Fprintln(stderr, "agentbash conformance: no case was sent to the target (check -run, -skip and -trusted)")
		if !*asJSON {
			fmt.Fprintln(stdout, "the run fails: no case was sent to the target")
		}
		return 1
	}
	if *update {
		b, err := conformance.UpdateBaseline(old, report).YAML()
		if err == nil {
			err = os.WriteFile(*baseline, b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "agentbash conformance: -update-baseline:", err)
			return 1
		}
		fmt.Fprintf(stderr, "agentbash conformance: wrote %s\n", *baseline)
		return 0
	}
	if why := report.Why(); len(why) > 0 {
		return 1
	}
	return 0
}

// notifications is a repeatable -notify METHOD[=PARAMS-JSON] flag.
type notifications []target.Notification

func (n *notifications) String() string { return fmt.Sprint(len(*n)) }

func (n *notifications) Set(s string) error {
	method, params, hasParams := strings.Cut(s, "=")
	if method == "" {
		return fmt.Errorf("want METHOD or METHOD=PARAMS-JSON, got %q", s)
	}
	note := target.Notification{Method: method}
	if hasParams {
		if !json.Valid([]byte(params)) {
			return fmt.Errorf("the params of %s are not JSON: %s", method, params)
		}
		note.Params = json.RawMessage(params)
	}
	*n = append(*n, note)
	return nil
}

// specNotifications are the notifications the spec's conformance block names.
func specNotifications(v *spec.Variant) []target.Notification {
	var out []target.Notification
	if v.Conformance == nil {
		return nil
	}
	for _, n := range v.Conformance.Notifications {
		var params json.RawMessage
		if n.Params != nil {
			params, _ = json.Marshal(n.Params)
		}
		out = append(out, target.Notification{Method: n.Method, Params: params})
	}
	return out
}

// linePrefixer writes each line with a prefix (the target's stderr, told apart from the suite's lines).
type linePrefixer struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	mid    bool // within a line
}

func (l *linePrefixer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b []byte
	for _, c := range p {
		if !l.mid {
			b = append(b, l.prefix...)
			l.mid = true
		}
		b = append(b, c)
		if c == '\n' {
			l.mid = false
		}
	}
	if _, err := l.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// listCases prints the names of the cases a run would have, one per line (a skipped case with its reason).
func listCases(v *spec.Variant, opts []conformance.Option, stdout, stderr io.Writer) int {
	s, err := conformance.Open(context.Background(), v, conformance.InProcess(v), opts...)
	if err != nil {
		fmt.Fprintln(stderr, "agentbash:", err)
		return 1
	}
	defer s.Close()
	for _, c := range s.Cases() {
		if c.Skip != "" {
			fmt.Fprintf(stdout, "%s\t(skipped: %s)\n", c.Name, c.Skip)
			continue
		}
		fmt.Fprintln(stdout, c.Name)
	}
	if len(s.Cases()) == 0 {
		fmt.Fprintln(stderr, "agentbash conformance: no case matches")
		return 1
	}
	return 0
}
