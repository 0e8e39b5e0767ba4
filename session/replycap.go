package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// DefaultMaxReply bounds one line (one JSON-RPC message) read from a stdio server.
// mcp-go reads lines without a limit, so a server that answers with hundreds of MB
// would otherwise take that much memory (several times over while decoding).
const DefaultMaxReply = 64 << 20

// MaxReplyEnv names the variable that sets the reply cap in MiB (Options.MaxReplyBytes
// wins when set).
const MaxReplyEnv = "MCP_BRIDGE_MAX_REPLY_MB"

// MaxReplyFrom reads MaxReplyEnv; 0 (the default) when unset or not a positive number of
// MiB up to 4096.
func MaxReplyFrom(lookup func(string) (string, bool)) (int, error) {
	v, ok := lookup(MaxReplyEnv)
	if !ok || strings.TrimSpace(v) == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 || n > 4096 {
		return 0, fmt.Errorf("%s must be a whole number of MiB between 1 and 4096; using %d", MaxReplyEnv, DefaultMaxReply>>20)
	}
	return n << 20, nil
}

// headKeep is how much of each line is kept to find its JSON-RPC id once the line turns
// out to be too long; servers write "jsonrpc" and "id" before the result.
const headKeep = 512

// replyLimiter sits between a server's stdout and mcp-go's line reader. Lines up to limit
// bytes pass through untouched. A longer line is cut where it crosses the limit, the rest
// of it is discarded as it arrives, and in its place mcp-go reads a JSON-RPC error for the
// same id, so only that request fails and the connection stays usable. When the id cannot
// be found in the line's start, the stream ends instead (lost is closed) and the server
// has to be restarted. It is used by mcp-go's single reader goroutine only.
type replyLimiter struct {
	r     io.Reader
	limit int

	line  int    // bytes of the current line handed on so far
	head  []byte // start of the current line
	skip  bool   // discarding the rest of an over-size line
	carry []byte // bytes read but not yet handed on
	out   []byte // bytes of our own to hand on first
	eof   bool   // end the stream after out
	// lineDone is set when the last Read handed on the end of a message: mcp-go has just
	// given it to the goroutine waiting for it, which should run before this one reads
	// the pipe again (that read usually finds it empty).
	lineDone bool

	lostOnce sync.Once
	lost     chan struct{} // closed when the stream was ended because of an over-size line
}

func newReplyLimiter(r io.Reader, limit int) *replyLimiter {
	if limit <= 0 {
		limit = DefaultMaxReply
	}
	return &replyLimiter{r: r, limit: limit, lost: make(chan struct{})}
}

func (l *replyLimiter) Read(p []byte) (int, error) {
	for {
		if len(l.out) > 0 {
			n := copy(p, l.out)
			l.out = l.out[n:]
			return n, nil
		}
		if l.eof {
			return 0, io.EOF
		}
		buf := l.carry
		l.carry = nil
		if len(buf) == 0 {
			if l.lineDone {
				l.lineDone = false
				runtime.Gosched()
			}
			n, err := l.r.Read(p)
			if n == 0 {
				return 0, err
			}
			buf = p[:n]
		}
		if l.skip {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				continue
			}
			l.skip, l.line, l.head = false, 0, l.head[:0]
			l.keep(buf[i+1:])
			continue
		}
		seg := buf
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			seg = buf[:i+1]
		}
		content := len(seg)
		if seg[len(seg)-1] == '\n' {
			content--
		}
		if l.line+content > l.limit {
			l.overflow(seg, buf[len(seg):])
			continue
		}
		n := copy(p, seg)
		if len(l.head) < headKeep {
			l.head = append(l.head, seg[:min(n, headKeep-len(l.head))]...)
		}
		l.line += n
		if n == len(seg) && seg[n-1] == '\n' {
			l.line, l.head = 0, l.head[:0]
			l.lineDone = true
		}
		l.keep(buf[n:])
		return n, nil
	}
}

// keep saves unread bytes; they may alias the caller's buffer, so they are copied.
func (l *replyLimiter) keep(b []byte) {
	if len(b) > 0 {
		l.carry = append([]byte(nil), b...)
	}
}

// overflow ends the current line for mcp-go (it fails to parse and is dropped) and puts a
// JSON-RPC error for the same id after it.
func (l *replyLimiter) overflow(seg, rest []byte) {
	if seg[len(seg)-1] == '\n' {
		l.keep(rest)
	} else {
		l.skip = true
	}
	if len(l.head) < headKeep {
		l.head = append(l.head, seg[:min(len(seg), headKeep-len(l.head))]...)
	}
	id, ok := lineID(l.head)
	l.line, l.head = 0, l.head[:0]
	if !ok {
		l.out = []byte("\n")
		l.eof = true
		l.lostOnce.Do(func() { close(l.lost) })
		return
	}
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603, "message": tooLargeText(l.limit)}})
	l.out = append(append([]byte("\n"), line...), '\n')
}

// tooLargeMarker is in every tooLargeText, so the error mcp-go builds from our JSON-RPC
// error can be recognised.
const tooLargeMarker = "larger than the bridge accepts"

// tooLargeText is the reason given for a dropped reply.
func tooLargeText(limit int) string {
	size := fmt.Sprintf("%d bytes", limit)
	if limit%(1<<20) == 0 {
		size = fmt.Sprintf("%d MiB", limit>>20)
	}
	return "the server's reply was " + tooLargeMarker + " (" + size + ") and was dropped; ask for less, e.g. a narrower query or a page/limit argument"
}

// lineID finds the JSON-RPC id among the leading members of a message's start.
func lineID(head []byte) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if k == "id" {
			return v, len(v) > 0 && string(v) != "null"
		}
	}
	return nil, false
}
