package serve

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// Defaults of the HTTP front end's bounds.
const (
	// DefaultMaxBody is the largest POST body accepted: MCP messages are small, and a
	// local bridge has no reason to buffer more for anyone.
	DefaultMaxBody = 1 << 20
	// DefaultMaxConns bounds the connections served at once; more wait in the kernel's
	// accept queue until one ends.
	DefaultMaxConns = 256
	// DefaultReadHeaderTimeout bounds a client that opens a connection and sends no
	// request (or trickles its headers).
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout closes keep-alive connections nobody uses.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultWriteStall is how long one piece of a response may wait on a client that
	// does not read before its connection is closed.
	DefaultWriteStall = 30 * time.Second
)

// stallChunk is the most written to a connection under one stall timer: the bound is on
// progress, so a large response to a slow but reading client is not cut off for being
// large.
const stallChunk = 64 << 10

// ErrNotLoopback is what ListenGuarded returns (wrapped) for an address it refuses.
var ErrNotLoopback = errors.New("not a loopback address")

// ErrWriteStalled is the write error of a connection closed because its client stopped
// reading.
var ErrWriteStalled = errors.New("the client stopped reading its response; connection closed")

// NewSecret returns a fresh random path secret (crypto/rand, at least 128 bits, letters
// and digits only, so it needs no escaping in a URL).
func NewSecret() string { return rand.Text() }

// GuardOptions is what Guard checks a request against.
type GuardOptions struct {
	// Path is the one path served: "/mcp/" + NewSecret() for a run without a token, or
	// "/mcp" when Token is set.
	Path string
	// Token, when not empty, must come as "Authorization: Bearer <Token>".
	Token string
	// Addr is the address the listener is bound to (its Addr().String(), so the real
	// port of a ":0" listen). The Host header must name it: a loopback name with its port,
	// or for a non-loopback listen the bound host itself.
	Addr string
	// Hosts are further Host values ("name:port") accepted, for a non-loopback listen
	// reached under a DNS name or through a load balancer.
	Hosts []string
	// MaxBody is the largest POST body accepted; 0 means DefaultMaxBody.
	MaxBody int64
}

// guard is the checking handler Guard returns.
type guard struct {
	next    http.Handler
	path    []byte
	token   *[sha256.Size]byte // nil: no token asked for
	hosts   map[string]bool    // normalised "host:port" values the Host header may carry
	origins map[string]bool    // normalised "host:port" of the loopback origins allowed
	maxBody int64
}

// Guard wraps next (mcp-go's StreamableHTTPServer) with the checks a local MCP endpoint
// needs. The order matters: Host and Origin come first, so a page in a browser that
// rebinds a name to 127.0.0.1 learns nothing about the path; then the path and method
// (404, saying nothing else), the token (401), the body's size (413) and that it is
// JSON (400, a JSON-RPC parse error). Only a request that passes all of them reaches
// next, with its body unchanged.
//
// mcp-go's own DNS-rebinding check rejects a non-loopback Host on a loopback connection
// and checks neither the port, the Origin header, the path nor the body; serve turns it
// off (HTTPHandler), since it would refuse the names --host allows, and Guard alone
// decides.
func Guard(next http.Handler, o GuardOptions) http.Handler {
	g := &guard{
		next:    next,
		path:    []byte(o.Path),
		hosts:   map[string]bool{},
		origins: map[string]bool{},
		maxBody: o.MaxBody,
	}
	if g.maxBody <= 0 {
		g.maxBody = DefaultMaxBody
	}
	if o.Token != "" {
		sum := sha256.Sum256([]byte(o.Token))
		g.token = &sum
	}
	// An address that does not parse leaves both sets empty: every request is then
	// refused at the Host check, never let through.
	if host, port, err := net.SplitHostPort(o.Addr); err == nil && port != "" && port != "0" {
		for _, name := range []string{"127.0.0.1", "localhost", "::1"} {
			k := net.JoinHostPort(name, port)
			g.hosts[k] = true
			g.origins[k] = true
		}
		if ip, err := netip.ParseAddr(host); err == nil && !ip.IsUnspecified() && !ip.IsLoopback() {
			g.hosts[net.JoinHostPort(ip.Unmap().String(), port)] = true
		} else if err != nil && host != "" {
			g.hosts[net.JoinHostPort(strings.ToLower(host), port)] = true
		}
	}
	for _, h := range o.Hosts {
		if k, ok := hostKey(h); ok {
			g.hosts[k] = true
		}
	}
	return g
}

