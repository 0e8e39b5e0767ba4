package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/session"
)

// FuzzHTTPReply checks what reaches mcp-go of a server's answer to a POST, through the
// Transport's handling of the answer (the reply cap, the id check, the legacy-endpoint
// sniffer), read as mcp-go's streamable HTTP transport reads it (fuzzMCPRead). ctl picks
// the content type (a JSON body or an event stream), the status, the request's id, the
// cap, whether the body goes on without end after body, and the sizes of the reads; or
// (its first byte's high bit) a legacy SSE stream instead (fuzzLegacyStream). The
// oracle, against what body holds read the same way without the Transport:
//   - a reply that names another id than the request's never becomes the answer;
//   - no message handed on is over the cap;
//   - the request's own answer, when nothing over the cap comes before it, is the answer,
//     byte for byte (an event stream; a JSON body within the cap);
//   - the cap's error is the answer only when something was over the cap;
//   - a body that goes on without end is read no further than the cap allows (an event
//     stream: also the discarded part of a dropped message) and then answered.
func FuzzHTTPReply(f *testing.F) {
	ok := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`
	other := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"not yours"}]}}`
	fill := strings.Repeat("x", 300)
	seeds := []string{
		ok,
		other,
		`{"result":{"t":"` + fill + `"},"jsonrpc":"2.0","id":2}`,
		`{"result":{},"ID":3}`,
		`{"id":2,"id":"2","result":{}}`,
		`{"\u0069d":9,"result":{}}`,
		"data: " + other + "\n\ndata: " + ok + "\n\n",
		"event: message\ndata: " + other + "\r\n\r\ndata: " + ok + "\r\n\r\n",
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\r\r\ndata: " + other + "\n\ndata: " + ok + "\n\n",
		"data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":3,\"result\":{}}\n\ndata: " + ok + "\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"sampling/createMessage\",\"params\":{}}\n\ndata: " + ok + "\n\n",
		"id: 1\nretry: 5\ndata: " + other + "\n\n: comment\ndata: " + ok + "\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"d\":\"" + fill + fill + "\"}}\n\ndata: " + ok + "\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"t\":\"" + fill + fill + "\"}}\n\ndata: " + ok + "\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"text\":\"",
		"data: {\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}\n\ndata: " + ok + "\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"",
		"event: endpoint\ndata: /msg\n\ndata: " + ok + "\n\n",
		"event: endpoint\ndata: /msg?session=1\n\nevent: message\ndata: " + ok + "\n\nevent: endpoint\ndata: https://127.0.0.1:8080/msg\n\n",
		"event: endpoint\n\ndata: http://127.0.0.1:1/msg\n\n",
		"data: /x\nevent: endpoint\r\n\r\nevent: endpoint\ndata: http://u:p@127.0.0.1:8080/msg\ndata: ?a\n\nevent:endpoint\ndata:http://127.0.0.1:8081",
		"event:" + strings.Repeat(" ", 20<<10) + "endpoint\u00a0\ndata: http://127.0.0.1:1/x\n\n",
		"event: endpoint\ndata: /" + strings.Repeat("a", 17<<10) + "\n\n",
		`{"jsonrpc":"2.0","id":2,"result":{"s":"a\"}\\","n":[1,{"id":3}]}}`,
	}
	for _, s := range seeds {
		for _, ctl := range []string{"\x00\x00\x01", "\x01\x02\x07", "\x05\x10\x03\x40", "\x09\x00\x01", "\x41\x04\x02", "\x11\x01\x05", "\x21\x00\x03", "\x01\xff\x10", "\x21\xff\x01\x05", "\x80\x00\x03", "\x80\x00\xff\x01"} {
			f.Add([]byte(ctl), s)
		}
	}
	f.Fuzz(func(t *testing.T, ctl []byte, body string) {
		c := func(i int) byte {
			if i < len(ctl) {
				return ctl[i]
			}
			return 0
		}
		events := c(0)&1 == 1
		status := []int{http.StatusOK, http.StatusAccepted, http.StatusCreated, http.StatusInternalServerError}[c(0)>>1&3]
		ourID := []string{`2`, `"2"`, `7`, `"q"`}[c(0)>>3&3]
		endless := c(0)&0x40 != 0
		limit := 64 + int(c(1))*8
		var sizes []int
		for _, b := range ctl[min(2, len(ctl)):] {
			sizes = append(sizes, 1+int(b))
		}
		if len(sizes) == 0 {
			sizes = []int{4096}
		}
		if c(0)&0x80 != 0 {
			fuzzLegacyStream(t, body, sizes)
			return
		}
		ct := "application/json"
		if events {
			ct = "text/event-stream"
		}

		var logged []error
		tr := NewTransport(Options{Kind: config.TransportStreamableHTTP, URL: "http://127.0.0.1:1/mcp", MaxReply: limit,
			Dropped: func(err error) { logged = append(logged, err) }})
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":`+ourID+`,"method":"tools/call","params":{"name":"t"}}`))
		if err != nil {
			t.Fatal(err)
		}
		bound := len(body) + 17*limit + 3*4096
		src := &countReader{r: &fuzzSource{s: body, endless: endless, stop: 2 * bound, sizes: sizes}}
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(src), Request: req}
		resp, err = tr.answer(req, resp, false)
		if err != nil {
			t.Fatalf("answer: %v", err)
		}
		var want mcp.RequestId
		_ = want.UnmarshalJSON([]byte(ourID))
		got := fuzzMCPRead(resp.Body, status, ct, limit, true, want)
		truth := fuzzMCPRead(strings.NewReader(body), status, ct, limit, false, want)
		capError := got.answer != nil && got.answer.Error != nil && strings.Contains(got.answer.Error.Message, "larger than the bridge accepts")
		switch {
		case got.answer != nil && !got.answer.ID.IsNil() && got.answer.ID.String() != want.String():
			t.Fatalf("a reply for id %s became the answer to %s: %q", got.answer.ID.String(), ourID, got.data)
		case got.tooLong != "":
			t.Fatalf("a message over the cap (%d) was handed on: %d bytes", limit, len(got.tooLong))
		case capError && !truth.over && !endless:
			t.Fatalf("the cap's error answered a body with nothing over the cap: %q", body)
		}
		for _, e := range logged {
			var foreign *session.ForeignReplyError
			var big *session.TooLargeError
			if !errors.As(e, &foreign) && !errors.As(e, &big) {
				t.Fatalf("Dropped was told of %v", e)
			}
		}
		// The request's own answer gets through when nothing before it was over the cap
		// and its id is as short as ids are (a longer one may be taken for another's).
		if a := truth.answer; a != nil && !truth.overBefore && !endless && a.ID.String() == want.String() && len(truth.rawID) <= 200 &&
			!truth.endpointFirst && (events && status != http.StatusCreated && status != http.StatusInternalServerError || len(body) < limit) {
			if got.answer == nil || got.data != truth.data {
				t.Fatalf("the answer %q did not get through: got %q (%v)", truth.data, got.data, got.err)
			}
		}
		if endless {
			if src.n > bound {
				t.Fatalf("read %d bytes of a body that does not end (%d of them given, cap %d); want at most %d", src.n, len(body), limit, bound)
			}
			// A stream ends once a message naming our id is handed on; when that message is
			// not JSON mcp-go cannot take it, and the call ends with the stream's end instead
			// of an answer: ended, not left waiting, which is what this checks.
			if (status == http.StatusOK || status == http.StatusAccepted) && events && !truth.endpointFirst && got.answer == nil &&
				!(got.err != nil && unreadableOurs(body, ourID)) {
				t.Fatalf("a stream that does not end was not answered (%v)", got.err)
			}
		}
	})
}

// unreadableOurs reports whether an event of body carries data that is not JSON but names
// the id ourID as a member, as the Transport's scanner of members reads it.
func unreadableOurs(body, ourID string) bool {
	named := regexp.MustCompile(`"id"\s*:\s*` + regexp.QuoteMeta(ourID) + `\s*[,}]`)
	for _, ev := range strings.Split(strings.ReplaceAll(body, "\r", ""), "\n\n") {
		var data []string
		for _, line := range strings.Split(ev, "\n") {
			if v, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(v, " "))
			}
		}
		if d := strings.Join(data, "\n"); d != "" && !json.Valid([]byte(d)) && named.MatchString(d) {
			return true
		}
	}
	return false
}

// fuzzRead is what mcp-go's streamable HTTP transport makes of an answer to its POST.
type fuzzRead struct {
	answer *transport.JSONRPCResponse // the reply taken as the answer (nil: none)
	data   string                     // its text
	rawID  json.RawMessage            // its id as written
	err    error
	// Of the messages read up to the answer: over, one was (about) as long as the cap or
	// longer; overBefore, one before the answer was; tooLong, the text of a message
	// longer than the cap that a limited reader handed on.
	over, overBefore bool
	tooLong          string
	// endpointFirst: the stream's first event is a legacy SSE endpoint event, which
	// the Transport refuses (endpointSniffer).
	endpointFirst bool
}

