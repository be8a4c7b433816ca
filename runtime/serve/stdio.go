package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioConn is an MCP connection over newline-delimited JSON-RPC whose reading is bounded: the SDK's stdio
// transport ends the session at a frame over its limit or at a line that is not JSON; this one answers
// such a line with a JSON-RPC error and reads on.
type stdioConn struct {
	msgs     chan msgOrErr
	closed   chan struct{}
	once     sync.Once
	out      *lineWriter
	brokenCh chan struct{}
	broke    sync.Once
}

type msgOrErr struct {
	msg jsonrpc.Message
	err error
}

func newStdioConn(r io.Reader, w io.Writer, maxLine int) *stdioConn {
	c := &stdioConn{msgs: make(chan msgOrErr), closed: make(chan struct{}), brokenCh: make(chan struct{})}
	c.out = &lineWriter{w: w, broken: func(error) { c.broke.Do(func() { close(c.brokenCh) }) }}
	lr := newLineReader(r, maxLine)
	go func() {
		for {
			line, long, err := lr.next()
			var msg jsonrpc.Message
			switch {
			case long != nil:
				c.replyError(idOf(long.head), jsonrpc.CodeInvalidRequest,
					fmt.Sprintf("the message is %d bytes, over the limit of %d", long.size, lr.max))
			case len(trimSpace(line)) > 0:
				m, derr := jsonrpc.DecodeMessage(line)
				if derr != nil {
					c.replyError(nil, jsonrpc.CodeParseError, "not a JSON-RPC message: "+derr.Error())
				} else {
					msg = m
				}
			}
			if msg != nil {
				select {
				case c.msgs <- msgOrErr{msg: msg}:
				case <-c.closed:
					return
				}
			}
			if err != nil {
				select {
				case c.msgs <- msgOrErr{err: err}:
				case <-c.closed:
				}
				return
			}
		}
	}()
	return c
}

// replyError writes a JSON-RPC error response (id null when the id is not known).
func (c *stdioConn) replyError(id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	c.out.write(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case m := <-c.msgs:
		return m.msg, m.err
	}
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.out.writeLine(b)
	return c.out.failed()
}

func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) writeErr() error { return c.out.failed() }

// connTransport hands an existing connection to the SDK.
type connTransport struct{ c mcp.Connection }

func (t *connTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }
