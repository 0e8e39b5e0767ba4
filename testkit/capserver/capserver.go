// Package capserver is a test MCP server over HTTP for the reply cap's tests: its tool
// "big" answers with a text of the requested size, streamed from one small buffer so that
// the test's own side allocates nothing in proportion to it.
package capserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
)

// Server answers MCP over HTTP. Mode is how a tools/call is answered: "json" (streamable
// HTTP, one JSON body), "sse" (streamable HTTP, an event stream) or "legacy" (the legacy
// SSE transport: every answer on the GET stream). With Noise set, an over-size
// notification goes before every answer on an event stream; with NoiseMethodMiddle it
// names its method between its params and its "jsonrpc" member. With IDMiddle set, a
// "big" answer names its id as ReplyIDMiddle does, where it cannot be found.
//
// With Listen set, a streamable-HTTP server also serves the optional GET stream, on
// which Push writes. Its tool "hold" is never answered on its POST: Held names each such
// call as it arrives, and the POST stays open until the client gives up on it. A legacy
// SSE server (Mode "legacy") leaves "hold" unanswered too, and Push writes on its
// latest GET stream.
//
// Its tool "other" is answered with a reply that names the id given in its argument "id"
// (on an event stream, followed by the true answer, "ok", unless its argument "alone" is
// true). Its tool "endless" (an event
// stream) never ends the event it starts: its argument "shape" is "reply" (a reply that
// names its id first) or "notification" (method first); the server writes filler until
// the client goes away, and Overrun is closed once it has written OverrunBytes of it.
// With Endpoint set, a legacy SSE stream's endpoint event names that url ("{host}" in it
// stands for the server's own host:port) instead of the server's own path.
//
// Its tool "resumed" (an event stream) ends its POST's stream after an event that only
// sets an event id, with a short retry, as a server does that has the client poll for
// the answer (SEP-1699); the GET that resumes it (Last-Event-ID) is answered as "other"
// is, with the same arguments.
type Server struct {
	Mode              string
	IDMiddle          bool
	NoiseMethodMiddle bool
	Listen            bool
	Noise             atomic.Int64 // bytes of an over-size notification before each answer (0: none)
	Endpoint          string
	OverrunBytes      int64 // 0: Overrun is never closed

	mu      sync.Mutex
	streams map[string]*stream // legacy: the open GET streams, by the session their endpoint names
	next    int
	listen  *stream       // the open stream Push writes on (Listen, or legacy; nil: none)
	opened  chan struct{} // closed (and replaced) when such a stream opens
	held    chan json.RawMessage

	overrun     chan struct{}
	overrunOnce sync.Once

	resumes map[string]rpcReq // the "resumed" calls, by the event id their stream ended with
}

// Overrun is closed once an endless event has OverrunBytes of filler written: the client
// went on reading it.
func (s *Server) Overrun() <-chan struct{} { return s.overrun }

// stream is one legacy GET stream: the answers to write on it, until it ends.
type stream struct {
	answers chan func(w *flushWriter)
	done    chan struct{}
	host    string // the host:port the client reached
}

// serve writes to b what the stream is handed until the client goes away; the one
// goroutine that owns an event stream's response runs it.
func (st *stream) serve(ctx context.Context, b *flushWriter) {
	for {
		select {
		case f := <-st.answers:
			f(b)
		case <-ctx.Done():
			return
		}
	}
}

// Start serves s on 127.0.0.1 until the test ends and returns the URL to configure and
// its transport.
func (s *Server) Start(t testing.TB) (url string, kind config.Transport) {
	t.Helper()
	s.streams = map[string]*stream{}
	s.opened = make(chan struct{})
	s.held = make(chan json.RawMessage, 16)
	s.overrun = make(chan struct{})
	s.resumes = map[string]rpcReq{}
	ts := httptest.NewUnstartedServer(s)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.Listener = l
	ts.Start()
	t.Cleanup(ts.Close)
	if s.Mode == "legacy" {
		return ts.URL + "/sse", config.TransportSSE
	}
	return ts.URL + "/mcp", config.TransportStreamableHTTP
}

// flushWriter is a writer that flushes as it goes.
type flushWriter struct {
	w http.ResponseWriter
}

func (b *flushWriter) write(s string) bool {
	_, err := b.w.Write([]byte(s))
	return err == nil
}

func (b *flushWriter) flush() { b.w.(http.Flusher).Flush() }

// fill writes n filler bytes; false when the client stopped reading.
func (b *flushWriter) fill(n int) bool {
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := b.w.Write(chunk[:k]); err != nil {
			return false
		}
		n -= k
	}
	return true
}

type rpcReq struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
		Name            string `json:"name"`
		Arguments       struct {
			Bytes int             `json:"bytes"`
			ID    json.RawMessage `json:"id"`
			Shape string          `json:"shape"`
			Alone bool            `json:"alone"`
		} `json:"arguments"`
	} `json:"params"`
}