// fuzzMCPRead reads r as mcp-go's StreamableHTTP.SendRequest reads a POST's answer: a
// body of any status but 200 or 202 whole, as one JSON message; a JSON body's first
// value; an event stream's events up to the first reply. Messages are judged against
// limit; limited: r is the Transport's. Without it, replies that name another id than
// want are passed over, as the Transport should pass them over: the reply found is the
// one that should be the answer.
func fuzzMCPRead(r io.Reader, status int, ct string, limit int, limited bool, want mcp.RequestId) fuzzRead {
	var out fuzzRead
	rawID := func(data []byte) json.RawMessage {
		var id struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(data, &id)
		return id.ID
	}
	take := func(data string) bool {
		var m transport.JSONRPCResponse
		if json.Unmarshal([]byte(data), &m) != nil || m.ID.IsNil() {
			return false
		}
		var raw map[string]json.RawMessage
		if json.Unmarshal([]byte(data), &raw) == nil {
			if _, ok := raw["method"]; ok {
				var req transport.JSONRPCRequest
				if json.Unmarshal([]byte(data), &req) == nil {
					return false // the server's own request
				}
			}
		}
		if !limited && m.ID.String() != want.String() {
			return false
		}
		out.answer, out.data, out.rawID = &m, data, rawID([]byte(data))
		out.overBefore = out.over
		return true
	}
	if status != http.StatusOK && status != http.StatusAccepted {
		b, _ := io.ReadAll(r)
		var m transport.JSONRPCResponse
		if json.Unmarshal(b, &m) == nil {
			out.answer, out.data, out.rawID = &m, string(b), rawID(b)
		}
		out.over = len(b) >= limit
		return out
	}
	if ct == "application/json" {
		var raw json.RawMessage
		if out.err = json.NewDecoder(r).Decode(&raw); out.err == nil {
			var m transport.JSONRPCResponse
			if out.err = json.Unmarshal(raw, &m); out.err == nil && !m.ID.IsNil() {
				out.answer, out.data, out.rawID = &m, string(raw), rawID(raw)
			}
		}
		return out
	}
	br := bufio.NewReader(r)
	var event, data string
	size := 0                    // bytes of the current message as the reply cap counts them: its lines since a blank one
	first, fields := true, false // in the first event; it had a field
	ended := func() {
		if size >= limit {
			out.over = true
		}
		// The Transport's own errors may be longer than a small cap.
		own := strings.Contains(data, "larger than the bridge accepts") || strings.Contains(data, "named another request's id")
		if limited && len(data) > limit+2 && out.tooLong == "" && !own {
			out.tooLong = data
		}
		size = 0
	}
	for {
		line, err := br.ReadString('\n')
		size += len(line)
		if err != nil {
			ended()
			if data != "" {
				take(data)
			}
			out.err = err
			return out
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			first = first && !fields
			ended()
			if data != "" {
				if take(data) {
					return out
				}
				event, data = "", ""
			}
			continue
		case first && !strings.HasPrefix(line, ":"):
			fields = true
			if v, ok := strings.CutPrefix(line, "event:"); ok && strings.TrimSpace(v) == "endpoint" {
				out.endpointFirst = true
			}
		}
		if v, ok := strings.CutPrefix(line, "event:"); ok {
			event = strings.TrimSpace(v)
		} else if v, ok := strings.CutPrefix(line, "data:"); ok {
			v = strings.TrimPrefix(v, " ")
			if data == "" {
				data = v
			} else {
				data += "\n" + v
			}
		}
		_ = event // mcp-go reads any event type as a message
	}
}

