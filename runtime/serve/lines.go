package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// DefaultMaxLine bounds one request line of the line-based transports (the wire protocol and MCP over stdio).
// A command cannot be longer anyway: Linux passes it to the shell as one argument, of at most 128 KiB.
// mutate: serve-line-limit
const DefaultMaxLine = 4 << 20

// lineReader reads lines of at most max bytes from r. A longer line is not kept: it is read through in
// chunks and dropped, and reported with its length and the first bytes of it (to recover a request id), so
// that a huge line costs no more memory than max.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// overLong describes a line that was over the limit.
type overLong struct {
	// size is the line's length in bytes, without its newline.
	size int64
	// head is its first bytes.
	head []byte
}

// next returns the next line without its line ending. For a line over the limit it returns a nil line
// and the description. err is io.EOF at the end of the input (returned with the last line, or its
// description, when it had no newline) or the read error.
func (l *lineReader) next() (line []byte, long *overLong, err error) {
	var buf []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if long != nil {
			long.size += int64(len(chunk))
		} else if len(buf)+len(chunk) > l.max+1 { // +1: the newline itself does not count
			long = &overLong{size: int64(len(buf) + len(chunk))}
			long.head = append([]byte(nil), buf[:min(len(buf), 512)]...)
			if len(long.head) < 512 {
				long.head = append(long.head, chunk[:min(len(chunk), 512-len(long.head))]...)
			}
			buf = nil
		} else {
			buf = append(buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if long != nil {
			if err == nil {
				long.size-- // the newline
			}
			return nil, long, err
		}
		if err == nil {
			return bytes.TrimRight(buf, "\r\n"), nil, nil
		}
		return buf, nil, err
	}
}

// idOf recovers the id of a request from the start of its line, when the line begins with it ({"id": 7,
// ... or {"jsonrpc": "2.0", "id": "x", ...): the id of a line too long to read whole.
func idOf(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for range 3 {
		k, err := dec.Token()
		key, ok := k.(string)
		if err != nil || !ok {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			if len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
				return v
			}
			return nil
		}
	}
	return nil
}
