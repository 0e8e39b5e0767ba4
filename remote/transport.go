// Package remote is the HTTP side of MCP servers: the session.Session over mcp-go's
// streamable-HTTP and SSE transports (transport fallback, session re-initialization,
// failures classified and worded as session.Error kinds), OAuth (the credential store,
// refresh, the login's steps), and the HTTP layer under them: the RoundTripper that adds
// configured headers and notes what the server answered, the sniffer that spots a legacy
// SSE server, and mcp-go's log sent to ours (internal/zslog). It knows nothing of the
// bridge's state machine, which reaches it only through the connector the wiring gives it.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/redact"
	"github.com/zot-mcp/mcp-bridge/session"
)

// Transport adds the configured headers to every request for the server's origin (never
// to a redirect target or an OAuth endpoint elsewhere), applies the redirect rule
// (origin.go) and notes each answer in the request's Probe; it holds streamable HTTP's GET
// stream back after failed attempts.
type Transport struct {
	base    *http.Transport
	kind    config.Transport
	scheme  string
	host    string   // host:port, lower case
	url     *url.URL // the server's url (nil: it does not parse)
	headers map[string]string
	redact  func(string) string
	clock   clock.Clock
	// answered is Options.Answered (nil: nobody is told).
	answered func(method string, status int)
	maxReply int         // Options.MaxReply
	dropped  func(error) // Options.Dropped

	replyLost func(error) // Options.ReplyLost

	mu          sync.Mutex
	listenFails int // GET stream attempts in a row that could not reach the server
}

// ListenRetry is mcp-go's fixed pause before it reopens a broken GET stream; ListenMax
// caps our backoff on top of it.
const (
	ListenRetry = time.Second
	ListenMax   = time.Minute
)

// ListenBackoff is the extra wait before the next GET stream attempt after fails
// attempts in a row failed: with mcp-go's own second, 2s, 4s, 8s ... up to a minute.
func ListenBackoff(fails int) time.Duration {
	if fails <= 0 {
		return 0
	}
	total := ListenMax
	if fails < 6 {
		total = min(ListenRetry<<fails, ListenMax)
	}
	return total - ListenRetry
}

// isListen says whether req opens streamable HTTP's optional GET stream (not a resumption).
func (t *Transport) isListen(req *http.Request) bool {
	return req.Method == http.MethodGet && t.kind == config.TransportStreamableHTTP && req.Header.Get("Last-Event-ID") == ""
}

// listenWait holds a GET stream attempt back after failed ones.
func (t *Transport) listenWait(ctx context.Context) error {
	t.mu.Lock()
	d := ListenBackoff(t.listenFails)
	t.mu.Unlock()
	if d <= 0 {
		return nil
	}
	ch, tm := clock.After(t.clock, d)
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		tm.Stop()
		return ctx.Err()
	}
}

func (t *Transport) listenResult(reached bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if reached {
		t.listenFails = 0
	} else {
		t.listenFails++
	}
}

// Options configure a Transport.
type Options struct {
	Kind           config.Transport
	URL            string
	Headers        map[string]string // already ${VAR}-expanded
	ConnectTimeout time.Duration
	Resolver       *net.Resolver // nil: the system resolver
	Redact         func(string) string
	Clock          clock.Clock
	// Base, when set, is the transport requests go through as they are (tests); nil: a
	// clone of http.DefaultTransport with the connect timeouts.
	Base *http.Transport
	// Answered is told of every answer after it is noted in the request's probe (Deps).
	Answered func(method string, status int)
	// MaxReply bounds one message the server sends (0: session.DefaultMaxReply), as for
	// stdio servers.
	MaxReply int
	// Dropped is told of a message that was dropped and fails no request: an over-size
	// server request or notification on an event stream, or a reply that named another
	// id than the POST it answers (session.LimitOptions.Dropped); nil: nobody is told.
	Dropped func(error)
	// ReplyLost is told, on the stream's reader and before mcp-go reads the stream's end,
	// that an over-size reply on an event stream could not be matched to its request
	// (no id found, on a stream that answers no POST; or any reply on streamable HTTP's
	// GET stream, whose replies mcp-go hands to no caller): the stream is over
	// (session.ReplyLimiter.Lost) and err is a *session.TooLargeError. nil: nobody is told.
	ReplyLost func(error)
}

// NewTransport makes the RoundTripper of one server connection.
func NewTransport(o Options) *Transport {
	base := o.Base
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
		base.DialContext = (&net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second, Resolver: o.Resolver}).DialContext
		base.TLSHandshakeTimeout = o.ConnectTimeout
	}
	redact := o.Redact
	if redact == nil {
		redact = func(s string) string { return s }
	}
	t := &Transport{base: base, kind: o.Kind, headers: o.Headers, redact: redact, clock: o.Clock, answered: o.Answered,
		maxReply: o.MaxReply, dropped: o.Dropped, replyLost: o.ReplyLost}
	if u, err := url.Parse(o.URL); err == nil {
		t.scheme, t.host, t.url = u.Scheme, canonicalHost(u), u
	}
	return t
}