// fuzzSource hands on s, then (endless) filler without end, in reads of the given
// sizes in turn; a reader that goes on after stop bytes of filler gets an error, so that
// the oracle rather than the fuzzer's timeout tells of it.
type fuzzSource struct {
	s       string
	endless bool
	stop    int
	sizes   []int
	i       int
}

func (p *fuzzSource) Read(b []byte) (int, error) {
	k := min(len(b), p.sizes[p.i%len(p.sizes)])
	p.i++
	if len(p.s) == 0 {
		if !p.endless {
			return 0, io.EOF
		}
		if p.stop -= k; p.stop < 0 {
			return 0, errors.New("read too far")
		}
		for i := range b[:k] {
			b[i] = 'x'
		}
		return k, nil
	}
	n := copy(b[:k], p.s)
	p.s = p.s[n:]
	return n, nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

// fuzzLegacyStream checks the endpoint events of a legacy SSE stream through the
// Transport (endpointGuard), read as mcp-go's SSE transport reads the stream: the events
// it dispatches are those of the stream itself up to the first endpoint event that names
// another origin than the server's (or no url, or one too long to check), and then the
// stream fails with an *EndpointError, which the probe is told of; an endpoint it takes
// is on the server's origin. The cap is out of the way here.
func fuzzLegacyStream(t *testing.T, body string, sizes []int) {
	const server = "http://127.0.0.1:8080/sse"
	if len(body) >= 1<<20 {
		return
	}
	tr := NewTransport(Options{Kind: config.TransportSSE, URL: server, MaxReply: 1 << 20})
	ctx, p := WithProbe(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(&fuzzSource{s: body, sizes: sizes}), Request: req}
	resp, err = tr.answer(req, resp, false)
	if err != nil {
		t.Fatalf("answer: %v", err)
	}
	base, _ := url.Parse(server)
	got, gotErr := fuzzLegacyEvents(resp.Body)
	truth, _ := fuzzLegacyEvents(strings.NewReader(body))
	refusedAt := -1
	for i, e := range truth {
		if e[0] != "endpoint" {
			continue
		}
		u, err := base.Parse(e[1])
		if err != nil || len(e[1]) > maxEndpointData || u.Scheme != base.Scheme || u.Host != base.Host {
			refusedAt = i
			break
		}
	}
	var ee *EndpointError
	if refusedAt < 0 {
		if !slices.Equal(got, truth) || gotErr != nil || p.Refusal() != nil {
			t.Fatalf("a stream whose endpoints are all the server's was changed: got %q (%v, refusal %v), want %q", got, gotErr, p.Refusal(), truth)
		}
		return
	}
	if !slices.Equal(got, truth[:refusedAt]) || !errors.As(gotErr, &ee) || !errors.As(p.Refusal(), &ee) {
		t.Fatalf("the endpoint event %q was not refused where it came: got %q (%v, refusal %v), want %q", truth[refusedAt], got, gotErr, p.Refusal(), truth[:refusedAt])
	}
}

// fuzzLegacyEvents reads r as mcp-go's SSE transport reads its stream and returns the
// events it dispatches (type and data) and the error the stream ended with (nil: its
// end).
func fuzzLegacyEvents(r io.Reader) ([][2]string, error) {
	var out [][2]string
	br := bufio.NewReader(r)
	var event, data string
	dispatch := func() {
		if event == "" {
			event = "message"
		}
		out = append(out, [2]string{event, data})
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				if data != "" {
					dispatch()
				}
				return out, nil
			}
			return out, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if data != "" {
				dispatch()
				event, data = "", ""
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "event:"); ok {
			event = strings.TrimSpace(v)
		} else if v, ok := strings.CutPrefix(line, "data:"); ok {
			v = strings.TrimPrefix(v, " ")
			if data == "" {
				data = v
			} else {
				data += "\n" + v
			}
		}
	}
}
