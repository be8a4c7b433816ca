package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbash/agentbash/internal/proctest"
	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/variants"
)

func mustSpec(t testing.TB, id string) *spec.Variant {
	t.Helper()
	v, err := variants.Spec(id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// marked returns runtime options whose commands carry a unique marker in their environment, and a function
// listing the live processes that carry it (zombies are not alive).
func marked(t testing.TB) ([]runtime.Option, func() []string) {
	marker := fmt.Sprintf("AGENTBASH_SERVE_TEST=%s-%d", strings.ReplaceAll(t.Name(), "/", "_"), time.Now().UnixNano())
	return []runtime.Option{runtime.WithEnv(append(os.Environ(), marker))}, func() []string { return proctest.WithEnv(marker) }
}

// sleeping reports whether one of the processes is a sleep.
func sleeping(procs []string) bool {
	for _, p := range procs {
		if strings.Contains(p, "sleep") {
			return true
		}
	}
	return false
}

// waitFor polls cond every 10 ms for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// wireClient drives ServeWire over pipes: it sends requests and collects answers by id.
type wireClient struct {
	t       testing.TB
	in      *io.PipeWriter
	mu      sync.Mutex
	answers map[string]chan map[string]json.RawMessage
	nulls   chan map[string]json.RawMessage
	done    chan struct{}
	err     error
}

func startWire(t testing.TB, b Backend, o *WireOptions) *wireClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &wireClient{t: t, in: inW, answers: map[string]chan map[string]json.RawMessage{}, nulls: make(chan map[string]json.RawMessage, 16), done: make(chan struct{})}
	go func() {
		c.err = ServeWire(context.Background(), b, inR, outW, o)
		outW.Close()
		close(c.done)
	}()
	go func() {
		r := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				var m map[string]json.RawMessage
				if jerr := json.Unmarshal(line, &m); jerr != nil {
					t.Errorf("answer is not JSON: %q", line)
				} else if string(m["id"]) == "null" {
					c.nulls <- m
				} else {
					c.ch(string(m["id"])) <- m
				}
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Error("ServeWire did not return 10 s after EOF")
		}
	})
	return c
}

func (c *wireClient) ch(id string) chan map[string]json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.answers[id]
	if !ok {
		ch = make(chan map[string]json.RawMessage, 1)
		c.answers[id] = ch
	}
	return ch
}

