package capserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Message is the shape of an over-size message Push writes.
type Message int

// The shapes.
const (
	// ReplyIDMiddle is a reply that names its id between its result and an object member
	// (then its "jsonrpc" member): neither at its start nor among the scalar members it
	// ends with, so the id cannot be found.
	ReplyIDMiddle Message = iota
	// ReplyNoID is a reply that names no id.
	ReplyNoID
	// NotificationMethodMiddle is a notification that names its method between its
	// params and its "jsonrpc" member.
	NotificationMethodMiddle
	// Notification is a small notifications/message (n is ignored): what comes after an
	// over-size message shows that the stream goes on.
	Notification
	// ReplyIDLate is a reply that names its id after its result, before its "jsonrpc"
	// member: among the scalar members it ends with.
	ReplyIDLate
	// ReplyIDFirst is a reply that names its id first.
	ReplyIDFirst
	// Reply is a small reply "ok" (n is ignored).
	Reply
	// EndpointEvent is a legacy SSE endpoint event that names the url given as id
	// ("{host}" in it stands for the server's own host:port; n is ignored).
	EndpointEvent
)

// idMiddleEnd ends a reply of ReplyIDMiddle's shape.
const idMiddleEnd = `"}]},"id":%s,"_meta":{"n":1},"jsonrpc":"2.0"}`

// writeOversize writes one event of the shape m whose text holds n filler bytes; id is
// a reply's.
func writeOversize(b *flushWriter, m Message, id json.RawMessage, n int, host string) {
	switch m {
	case EndpointEvent:
		b.write("event: endpoint\ndata: " + strings.ReplaceAll(string(id), "{host}", host) + "\n\n")
	case ReplyIDMiddle:
		_ = b.write(`data: {"result":{"content":[{"type":"text","text":"`) && b.fill(n) &&
			b.write(fmt.Sprintf(idMiddleEnd+"\n\n", id))
	case ReplyIDLate:
		_ = b.write(`data: {"result":{"content":[{"type":"text","text":"`) && b.fill(n) &&
			b.write(fmt.Sprintf(`"}]},"id":%s,"jsonrpc":"2.0"}`+"\n\n", id))
	case ReplyIDFirst:
		_ = b.write(fmt.Sprintf(`data: {"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id)) && b.fill(n) && b.write(`"}]}}`+"\n\n")
	case Reply:
		b.write(fmt.Sprintf(`data: {"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ok"}]}}`+"\n\n", id))
	case ReplyNoID:
		_ = b.write(`data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"`) && b.fill(n) && b.write(`"}]}}`+"\n\n")
	case NotificationMethodMiddle:
		_ = b.write(`data: {"params":{"level":"info","data":"`) && b.fill(n) &&
			b.write(`"},"method":"notifications/message","jsonrpc":"2.0"}`+"\n\n")
	case Notification:
		b.write(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"after"}}` + "\n\n")
	}
	b.flush()
}

// Held is where each call of the tool "hold" is named (its JSON-RPC id) as it arrives.
func (s *Server) Held() <-chan json.RawMessage { return s.held }

// Push writes a message of the shape m (n filler bytes; id for a reply) on the GET stream
// (Listen, or the legacy SSE stream), once one is open; it returns when the message is
// written, or ctx's error.
func (s *Server) Push(ctx context.Context, m Message, id json.RawMessage, n int) error {
	for {
		s.mu.Lock()
		st, opened := s.listen, s.opened
		s.mu.Unlock()
		if st == nil {
			select {
			case <-opened:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		written := make(chan struct{})
		select {
		case st.answers <- func(b *flushWriter) { writeOversize(b, m, id, n, st.host); close(written) }:
		case <-st.done:
			continue
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-written:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// serveListen is streamable HTTP's optional GET stream: it writes what Push hands it
// until the client closes it.
func (s *Server) serveListen(w http.ResponseWriter, req *http.Request) {
	st := &stream{answers: make(chan func(*flushWriter)), done: make(chan struct{}), host: req.Host}
	defer s.pushTo(st)()
	w.Header().Set("Content-Type", "text/event-stream")
	b := &flushWriter{w: w}
	b.flush()
	st.serve(req.Context(), b)
}

// pushTo makes st the stream Push writes on, until the func it returns is called as st
// ends.
func (s *Server) pushTo(st *stream) func() {
	s.mu.Lock()
	s.listen = st
	close(s.opened)
	s.opened = make(chan struct{})
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if s.listen == st {
			s.listen = nil
		}
		s.mu.Unlock()
		close(st.done)
	}
}
