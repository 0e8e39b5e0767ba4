package session

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// UnreadableError is why a stdio server's message was dropped although it fits the reply
// cap: mcp-go's decoder rejects it (a raw control character, nesting too deep: what
// jsonscan finds), and mcp-go drops such a line without a word. A reply fails its call
// with it; the server's own request or notification, and a reply whose id was not found,
// are only logged (LimitOptions.Unreadable is told of all three).
type UnreadableError struct {
	Fault jsonscan.Fault
	// Char is the byte of a jsonscan.ControlChar fault.
	Char byte
	// ID is the reply's id as the server wrote it, when it was found ("": not found, or
	// not a reply).
	ID string
	// NotReply: the message was the server's own request or notification; Method is
	// its method when it was found.
	NotReply bool
	Method   string
}

func (e *UnreadableError) Error() string {
	why := jsonscan.Reason(e.Fault, e.Char)
	switch {
	case e.NotReply:
		what := "a request or notification from the server"
		if e.Method != "" {
			what += " (method " + strconv.Quote(e.Method) + ")"
		}
		return what + " was dropped: it " + why + "; no call failed. The server has a bug: report it to its authors"
	case e.ID == "":
		return "a reply from the server was dropped: it " + why + ", and its id could not be found, so the call it answers waits until its timeout. The server has a bug: report it to its authors"
	}
	return "the server's reply was dropped: it " + why + ". The server answered, so the request ran: check its effect before repeating it. The server has a bug: report it to its authors"
}

// scanLine follows b, a piece of the line being handed on (FrameLines), for what
// mcp-go's decoder rejects. Once the line is faulted its last bytes are kept: an id or a
// method written last is there.
func (l *ReplyLimiter) scanLine(b []byte) {
	if l.check.Fault() == jsonscan.None {
		l.check.Write(bytes.TrimSuffix(b, []byte{'\n'}))
		if l.check.Fault() == jsonscan.None {
			return
		}
	}
	l.badTail = keepTail(l.badTail, b)
}

// keepTail appends piece to tail and keeps the last tailKeep bytes.
func keepTail(tail, piece []byte) []byte {
	tail = append(tail, piece[max(0, len(piece)-tailKeep):]...)
	if len(tail) > tailKeep {
		tail = append(tail[:0], tail[len(tail)-tailKeep:]...)
	}
	return tail
}

// lineEnded settles the line just handed on: a faulted one that is a reply with an id is
// followed by a JSON-RPC error for that id, which mcp-go reads in its place. It is
// called before the kept start is cleared.
func (l *ReplyLimiter) lineEnded() {
	if l.check.Fault() != jsonscan.None {
		l.unreadable()
	}
	l.check.Reset()
	l.badTail = l.badTail[:0]
}

// unreadable handles a line mcp-go will drop: its start (l.head) and end (l.badTail)
// say what it was, as for an over-size message (replaceFromTail): a method found, or a
// start that shows params, make it the server's own message; else the id found at its
// start or end is failed.
func (l *ReplyLimiter) unreadable() {
	if h := bytes.TrimLeft(l.head, " \t\r"); len(h) == 0 || h[0] != '{' {
		return // no message: mcp-go skips a server's stray output, as it always has
	}
	e := &UnreadableError{Fault: l.check.Fault(), Char: l.check.Char()}
	m := jsonscan.ScanHead(l.head)
	method, inTail := jsonscan.TailMember(l.badTail, `"method"`)
	if m.Method != nil {
		method = m.Method
	}
	id := m.ID
	if id == nil {
		if v, ok := jsonscan.TailMember(l.badTail, `"id"`); ok && string(v) != "null" {
			id = v
		}
	}
	switch {
	case m.Method != nil || inTail || m.Cut == "params" || m.Cut == "method":
		e.NotReply, e.Method = true, textcut.Truncate(methodName(method), maxMethodText)
	case id != nil:
		e.ID = textcut.Truncate(string(id), maxMethodText)
		if msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
			"code": -32603, "message": e.Error(), "data": map[string]any{unreadableKey: int(e.Fault), "char": int(e.Char)}}}); err == nil {
			l.out = append(append(l.out, msg...), '\n')
		}
	}
	if l.o.Unreadable != nil {
		l.o.Unreadable(e)
	}
}

// unreadableKey marks, in the data of the JSON-RPC error the limiter puts in place of an
// unreadable reply, the fault it found; typedReplies turns it back into the error.
const unreadableKey = "mcpBridgeUnreadable"

// unreadableFrom is the *UnreadableError a reply's error carries in its data, or nil.
func unreadableFrom(d *mcp.JSONRPCErrorDetails) *UnreadableError {
	m, ok := d.Data.(map[string]any)
	if !ok {
		return nil
	}
	f, ok := m[unreadableKey].(float64)
	if !ok || f <= float64(jsonscan.None) || f > float64(jsonscan.TooDeep) {
		return nil
	}
	c, _ := m["char"].(float64)
	return &UnreadableError{Fault: jsonscan.Fault(f), Char: byte(c)}
}

// typedReplies is a stdio transport as mcp-go's client sees it: the error the limiter
// put in place of an unreadable reply comes back as an *UnreadableError, not as an error
// the server sent. It wraps whatever Handlers.Wrap made of the transport, which still
// sees mcp-go's own type.
type typedReplies struct {
	transport.BidirectionalInterface
}

// withTypedReplies wraps tr when it takes server requests (mcp-go's stdio transport
// does); any other transport is returned as it is.
func withTypedReplies(tr transport.Interface) transport.Interface {
	if b, ok := tr.(transport.BidirectionalInterface); ok {
		return typedReplies{b}
	}
	return tr
}

// SendRequest is the transport's, with an unreadable reply's error typed.
func (t typedReplies) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.BidirectionalInterface.SendRequest(ctx, req)
	if err == nil && resp != nil && resp.Error != nil {
		if e := unreadableFrom(resp.Error); e != nil {
			e.ID = "?"
			if b, err := json.Marshal(req.ID); err == nil {
				e.ID = textcut.Truncate(string(b), maxMethodText)
			}
			return nil, e
		}
	}
	return resp, err
}