func (c *wireClient) send(id int, tool, ws, params string) {
	line, _ := json.Marshal(map[string]any{"id": id, "tool": tool, "params": json.RawMessage(params), "workspace": ws})
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

func (c *wireClient) answer(id int) map[string]json.RawMessage {
	c.t.Helper()
	select {
	case m := <-c.ch(fmt.Sprint(id)):
		return m
	case <-time.After(20 * time.Second):
		c.t.Fatalf("no answer to request %d", id)
		return nil
	}
}

func TestServeWire(t *testing.T) {
	v := mustSpec(t, "codegensandbox")
	opts, alive := marked(t)
	pool := NewPool(v, PoolOptions{Runtime: opts})
	ws1, ws2 := t.TempDir(), t.TempDir()
	c := startWire(t, pool, nil)
	c.send(1, "Bash", ws1, `{"command":"pwd","description":"d"}`)
	c.in.Write([]byte("\n   \n{not json\n"))
	c.send(2, "Bash", ws2, `{"command":"pwd","description":"d"}`)
	c.send(3, "Bash", ws1, `{"command":"","description":"d"}`)
	c.send(4, "Nope", ws1, `{}`)
	c.send(5, "Bash", ws1, `{"command":"sleep 30","description":"d","run_in_background":true}`)
	c.send(6, "Bash", "relative/dir", `{"command":"pwd","description":"d"}`)
	// The last request has no newline: it is read at EOF (and answered, though cancelled, when it runs long).
	line, _ := json.Marshal(map[string]any{"id": "seven", "tool": "Bash", "params": map[string]string{"command": "echo '<&>'", "description": "d"}, "workspace": ws2})
	for _, tc := range []struct {
		id   int
		want string
	}{
		{1, `{"id":1,"result":"` + ws1 + `\n"}`},
		{2, `{"id":2,"result":"` + ws2 + `\n"}`},
		{3, `{"id":3,"error":{"type":"ToolError","message":"command is required"}}`},
		{4, `{"id":4,"error":{"type":"Error","message":"tool 'Nope' not found: tool not found"}}`},
		{6, `{"id":6,"error":{"type":"Error","message":"serve: the workspace \"relative/dir\" is not an absolute path"}}`},
	} {
		got, _ := json.Marshal(c.answer(tc.id))
		var want map[string]json.RawMessage
		_ = json.Unmarshal([]byte(tc.want), &want)
		wantB, _ := json.Marshal(want)
		if string(got) != string(wantB) {
			t.Errorf("answer %d =\n%s\nwant\n%s", tc.id, got, wantB)
		}
	}
	if res := string(c.answer(5)["result"]); !strings.HasPrefix(res, `"shell_id: `) {
		t.Errorf("background answer: %s", res)
	}
	select {
	case m := <-c.nulls:
		if !strings.Contains(string(m["error"]), `"type":"ProtocolError"`) {
			t.Errorf("bad line answered with %v", m)
		}
	case <-time.After(5 * time.Second):
		t.Error("a line that is not JSON got no answer")
	}
	c.in.Write(line)
	c.in.Close()
	m := c.ch(`"seven"`)
	select {
	case a := <-m:
		if r := string(a["result"]); r != `"<&>\n"` && !strings.Contains(string(a["error"]), "Cancelled") {
			t.Errorf("last answer: %v", a)
		}
	case <-time.After(10 * time.Second):
		t.Error("the last line got no answer")
	}
	<-c.done
	// The pool still runs the background sleep; closing it kills and reaps it. Polled: the shell was
	// started milliseconds ago, and its environment reads empty while it executes bash, then sleep.
	if !waitFor(5*time.Second, func() bool { return sleeping(alive()) }) {
		t.Error("the background sleep is not running before the pool is closed")
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if left := alive(); len(left) > 0 {
		t.Errorf("left running after Close: %v", left)
	}
}

// Four calls of a second run at once: answered in much less than the four seconds they take in turn.
func TestServeWireConcurrent(t *testing.T) {
	v := mustSpec(t, "rye")
	pool := NewPool(v, PoolOptions{})
	defer pool.Close()
	c := startWire(t, pool, nil)
	ws := t.TempDir()
	start := time.Now()
	for i := 1; i <= 4; i++ {
		c.send(i, "bash", ws, fmt.Sprintf(`{"command":"sleep 1; echo %d"}`, i))
	}
	for i := 4; i >= 1; i-- {
		if r := string(c.answer(i)["result"]); !strings.Contains(r, fmt.Sprintf(`"stdout":"%d\n"`, i)) {
			t.Errorf("answer %d: %s", i, r)
		}
	}
	// In turn they take 4 s, two at a time 2 s: under 2.5 s they ran together (the benchmark has the figure).
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("four concurrent sleep 1 took %s", d)
	}
}

// BenchmarkFourConcurrentSleeps reports how long four concurrent `sleep 1` calls take over the wire
// protocol; it fails past 1.5 s.
func BenchmarkFourConcurrentSleeps(b *testing.B) {
	v := mustSpec(b, "rye")
	pool := NewPool(v, PoolOptions{})
	defer pool.Close()
	c := startWire(b, pool, nil)
	ws := b.TempDir()
	id := 0
	for b.Loop() {
		start := time.Now()
		for range 4 {
			id++
			c.send(id, "bash", ws, `{"command":"sleep 1"}`)
		}
		for i := id - 3; i <= id; i++ {
			c.answer(i)
		}
		if d := time.Since(start); d > 1500*time.Millisecond {
			b.Errorf("four concurrent sleep 1 took %s", d)
		}
	}
}

// At the end of the input, a call in flight is cancelled: its process group is killed, and it is answered.
func TestServeWireEOFCancels(t *testing.T) {
	v := mustSpec(t, "tunacode")
	opts, alive := marked(t)
	pool := NewPool(v, PoolOptions{Runtime: opts})
	defer pool.Close()
	c := startWire(t, pool, nil)
	c.send(1, "bash", t.TempDir(), `{"command":"sleep 30","timeout":300}`)
	if !waitFor(5*time.Second, func() bool { return sleeping(alive()) }) {
		t.Fatalf("the sleep did not start: %v", alive())
	}
	start := time.Now()
	c.in.Close()
	a := c.answer(1)
	if !strings.Contains(string(a["error"]), `"type":"Cancelled"`) || !strings.Contains(string(a["error"]), "the input ended") {
		t.Errorf("answer: %v", a)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancelling took %s", d)
	}
	if !waitFor(2*time.Second, func() bool { return len(alive()) == 0 }) {
		t.Errorf("left running: %v", alive())
	}
}

// endless is an io.Reader of n bytes of 'x' then a newline, made as it is read.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n < 0 {
		return 0, io.EOF
	}
	if e.n == 0 {
		p[0] = '\n'
		e.n = -1
		return 1, nil
	}
	k := min(int64(len(p)), e.n)
	for i := range k {
		p[i] = 'x'
	}
	e.n -= k
	return int(k), nil
}