// prepare is req as it may be sent, for every request of the connection, MCP or OAuth:
// the redirect rule applied (guardRedirect), then the configured headers added when req
// is for the server's own origin, except a configured Authorization when noAuth or when
// req carries one already (set by mcp-go's OAuth handler).
func (t *Transport) prepare(req *http.Request, noAuth bool) (*http.Request, error) {
	req, err := guardRedirect(req, t.headers)
	if err != nil || len(t.headers) == 0 || !t.sameOrigin(req.URL) {
		return req, err
	}
	noAuth = noAuth || req.Header.Get("Authorization") != ""
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		if noAuth && http.CanonicalHeaderKey(k) == "Authorization" {
			continue
		}
		req.Header.Set(k, v)
	}
	return req, nil
}

// CloseIdleConnections closes the transport's idle connections.
func (t *Transport) CloseIdleConnections() { t.base.CloseIdleConnections() }

// Redact hides the server's secrets in a text.
func (t *Transport) Redact(s string) string { return t.redact(s) }

func canonicalHost(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}

func (t *Transport) sameOrigin(u *url.URL) bool {
	return u.Scheme == t.scheme && canonicalHost(u) == t.host
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	req, err := t.prepare(req, false)
	if err != nil {
		return nil, err
	}
	listen := t.isListen(req)
	if listen {
		if err := t.listenWait(req.Context()); err != nil {
			return nil, err
		}
	}
	var trace connTrace
	resp, err := t.base.RoundTrip(trace.traced(req))
	if listen {
		t.listenResult(err == nil)
	}
	if err != nil {
		return nil, trace.mark(err)
	}
	return t.answer(req, resp, listen)
}

// answer is what RoundTrip makes of the server's answer resp to req: noted in the probe,
// its body limited and watched, or an answer mcp-go would misread replaced.
func (t *Transport) answer(req *http.Request, resp *http.Response, listen bool) (*http.Response, error) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	p := probeFrom(req.Context())
	p.record(req.Method, resp.StatusCode, ct, req.Header.Get(transport.HeaderKeySessionID) != "")
	if resp.StatusCode == http.StatusUnauthorized && OAuthChallenge(resp.Header) {
		p.markOAuth()
	}
	if resp.StatusCode == http.StatusForbidden {
		if scopes, ok := insufficientScope(resp.Header); ok {
			p.markInsufficientScope(scopes)
		}
	}
	if t.answered != nil {
		t.answered(req.Method, resp.StatusCode)
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if !listen || (ok && ct == "text/event-stream") {
		resp.Body = t.limit(req, resp, ct, listen)
	}
	switch {
	case listen && resp.StatusCode != http.StatusNotFound && (!ok || ct != "text/event-stream"):
		// The optional GET stream is unusable (an error, a login page...). mcp-go would
		// retry it every second for the life of the connection; 405 makes it stop.
		drain(resp.Body)
		return &http.Response{Status: "405 Method Not Allowed", StatusCode: http.StatusMethodNotAllowed, Proto: resp.Proto,
			ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
	case req.Method == http.MethodGet && t.kind == config.TransportSSE && ok && ct != "text/event-stream":
		// mcp-go would read an HTML page as an event stream and wait for an endpoint event
		// until its timeout.
		drain(resp.Body)
		return nil, &NotMCPError{contentType: ct}
	case req.Method == http.MethodGet && t.kind == config.TransportSSE && ok && t.url != nil:
		resp.Body = &endpointGuard{rc: resp.Body, base: t.url, p: p}
	case req.Method == http.MethodPost && t.kind == config.TransportStreamableHTTP && ok && ct == "text/event-stream":
		resp.Body = &endpointSniffer{rc: resp.Body, p: p}
	}
	return resp, nil
}

// limit caps every message read from body at the reply cap, with the one limiter stdio
// servers' replies go through (session.ReplyLimiter): an event stream per event, anything
// else as one message. A POST's body or event stream, and the GET that resumes that
// stream (resume.go), carry that request's answer and no other reply
// (session.LimitOptions.OneAnswer): a reply there that names another id is dropped and
// logged, and an over-size event that names no id fails the request. On any other
// stream such an event ends the stream and the connection learns of it
// (Options.ReplyLost), and so does any over-size reply on the GET stream (listen), whose
// replies mcp-go hands to no caller.
func (t *Transport) limit(req *http.Request, resp *http.Response, ct string, listen bool) io.ReadCloser {
	o := session.LimitOptions{Limit: t.maxReply, Framing: session.FrameBody, Dropped: t.dropped}
	if req.Method == http.MethodPost {
		o.ID, o.OneAnswer = requestID(req), true
	} else if id := t.resumedID(req); id != nil {
		o.ID, o.OneAnswer = id, true // the rest of a POST's event stream (resume.go)
	}
	// mcp-go reads an event stream only from a 200 or 202 answer; any other answer's body
	// it reads whole as one message, whatever its content type.
	if ct == "text/event-stream" && (resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusAccepted) {
		o.Framing = session.FrameEvents
		o.RepliesUnread = listen
	}
	l := session.NewReplyLimiter(resp.Body, o)
	if o.Framing == session.FrameEvents && t.replyLost != nil {
		return &lostStream{ReplyLimiter: l, lost: t.replyLost}
	}
	return l
}

// lostStream tells the connection when its limiter gave up on the event stream, before
// the stream's end reaches mcp-go, so that what the waiting calls learn is the reply cap
// and not a dropped stream.
type lostStream struct {
	*session.ReplyLimiter
	lost func(error)
}

func (s *lostStream) Read(p []byte) (int, error) {
	n, err := s.ReplyLimiter.Read(p)
	if err == io.EOF {
		select {
		case <-s.Lost():
			s.lost(&session.TooLargeError{Limit: s.Limit()})
		default:
		}
	}
	return n, err
}

// requestID is the JSON-RPC id of the request req sends (nil: none), read from the start
// of a copy of its body.
func requestID(req *http.Request) json.RawMessage {
	if req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	head, _ := io.ReadAll(io.LimitReader(rc, 512))
	id, ok := session.MessageID(head)
	if !ok {
		return nil
	}
	return id
}

func drain(rc io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(rc, 64<<10))
	_ = rc.Close()
}