// hostKey normalises a Host header value (or an origin's host) to "host:port": the name
// lower-cased, an IP literal in its canonical form, the port 80 when none is given.
func hostKey(hostport string) (string, bool) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), "80"
	}
	if host == "" || port == "" {
		return "", false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		host = ip.Unmap().String()
	} else {
		host = strings.ToLower(host)
	}
	return net.JoinHostPort(host, port), true
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// 421 Misdirected Request, not 403: the request is not forbidden to its sender, it is
	// addressed to another authority than this server (a rebound name, a wrong port, a
	// proxy that kept the public Host). The distinct status also tells whoever debugs it
	// that the Host check fired, not the Origin check.
	if k, ok := hostKey(r.Host); !ok || !g.hosts[k] {
		http.Error(w, "421 misdirected request: the Host header does not name this server's address", http.StatusMisdirectedRequest)
		return
	}
	if origin, sent := r.Header["Origin"]; sent && !g.originOK(origin) {
		http.Error(w, "403 forbidden: requests from a web page's origin are refused", http.StatusForbidden)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.URL.Path), g.path) != 1 {
		http.NotFound(w, r)
		return
	}
	switch r.Method {
	case http.MethodPost, http.MethodGet, http.MethodDelete:
	default:
		http.NotFound(w, r)
		return
	}
	if g.token != nil && !g.tokenOK(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-bridge"`)
		http.Error(w, "401 unauthorized: send the token from --token-file as Authorization: Bearer <token>", http.StatusUnauthorized)
		return
	}
	if r.Method == http.MethodPost && !g.readBody(w, r) {
		return
	}
	g.next.ServeHTTP(w, r)
}

// originOK reports whether the Origin header names this server on a loopback name.
// Clients that are not browsers send none; a browser always does, so a page elsewhere
// can neither call the server nor read what it answers.
func (g *guard) originOK(values []string) bool {
	if len(values) != 1 {
		return false
	}
	u, err := url.Parse(values[0])
	if err != nil || u.Scheme != "http" || u.User != nil || (u.Path != "" && u.Path != "/") {
		return false
	}
	k, ok := hostKey(u.Host)
	return ok && g.origins[k]
}

// tokenOK compares the bearer credential with the token in constant time (hashed first,
// so not even the length is told).
func (g *guard) tokenOK(auth string) bool {
	scheme, cred, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(cred)))
	return subtle.ConstantTimeCompare(sum[:], g.token[:]) == 1
}

// readBody reads the whole POST body, at most maxBody+1 bytes of it, and puts it back on
// r for next; it answers and reports false for a body too large (413), cut short (400)
// or not JSON (400, a JSON-RPC parse error).
func (g *guard) readBody(w http.ResponseWriter, r *http.Request) bool {
	if r.ContentLength > g.maxBody {
		// Answered before reading any of it; net/http then closes the connection rather
		// than drain a body this large.
		tooLarge(w, g.maxBody)
		return false
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	// MaxBytesReader also tells net/http not to keep reading the rest of a body it cut.
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, g.maxBody))
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		tooLarge(w, g.maxBody)
		return false
	}
	if err != nil {
		http.Error(w, "400 bad request: the request body ended early", http.StatusBadRequest)
		return false
	}
	if !json.Valid(buf.Bytes()) {
		writeParseError(w)
		return false
	}
	body := buf.Bytes()
	r.Body = http.NoBody
	if len(body) > 0 {
		r.Body = readCloser{bytes.NewReader(body)}
	}
	r.ContentLength = int64(len(body))
	return true
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

func tooLarge(w http.ResponseWriter, limit int64) {
	w.Header().Set("Connection", "close")
	http.Error(w, fmt.Sprintf("413 request body too large: at most %d bytes are accepted", limit), http.StatusRequestEntityTooLarge)
}

// parseErrorBody is the JSON-RPC answer to a body that is not JSON: no id can be read
// from it, so the id is null.
var parseErrorBody = func() []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": mcp.PARSE_ERROR, "message": "Parse error: the request body is not valid JSON"},
	})
	return b
}()

func writeParseError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(parseErrorBody)
}

// ListenGuarded listens on addr (default "127.0.0.1:0") and bounds the connections
// served at once to maxConns (0: DefaultMaxConns); the listener's Addr is the address
// actually bound. An address that is not loopback is refused unless allowNonLoopback,
// which the caller sets only for an explicit --listen together with a token; a name is
// checked again once bound, on the address it resolved to. ctx bounds only the listen
// itself.
func ListenGuarded(ctx context.Context, addr string, allowNonLoopback bool, maxConns int) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w; give host:port, such as 127.0.0.1:0", addr, err)
	}
	if !allowNonLoopback && !loopbackHost(host) {
		return nil, notLoopback(addr)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !allowNonLoopback && !tcp.IP.IsLoopback() {
		_ = ln.Close()
		return nil, notLoopback(addr)
	}
	return &limitListener{Listener: ln, slots: make(chan struct{}, maxConns), done: make(chan struct{})}, nil
}