// answer writes the reply to r: the result's JSON, or for a "big" call a text of the
// asked size; sse frames it (and the noise) as events.
func (s *Server) answer(b *flushWriter, r rpcReq, sse bool) {
	if n := int(s.Noise.Load()); sse && n > 0 && s.NoiseMethodMiddle {
		writeOversize(b, NotificationMethodMiddle, nil, n, "")
	} else if sse && n > 0 {
		b.write(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`)
		b.fill(n)
		b.write("\"}}\n\n")
	}
	if sse {
		b.write("event: message\ndata: ")
	}
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":`, r.ID)
	switch {
	case r.Method == "initialize":
		b.write(head + fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"cap","version":"1"}}}`, r.Params.ProtocolVersion))
	case r.Method == "tools/call" && r.Params.Name == "big" && s.IDMiddle:
		_ = b.write(`{"result":{"content":[{"type":"text","text":"`) && b.fill(r.Params.Arguments.Bytes) &&
			b.write(fmt.Sprintf(idMiddleEnd, r.ID))
	case r.Method == "tools/call" && r.Params.Name == "other":
		b.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"not yours"}]}}`, r.Params.Arguments.ID))
		if sse && !r.Params.Arguments.Alone {
			b.write("\n\nevent: message\ndata: " + head + `{"content":[{"type":"text","text":"ok"}]}}`)
		}
	case r.Method == "tools/call" && r.Params.Name == "endless":
		start := head + `{"content":[{"type":"text","text":"`
		if r.Params.Arguments.Shape == "notification" {
			start = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`
		}
		if b.write(start) {
			s.endless(b)
		}
		return
	case r.Method == "tools/call" && r.Params.Name == "big":
		_ = b.write(head+`{"content":[{"type":"text","text":"`) && b.fill(r.Params.Arguments.Bytes) && b.write(`"}]}}`)
	case r.Method == "tools/call":
		b.write(head + `{"content":[{"type":"text","text":"ok"}]}}`)
	case r.Method == "tools/list":
		b.write(head + `{"tools":[]}}`)
	default:
		b.write(head + `{}}`)
	}
	if sse {
		b.write("\n\n")
	}
	b.flush()
}

// endless writes filler until the client stops reading.
func (s *Server) endless(b *flushWriter) {
	var n int64
	for b.fill(64 << 10) {
		b.flush()
		if n += 64 << 10; s.OverrunBytes > 0 && n >= s.OverrunBytes {
			s.overrunOnce.Do(func() { close(s.overrun) })
		}
	}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if s.Mode == "legacy" && req.Method == http.MethodGet {
		s.serveStream(w, req)
		return
	}
	if last := req.Header.Get("Last-Event-ID"); last != "" && req.Method == http.MethodGet {
		s.serveResumed(w, last)
		return
	}
	if s.Listen && req.Method == http.MethodGet {
		s.serveListen(w, req)
		return
	}
	if req.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var r rpcReq
	if err := json.NewDecoder(req.Body).Decode(&r); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if s.Mode == "legacy" {
		s.mu.Lock()
		st := s.streams[req.URL.Query().Get("session")]
		s.mu.Unlock()
		if st == nil {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		if r.Method == "tools/call" && r.Params.Name == "hold" {
			s.held <- r.ID
			return
		}
		if len(r.ID) > 0 {
			select {
			case st.answers <- func(b *flushWriter) { s.answer(b, r, true) }:
			case <-st.done:
			case <-req.Context().Done():
			}
		}
		return
	}
	if len(r.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if r.Method == "tools/call" && r.Params.Name == "hold" {
		s.held <- r.ID
		<-req.Context().Done()
		return
	}
	sse := s.Mode == "sse" && r.Method == "tools/call"
	w.Header().Set("Mcp-Session-Id", "s1")
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	if sse && r.Params.Name == "resumed" {
		s.mu.Lock()
		s.next++
		last := "r" + strconv.Itoa(s.next)
		s.resumes[last] = r
		s.mu.Unlock()
		b := &flushWriter{w: w}
		b.write("id: " + last + "\nretry: 10\n\n")
		b.flush()
		return
	}
	s.answer(&flushWriter{w: w}, r, sse)
}

// serveResumed answers the GET that resumes the stream of the "resumed" call whose
// stream ended with the event id last, as "other" is answered.
func (s *Server) serveResumed(w http.ResponseWriter, last string) {
	s.mu.Lock()
	r, ok := s.resumes[last]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, nil)
		return
	}
	r.Params.Name = "other"
	w.Header().Set("Content-Type", "text/event-stream")
	s.answer(&flushWriter{w: w}, r, true)
}

// serveStream is a legacy SSE session: its endpoint event names it, and the answers to
// the requests posted there are written on it.
func (s *Server) serveStream(w http.ResponseWriter, req *http.Request) {
	st := &stream{answers: make(chan func(*flushWriter)), done: make(chan struct{}), host: req.Host}
	s.mu.Lock()
	s.next++
	id := strconv.Itoa(s.next)
	s.streams[id] = st
	s.mu.Unlock()
	unpush := s.pushTo(st)
	defer func() {
		s.mu.Lock()
		delete(s.streams, id)
		s.mu.Unlock()
		unpush()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	b := &flushWriter{w: w}
	endpoint := "/msg"
	if s.Endpoint != "" {
		endpoint = strings.ReplaceAll(s.Endpoint, "{host}", req.Host)
	}
	b.write("event: endpoint\ndata: " + endpoint + "?session=" + id + "\n\n")
	b.flush()
	st.serve(req.Context(), b)
}