// NotMCPError is an answer that is not an MCP event stream.
type NotMCPError struct{ contentType string }

func (e *NotMCPError) Error() string {
	return fmt.Sprintf("not an MCP event stream (content type %q)", e.contentType)
}

// Describe words the answer for the user, given its HTTP status.
func (e *NotMCPError) Describe(status int) string {
	if IsHTML(e.contentType) {
		return fmt.Sprintf("the url answered with an HTML page (HTTP %d), not an MCP event stream; it may point at a website, a login page or a proxy instead of the MCP endpoint", status)
	}
	return fmt.Sprintf("the url answered with content type %q (HTTP %d), not an MCP event stream (text/event-stream)", e.contentType, status)
}

// errSSEEndpoint stops reading a POST answer that turned out to be a legacy SSE stream.
var errSSEEndpoint = errors.New("the server answered with a legacy SSE endpoint event")

// endpointSniffer passes an SSE body through, but fails it if its first event is a legacy
// SSE "endpoint" event: the server ignored our POST and opened an SSE session instead.
type endpointSniffer struct {
	rc     io.ReadCloser
	p      *Probe
	buf    []byte
	fields bool
	done   bool
}

func (s *endpointSniffer) Read(b []byte) (int, error) {
	n, err := s.rc.Read(b)
	if s.done || n == 0 {
		return n, err
	}
	s.buf = append(s.buf, b[:n]...)
	for !s.done {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(s.buf[:i]), "\r")
		s.buf = s.buf[i+1:]
		switch {
		case line == "":
			s.done = s.fields // the first event is complete
		case strings.HasPrefix(line, ":"): // comment
		default:
			s.fields = true
			if ev, ok := strings.CutPrefix(line, "event:"); ok && strings.TrimSpace(ev) == "endpoint" {
				s.p.markEndpoint()
				s.done = true
				return 0, errSSEEndpoint
			}
		}
	}
	if s.done || len(s.buf) > 8<<10 {
		s.done, s.buf = true, nil
	}
	return n, err
}

func (s *endpointSniffer) Close() error { return s.rc.Close() }

// IsHTML says whether a media type is a web page.
func IsHTML(ct string) bool { return ct == "text/html" || ct == "application/xhtml+xml" }

// OAuthChallenge says whether a 401 answer announces OAuth (an RFC 9728
// resource_metadata parameter in WWW-Authenticate).
func OAuthChallenge(h http.Header) bool {
	for _, v := range h.Values("WWW-Authenticate") {
		if strings.Contains(strings.ToLower(v), "resource_metadata") {
			return true
		}
	}
	return false
}