func notLoopback(addr string) error {
	return fmt.Errorf("refusing to serve on %s: %w; a non-loopback address needs both an explicit --listen ADDR and a token from --token-file", addr, ErrNotLoopback)
}

// loopbackHost reports whether a listen host is a loopback IP or "localhost"; the empty
// host (every interface) is not.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// limitListener accepts a connection only while fewer than cap(slots) are open; the
// others wait in the kernel's accept queue, which is what holds a flood instead of a
// goroutine and a buffer per connection.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	// full, when set (by tests), is called whenever Accept has to wait for a slot.
	full func()
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		if l.full != nil {
			l.full()
		}
		select {
		case l.slots <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// CloseWrite lets net/http half-close the connection before it closes it, as it does on
// a plain *net.TCPConn.
func (c *limitConn) CloseWrite() error { return closeWrite(c.Conn) }

// SetLinger reaches the TCP connection, so a stalled one can be reset rather than drained.
func (c *limitConn) SetLinger(sec int) error {
	if l, ok := c.Conn.(interface{ SetLinger(int) error }); ok {
		return l.SetLinger(sec)
	}
	return nil
}

func closeWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ServerOptions are the HTTP server's bounds; zero fields take the defaults.
type ServerOptions struct {
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	// WriteStall bounds how long one piece of a response (at most stallChunk bytes) may
	// take to be written; a connection that passes it is closed.
	WriteStall time.Duration
	// Clock times WriteStall; nil is the system clock.
	Clock clock.Clock
}

// Serve serves h on ln until ctx ends, then closes the listener and every connection
// (the caller ends mcp-go's sessions first if they should be told). Handlers' contexts
// derive from ctx.
//
// A client that never reads its response is bounded per write, not by
// http.Server.WriteTimeout: WriteTimeout is one deadline from the start of a request, so
// it would also cut every long-lived GET event stream and every long tool call's POST
// stream at the same age, however well their clients read. Instead each write to the
// connection gets WriteStall to complete (in pieces of at most stallChunk bytes, so a large answer
// to a slow reader is not cut for its size); a write that does not finish in time closes
// the connection, which fails the handler's write and ends its request. An idle stream
// writes nothing and is never cut. The watch sits on the connection, not on the
// ResponseWriter, so it also covers what net/http writes itself after the handler returns
// (the last chunk of a response), and it leaves the write deadlines mcp-go sets through
// http.ResponseController alone. ReadTimeout is left unset for the same reason as
// WriteTimeout: a request's read deadline would also cancel a long GET stream's context.
// What it would bound is already bounded: headers by ReadHeaderTimeout, the body's size by
// Guard, and only a client past Guard's path and token checks has its body read at all.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, o ServerOptions) error {
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.WriteStall <= 0 {
		o.WriteStall = DefaultWriteStall
	}
	if o.Clock == nil {
		o.Clock = clock.System{}
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	stop := context.AfterFunc(ctx, func() { _ = srv.Close() })
	defer stop()
	err := srv.Serve(&stallListener{Listener: ln, clk: o.Clock, d: o.WriteStall})
	if errors.Is(err, http.ErrServerClosed) && ctx.Err() != nil {
		return nil
	}
	return err
}

type stallListener struct {
	net.Listener
	clk clock.Clock
	d   time.Duration
}

func (l *stallListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &stallConn{Conn: c, clk: l.clk, d: l.d}, nil
}

// stallConn closes itself when a write to it does not complete within d.
type stallConn struct {
	net.Conn
	clk clock.Clock
	d   time.Duration
}

func (c *stallConn) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		end := min(len(p), n+stallChunk)
		t := c.clk.AfterFunc(c.d, c.abort)
		m, err := c.Conn.Write(p[n:end])
		stalled := !t.Stop()
		n += m
		if stalled {
			return n, ErrWriteStalled
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// abort closes the connection and drops what the kernel still holds for it: a client
// that stopped reading would otherwise keep a full send buffer alive while it is
// trickled out.
func (c *stallConn) abort() {
	if l, ok := c.Conn.(interface{ SetLinger(int) error }); ok {
		_ = l.SetLinger(0)
	}
	_ = c.Conn.Close()
}

// CloseWrite forwards the half-close net/http asks of a TCP connection.
func (c *stallConn) CloseWrite() error { return closeWrite(c.Conn) }
