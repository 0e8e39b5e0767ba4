package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/zot-mcp/mcp-bridge/testkit/fakemcp/record"
)

// recorder appends JSON lines to the -record file. A nil *recorder records
// nothing. Each line is written with a single write on an O_APPEND file, so
// lines survive an abrupt os.Exit and never interleave.
type recorder struct {
	mu sync.Mutex
	f  *os.File
}

func openRecorder(path string) (*recorder, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open record file: %w", err)
	}
	return &recorder{f: f}, nil
}

// Close closes the record file.
func (r *recorder) Close() error {
	if r == nil {
		return nil
	}
	return r.f.Close()
}

func (r *recorder) write(line record.Line) {
	if r == nil {
		return
	}
	b, err := json.Marshal(line)
	if err != nil {
		return
	}
	b = append(b, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.f.Write(b)
}

// wireMessage is the part of a JSON-RPC message the recorder looks at.
type wireMessage struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params json.RawMessage `json:"params"`
}

// message records the JSON-RPC message (or batch) in data. Responses from
// the client and anything that is not JSON are ignored.
func (r *recorder) message(data []byte) {
	if r == nil {
		return
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return
	}
	var msgs []wireMessage
	if data[0] == '[' {
		if json.Unmarshal(data, &msgs) != nil {
			return
		}
	} else {
		var m wireMessage
		if json.Unmarshal(data, &m) != nil {
			return
		}
		msgs = []wireMessage{m}
	}
	for _, m := range msgs {
		if m.Method == "" {
			continue // a response to a server-initiated request
		}
		if len(m.ID) == 0 || string(m.ID) == "null" {
			r.write(record.Line{Method: m.Method, Params: m.Params})
			continue
		}
		line := record.Line{Method: m.Method, ID: m.ID}
		if m.Method == "tools/call" {
			var p struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal(m.Params, &p)
			line.Tool, line.Arguments = p.Name, p.Arguments
		}
		if m.Method == "initialize" || m.Method == "server/discover" {
			line.Params = m.Params
		}
		r.write(line)
	}
}

// lineTap is an io.Reader that passes its input through unchanged and hands
// every complete line to fn before the consumer sees it.
type lineTap struct {
	r   io.Reader
	buf []byte
	fn  func([]byte)
}

func newLineTap(r io.Reader, fn func([]byte)) *lineTap {
	return &lineTap{r: r, fn: fn}
}

// Read implements io.Reader.
func (t *lineTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.fn(t.buf[:i])
		t.buf = t.buf[i+1:]
	}
	if len(t.buf) == 0 {
		t.buf = nil // let a large consumed buffer be collected
	}
	if err != nil && len(t.buf) > 0 {
		t.fn(t.buf)
		t.buf = nil
	}
	return n, err
}