// A 100 MiB request line is answered with an error (with its id, which it starts with) without holding it,
// and the next request is served.
func TestServeWireLongLine(t *testing.T) {
	v := mustSpec(t, "rye")
	pool := NewPool(v, PoolOptions{})
	defer pool.Close()
	ws := t.TempDir()
	head := `{"id":7,"tool":"bash","workspace":"` + ws + `","params":{"command":"echo `
	next := `{"id":8,"tool":"bash","workspace":"` + ws + `","params":{"command":"echo next"}}` + "\n"
	in := io.MultiReader(strings.NewReader(head), &endless{n: 100 << 20}, strings.NewReader(next))
	pr, pw := io.Pipe()
	go func() {
		io.Copy(pw, in)
		// Keep the input open until both answers are in.
	}()
	var out bytes.Buffer
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	})
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	done := make(chan error, 1)
	go func() { done <- ServeWire(context.Background(), pool, pr, w, nil) }()
	ok := waitFor(60*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Count(out.String(), "\n") >= 2
	})
	goruntime.ReadMemStats(&after)
	pw.Close()
	<-done
	if !ok {
		t.Fatalf("answers: %q", out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := fmt.Sprintf(`{"id":7,"error":{"type":"ProtocolError","message":"the request line is %d bytes, over the limit of %d"}}`, len(head)+100<<20, DefaultMaxLine)
	if lines[0] != want {
		t.Errorf("first answer:\n%s\nwant\n%s", lines[0], want)
	}
	if !strings.Contains(lines[1], `"id":8,"result":{`) || !strings.Contains(lines[1], `"stdout":"next\n"`) {
		t.Errorf("second answer: %s", lines[1])
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("reading a 100 MiB line allocated %d MiB", alloc>>20)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestDefaultMaxLineBoundary: with the default limit a line of exactly DefaultMaxLine bytes is read, one
// byte more is reported as over the limit.
func TestDefaultMaxLineBoundary(t *testing.T) {
	for _, n := range []int{DefaultMaxLine - 1, DefaultMaxLine, DefaultMaxLine + 1} {
		lr := newLineReader(strings.NewReader(strings.Repeat("x", n)+"\n"), 0)
		line, long, _ := lr.next()
		if over := n > DefaultMaxLine; (long != nil) != over || (!over && len(line) != n) {
			t.Errorf("a line of %d bytes: read %d bytes, over the limit %v", n, len(line), long != nil)
		}
	}
}

func TestLineReader(t *testing.T) {
	for _, tc := range []struct {
		in    string
		max   int
		lines []string // "!N" for a line over the limit of N bytes
	}{
		{"a\nb\r\n\nc", 4, []string{"a", "b", "", "c"}},
		{"abcd\nabcde\nab\n", 4, []string{"abcd", "!5", "ab"}},
		{"abcdefgh", 4, []string{"!8"}},
		{"", 4, nil},
	} {
		lr := newLineReader(strings.NewReader(tc.in), tc.max)
		var got []string
		for {
			line, long, err := lr.next()
			switch {
			case long != nil:
				got = append(got, fmt.Sprintf("!%d", long.size))
			case line != nil || err == nil:
				got = append(got, string(line))
			}
			if err != nil {
				break
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.lines) {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.lines)
		}
	}
	for _, tc := range []struct{ head, id string }{
		{`{"id": 7, "tool"`, "7"},
		{`{"jsonrpc":"2.0","id":"x-1","method"`, `"x-1"`},
		{`{"tool":"bash","id":3,`, "3"},
		{`{"params":{"command":"xxxx`, ""},
		{`not json`, ""},
		{`{"id":{"a":1}}`, ""},
	} {
		if got := string(idOf([]byte(tc.head))); got != tc.id {
			t.Errorf("idOf(%q) = %q, want %q", tc.head, got, tc.id)
		}
	}
}

// The pool keeps at most MaxEngines engines, closing the least recently used one that runs no background
// process first, and closes idle engines.
func TestPool(t *testing.T) {
	v := mustSpec(t, "codegensandbox")
	opts, alive := marked(t)
	pool := NewPool(v, PoolOptions{Runtime: opts, MaxEngines: 2, IdleTimeout: -1})
	defer pool.Close()
	ctx := context.Background()
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	call := func(ws, params string) string {
		tool := "Bash"
		if strings.Contains(params, "shell_id") {
			tool = "BashOutput"
		}
		res, err := pool.Call(ctx, ws, tool, json.RawMessage(params))
		if err != nil {
			t.Fatal(err)
		}
		return string(res)
	}
	// a runs a background sleep; b is used after it; c comes third: b (quiet) goes, though a is older.
	id := call(a, `{"command":"sleep 30","description":"d","run_in_background":true}`)
	call(b, `{"command":"true","description":"d"}`)
	call(c, `{"command":"true","description":"d"}`)
	if n := pool.Len(); n != 2 {
		t.Errorf("%d engines open, want 2", n)
	}
	shellID := strings.TrimSpace(strings.SplitN(strings.TrimPrefix(strings.Trim(id, `"`), "shell_id: "), `\n`, 2)[0])
	if out := call(a, `{"shell_id":"`+shellID+`"}`); strings.Contains(out, "unknown") {
		t.Errorf("the engine running a background shell was closed: %s", out)
	}
	if len(alive()) == 0 {
		t.Error("the background sleep is not running")
	}
	// A fourth workspace: a was just used, c is the least recently used and quiet, so c goes.
	call(t.TempDir(), `{"command":"true","description":"d"}`)
	if len(alive()) == 0 {
		t.Error("the background sleep was killed though a quiet engine could be closed")
	}

	idle := NewPool(v, PoolOptions{Runtime: opts, IdleTimeout: 50 * time.Millisecond})
	defer idle.Close()
	if _, err := idle.Call(ctx, a, "Bash", json.RawMessage(`{"command":"true","description":"d"}`)); err != nil {
		t.Fatal(err)
	}
	if !waitFor(5*time.Second, func() bool { return idle.Len() == 0 }) {
		t.Errorf("an idle engine was not closed: %d open", idle.Len())
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(2*time.Second, func() bool { return len(alive()) == 0 }) {
		t.Errorf("left running after Close: %v", alive())
	}
	if _, err := pool.Call(ctx, a, "Bash", json.RawMessage(`{}`)); err != ErrClosed {
		t.Errorf("a call on a closed pool: %v", err)
	}
}

// TestDefaultMaxLineIsDocumented: the line limit is the one the protocol document gives third parties.
func TestDefaultMaxLineIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../conformance/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("length limit (%d MiB)", DefaultMaxLine>>20)
	if DefaultMaxLine%(1<<20) != 0 || !strings.Contains(strings.Join(strings.Fields(string(doc)), " "), want) {
		t.Errorf("PROTOCOL.md does not give the limit as %q (DefaultMaxLine is %d bytes)", want, DefaultMaxLine)
	}
}