// EndpointError is a legacy SSE server's endpoint event that the bridge refuses: it named
// a url on another origin than the server's url (another scheme, host or port; or no url
// at all). mcp-go would ignore an endpoint on another host and wait for another event
// until its endpoint timeout, and follow one on the same host with another scheme.
type EndpointError struct {
	// Endpoint is the url it named, for messages (redact.DisplayURL: no user info nor
	// query); "" when it named none that parses.
	Endpoint string
}

func (e *EndpointError) Error() string {
	if e.Endpoint == "" {
		return "the server's SSE endpoint event named no usable url, so there is nowhere to send requests; the server (or a proxy in front of it) is misconfigured"
	}
	return "the server's SSE endpoint event pointed at another origin than its url (" + e.Endpoint + "); the bridge refuses to send requests there for safety: they would carry the session, and any credentials, to a place the configuration does not name. Check the url, or ask the server's operator (a proxy in front of it may rewrite the endpoint)"
}

// maxEndpointData bounds what endpointGuard keeps of one event's data: an endpoint url
// is short, and one longer than this is refused.
const maxEndpointData = 16 << 10

// endpointGuard passes a legacy SSE stream through but checks, before mcp-go reads it,
// every endpoint event it carries, read as mcp-go's SSE reader reads events: one that
// names another origin than base (the server's url) fails the stream with an
// *EndpointError instead, and the probe of the request that opened the stream is told
// (Probe.Refused), so that a connect waiting for the endpoint fails at once.
type endpointGuard struct {
	rc   io.ReadCloser
	base *url.URL
	p    *Probe

	line     []byte // what matters of the current line so far (keep)
	lineLong bool   // a data field's was cut
	event    string // the current event's type
	data     []byte // its data
	dataLong bool
	err      error
}

func (g *endpointGuard) Read(b []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.rc.Read(b)
	for i := 0; i < n; {
		j := bytes.IndexByte(b[i:n], '\n')
		if j < 0 {
			g.keep(b[i:n])
			break
		}
		g.keep(b[i : i+j])
		if g.lineEnded() {
			// Nothing from the line that would dispatch the refused event on.
			return i + j, nil
		}
		i += j + 1
	}
	if err == io.EOF && len(g.data) > 0 && g.refused() {
		return n, nil // mcp-go dispatches an event the stream's end cuts off
	}
	return n, err
}

func (g *endpointGuard) Close() error { return g.rc.Close() }

// keep keeps what matters of b, more of the current line: enough to know its field; an
// event's type whole (the reply cap below bounds it), as it is read with its spaces
// trimmed; the start of a data field.
func (g *endpointGuard) keep(b []byte) {
	if len(g.line) < len("event:") {
		k := min(len(b), len("event:")-len(g.line))
		g.line, b = append(g.line, b[:k]...), b[k:]
	}
	switch {
	case bytes.HasPrefix(g.line, []byte("event:")):
		g.line = append(g.line, b...)
	case bytes.HasPrefix(g.line, []byte("data:")):
		if room := maxEndpointData + len("data: ") - len(g.line); len(b) > room {
			b, g.lineLong = b[:max(room, 0)], true
		}
		g.line = append(g.line, b...)
	}
}

// lineEnded reads the line that just ended as mcp-go's SSE reader does and says whether
// it refused the event it dispatched.
func (g *endpointGuard) lineEnded() bool {
	line := bytes.TrimRight(g.line, "\r\n")
	long := g.lineLong
	g.line, g.lineLong = g.line[:0], false
	switch {
	case len(line) == 0:
		if len(g.data) == 0 {
			return false // no event (the reader keeps its type)
		}
		refused := g.refused()
		g.event, g.data, g.dataLong = "", g.data[:0], false
		return refused
	case bytes.HasPrefix(line, []byte("event:")):
		g.event = strings.TrimSpace(string(line[len("event:"):]))
	case bytes.HasPrefix(line, []byte("data:")):
		v := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
		if len(g.data) > 0 {
			g.data = append(g.data, '\n')
		}
		g.data = append(g.data, v...)
		if long || len(g.data) > maxEndpointData {
			g.data, g.dataLong = g.data[:min(len(g.data), maxEndpointData)], true
		}
	}
	return false
}

// refused checks the event read so far when it is an endpoint event; a refused one fails
// the stream and tells the probe.
func (g *endpointGuard) refused() bool {
	if g.event != "endpoint" {
		return false
	}
	var e *EndpointError
	u, err := g.base.Parse(string(g.data))
	switch {
	case g.dataLong || err != nil:
		e = &EndpointError{}
	case u.Scheme != g.base.Scheme || u.Host != g.base.Host:
		// mcp-go compares hosts as written; the scheme is our addition.
		e = &EndpointError{Endpoint: redact.DisplayURL(&config.Server{Raw: config.Raw{URL: u.String()}})}
	default:
		return false
	}
	g.err = e
	g.p.refuse(e)
	return true
}
