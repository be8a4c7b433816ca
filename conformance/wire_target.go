package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentbash/agentbash/runtime"
	"github.com/agentbash/agentbash/spec"
)

// wireRequest is one request line of the wire protocol.
type wireRequest struct {
	ID        json.RawMessage `json:"id"`
	Tool      string          `json:"tool"`
	Params    json.RawMessage `json:"params"`
	Workspace string          `json:"workspace"`
}

// wireResponse is one answer line of the wire protocol.
type wireResponse struct {
	ID     json.RawMessage    `json:"id"`
	Result json.RawMessage    `json:"result,omitempty"`
	Error  *runtime.ToolError `json:"error,omitempty"`
}

// maxLine bounds one protocol line (a 1 MiB-limited result escapes to a few MiB).
const maxLine = 64 << 20

// ServeWire runs the variant as a wire-protocol target: it reads one JSON request per line from stdin and
// writes one JSON answer per line to stdout, in order, until EOF (then it returns nil) or until ctx is done
// (then it returns ctx's error). Each request's workspace becomes the workspace of an engine created for
// it on first use; every engine is closed, and what it left running killed and reaped, before ServeWire
// returns. A request that is not valid JSON is answered with id null and the error type ProtocolError; an
// error that is not the tool's (an unknown tool) has the type Error.
//
// It is the reference implementation of the protocol: `agentbash target VARIANT` is ServeWire on the
// process's standard input and output.
func ServeWire(ctx context.Context, v *spec.Variant, stdin io.Reader, stdout io.Writer, opts ...runtime.Option) (err error) {
	es := newEngines(v, opts)
	defer func() {
		if cerr := es.close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()

	stop := make(chan struct{})
	defer close(stop)
	lines := readLines(stdin, stop)

	for {
		var l inputLine
		select {
		case l = <-lines:
		case <-ctx.Done():
			return ctx.Err()
		}
		if len(bytes.TrimSpace(l.b)) > 0 {
			resp := serveOne(ctx, es, l.b)
			if err := writeJSONLine(stdout, resp); err != nil {
				return fmt.Errorf("conformance: writing an answer: %w", err)
			}
		}
		if l.err == io.EOF {
			return nil
		}
		if l.err != nil {
			return fmt.Errorf("conformance: reading requests: %w", l.err)
		}
	}
}

// readLine reads one line (without its newline), at most maxLine bytes; a last line without a newline is
// returned with io.EOF.
// inputLine is one line a server read, or the error that ended its input.
type inputLine struct {
	b   []byte
	err error
}

// readLines reads stdin line by line in a goroutine, so that a server can stop when its context ends even
// while a read blocks. The channel yields each line, then the error that ended the input (io.EOF at the
// end); the goroutine returns after that, or as soon as stop is closed.
func readLines(stdin io.Reader, stop <-chan struct{}) <-chan inputLine {
	lines := make(chan inputLine)
	go func() {
		r := bufio.NewReaderSize(stdin, 64<<10)
		for {
			b, err := readLine(r)
			select {
			case lines <- inputLine{b, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return lines
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("a line is longer than %d bytes", maxLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			return bytes.TrimRight(buf, "\r\n"), nil
		}
		return buf, err
	}
}

func serveOne(ctx context.Context, es *engines, b []byte) wireResponse {
	var req wireRequest
	if err := json.Unmarshal(b, &req); err != nil {
		return wireResponse{ID: json.RawMessage("null"), Error: &runtime.ToolError{Type: "ProtocolError", Message: "request is not a JSON object: " + err.Error()}}
	}
	id := req.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	ans, err := es.call(ctx, Request{Tool: req.Tool, Params: req.Params, Workspace: req.Workspace})
	if err != nil {
		return wireResponse{ID: id, Error: &runtime.ToolError{Type: "Error", Message: err.Error()}}
	}
	return wireResponse{ID: id, Result: ans.Result, Error: ans.Error}
}

// writeJSONLine writes v as one line of compact JSON, without HTML escaping, in one Write.
func writeJSONLine(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
