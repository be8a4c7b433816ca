// Command mytarget is an implementation of examples/myshell/myshell.yaml's contract written by hand, in
// plain Go (os/exec, no agentbash runtime), as another project would write its own Bash tool. It speaks the
// conformance wire protocol (conformance/PROTOCOL.md): JSON Lines requests on stdin, answers on stdout.
// conformance_test.go checks it against the spec with conformancetest.Run; from the command line:
//
//	go build -o mytarget ./examples/mytarget
//	agentbash conformance examples/myshell/myshell.yaml -- ./mytarget
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
	"unicode/utf8"
)

func main() {
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mytarget:", err)
		os.Exit(1)
	}
}

// request and answer are the wire protocol's lines.
type request struct {
	ID        json.RawMessage `json:"id"`
	Tool      string          `json:"tool"`
	Params    json.RawMessage `json:"params"`
	Workspace string          `json:"workspace"`
}

type answer struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result,omitempty"`
	Error  *toolError      `json:"error,omitempty"`
}

type toolError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// result is the tool's JSON result: the same fields in the exit and timeout cases.
type result struct {
	OK     bool   `json:"ok"`
	Code   int    `json:"code"`
	Output string `json:"output"`
}

// serve answers one request at a time, in order, until the end of its input.
func serve(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var req request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "mytarget: skipping a line that is not a request:", err)
			continue
		}
		a := answer{ID: req.ID}
		if req.Tool != "shell" {
			a.Error = &toolError{"Error", "unknown tool " + strconv.Quote(req.Tool)}
		} else if res, err := shell(req.Params, req.Workspace); err != nil {
			a.Error = err
		} else {
			a.Result = res
		}
		if err := enc.Encode(a); err != nil {
			return err
		}
	}
	return sc.Err()
}

func invalid(msg string) *toolError { return &toolError{"ValidationError", msg} }

// shell is the tool: check the parameters, run /bin/sh -c in the workspace, kill its process group at the
// timeout, and shape the output as the contract says.
func shell(raw json.RawMessage, workspace string) (*result, *toolError) {
	var params map[string]json.RawMessage
	if err := json.Unmarshal(raw, &params); err != nil {
		params = nil // not an object: every parameter is missing
	}
	var cmd string
	c, ok := params["cmd"]
	if !ok || string(c) == "null" {
		return nil, invalid("invalid parameter cmd: is required")
	}
	if json.Unmarshal(c, &cmd) != nil {
		return nil, invalid("invalid parameter cmd: must be a string")
	}
	timeout := 30
	if t, ok := params["timeout_s"]; ok && string(t) != "null" {
		var f float64
		if json.Unmarshal(t, &f) != nil || f != float64(int(f)) {
			return nil, invalid("invalid parameter timeout_s: must be an integer")
		}
		timeout = int(f) // 0 or less: expired at once
	}

	// One pipe for stdout and stderr (capture: combined), handed to the shell as a file, so that waiting
	// for the shell does not wait for a background child that holds the pipe open.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, &toolError{"OSError", err.Error()}
	}
	sh := exec.Command("/bin/sh", "-c", cmd)
	sh.Dir = workspace
	sh.Stdout, sh.Stderr = w, w // stdin: /dev/null
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sh.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, &toolError{"OSError", err.Error()}
	}
	w.Close()
	var output bytes.Buffer
	read := make(chan struct{})
	go func() {
		io.Copy(&output, r)
		close(read)
	}()
	killGroup := func() { syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) }
	timer := time.AfterFunc(time.Duration(max(timeout, 0))*time.Second, killGroup)
	waitErr := sh.Wait()
	timedOut := !timer.Stop()
	// The shell is done: whatever it left running goes with it (expiry: kill ends the whole group).
	killGroup()
	<-read
	r.Close()

	res := &result{Output: shape(output.Bytes())}
	if timedOut {
		res.Code = -1
		return res, nil
	}
	st, _ := waitErr.(*exec.ExitError)
	switch {
	case st == nil:
		res.OK = true
	case st.Sys().(syscall.WaitStatus).Signaled():
		res.Code = -int(st.Sys().(syscall.WaitStatus).Signal()) // Python's convention: -9 for SIGKILL
	default:
		res.Code = st.ExitCode()
	}
	return res, nil
}

// shape cuts the output to its last 4,000 bytes behind a marker naming how many were dropped, then
// decodes it as UTF-8 with errors replaced (decode: replace): each maximal invalid subpart becomes one
// U+FFFD, as Python's errors="replace" does (a sequence cut short at the end is one subpart, "ab\xe2\x82"
// is "ab\ufffd"; Go's utf8.DecodeRune would give a U+FFFD for each byte).
func shape(b []byte) string {
	const limit = 4000
	marker := ""
	if len(b) > limit {
		marker = fmt.Sprintf("[%d bytes dropped]\n", len(b)-limit)
		b = b[len(b)-limit:]
	}
	var s []rune
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			n = invalidSubpart(b)
		}
		s = append(s, r)
		b = b[n:]
	}
	return marker + string(s)
}

// invalidSubpart returns the length of the maximal invalid subpart at the start of b: a lead byte and the
// continuation bytes that could still have completed it.
func invalidSubpart(b []byte) int {
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	}
	n := 1
	for ; n <= need && n < len(b) && b[n] >= lo && b[n] <= hi; n++ {
		lo, hi = 0x80, 0xBF
	}
	return n
}
