package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// testBound is a hang guard only: every wait below ends on an event long before it, and
// no test asserts how long anything took.
const testBound = 2 * time.Minute

const pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

// rig is the guard in front of a real mcp-go StreamableHTTPServer, served by Serve on a
// ListenGuarded listener on 127.0.0.1.
type rig struct {
	addr    string // the bound host:port
	port    string
	path    string
	token   string
	ln      *limitListener
	reached atomic.Int64 // requests that got past the guard
}

type rigOpts struct {
	token    bool
	maxConns int
	clk      clock.Clock
	// full is called whenever the listener has to wait for a free slot.
	full func()
	// around, when set, runs in place of the backend for each request past the guard.
	around func(w http.ResponseWriter, r *http.Request, backend http.Handler)
}

func newGuardBackend() *server.MCPServer {
	s := server.NewMCPServer("guard-test", "0.0.1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	s.AddTool(mcp.NewTool("big", mcp.WithNumber("bytes")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("x", req.GetInt("bytes", 0))), nil
	})
	return s
}

func startRig(t *testing.T, o rigOpts) *rig {
	t.Helper()
	ln, err := ListenGuarded(t.Context(), "", false, o.maxConns)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{addr: ln.Addr().String(), ln: ln.(*limitListener), path: "/mcp/" + NewSecret()}
	r.ln.full = o.full
	_, r.port, _ = net.SplitHostPort(r.addr)
	if o.token {
		r.path, r.token = "/mcp", NewSecret()
	}
	backend := server.NewStreamableHTTPServer(newGuardBackend(), server.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(testutil.Log(t), nil))))
	next := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.reached.Add(1)
		if o.around != nil {
			o.around(w, req, backend)
			return
		}
		backend.ServeHTTP(w, req)
	})
	h := Guard(next, GuardOptions{Path: r.path, Token: r.token, Addr: r.addr})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, ServerOptions{Clock: o.clk}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		_ = backend.Shutdown(context.Background())
	})
	return r
}

func (r *rig) url() string { return "http://" + r.addr + r.path }

// hiddenLength hides a body's length from net/http, so it is sent chunked, without a
// Content-Length.
type hiddenLength struct{ io.Reader }

// paddedPing is a valid JSON-RPC ping of exactly n bytes: only its size is wrong.
func paddedPing(n int) []byte {
	head, tail := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`, `"}}`
	return []byte(head + strings.Repeat("x", n-len(head)-len(tail)) + tail)
}

// TestGuardBadInput: each kind of bad request gets its status, and none reaches the
// backend (mcp-go would answer some of them itself, with other statuses or none), nor
// does any answer carry the path secret or the token.
func TestGuardBadInput(t *testing.T) {
	type tc struct {
		name     string
		token    bool   // the rig asks for a token (path /mcp)
		method   string // POST when empty
		path     string // the served path when empty
		host     string // the bound address when empty
		origin   string // no Origin header when empty
		auth     string // no Authorization header when empty; "right" for the right token
		body     func() io.Reader
		status   int
		wantHdr  [2]string
		wantJSON bool // a JSON-RPC parse error
	}
	ping := func() io.Reader { return strings.NewReader(pingBody) }
	tests := []tc{
		{name: "body over the cap, chunked", body: func() io.Reader { return hiddenLength{bytes.NewReader(paddedPing(DefaultMaxBody + 1))} }, status: http.StatusRequestEntityTooLarge},
		{name: "invalid JSON", body: func() io.Reader { return strings.NewReader(`{"jsonrpc":"2.0","id":1,`) }, status: http.StatusBadRequest, wantJSON: true},
		{name: "empty body", body: func() io.Reader { return strings.NewReader("") }, status: http.StatusBadRequest, wantJSON: true},
		{name: "wrong secret", path: "/mcp/not-the-secret", body: ping, status: http.StatusNotFound},
		{name: "no secret", path: "/mcp", body: ping, status: http.StatusNotFound},
		{name: "below the secret", path: "/SECRET/x", body: ping, status: http.StatusNotFound},
		{name: "root", path: "/", method: http.MethodGet, status: http.StatusNotFound},
		{name: "GET below the secret", path: "/SECRET/x", method: http.MethodGet, status: http.StatusNotFound},
		{name: "wrong path with a token", token: true, auth: "right", path: "/mcp/x", body: ping, status: http.StatusNotFound},
		{name: "PUT", method: http.MethodPut, body: ping, status: http.StatusNotFound},
		{name: "PATCH", method: http.MethodPatch, body: ping, status: http.StatusNotFound},
		{name: "HEAD", method: http.MethodHead, status: http.StatusNotFound},
		{name: "OPTIONS", method: http.MethodOptions, status: http.StatusNotFound},
		{name: "foreign Origin", origin: "http://evil.example", body: ping, status: http.StatusForbidden},
		{name: "loopback Origin, other port", origin: "http://localhost:1", body: ping, status: http.StatusForbidden},
		{name: "https loopback Origin", origin: "https://127.0.0.1:PORT", body: ping, status: http.StatusForbidden},
		{name: "null Origin", origin: "null", body: ping, status: http.StatusForbidden},
		{name: "foreign Origin, wrong path: the path is not told", origin: "http://evil.example", path: "/mcp/x", body: ping, status: http.StatusForbidden},
		{name: "foreign Host", host: "evil.example:PORT", body: ping, status: http.StatusMisdirectedRequest},
		{name: "loopback Host, other port", host: "127.0.0.1:1", body: ping, status: http.StatusMisdirectedRequest},
		{name: "foreign Host, wrong path: the path is not told", host: "evil.example", path: "/x", body: ping, status: http.StatusMisdirectedRequest},
		{name: "missing token", token: true, body: ping, status: http.StatusUnauthorized, wantHdr: [2]string{"WWW-Authenticate", `Bearer realm="mcp-bridge"`}},
		{name: "wrong token", token: true, auth: "Bearer wrong", body: ping, status: http.StatusUnauthorized, wantHdr: [2]string{"WWW-Authenticate", `Bearer realm="mcp-bridge"`}},
		{name: "token under another scheme", token: true, auth: "Basic right", body: ping, status: http.StatusUnauthorized},
		{name: "empty bearer", token: true, auth: "Bearer ", body: ping, status: http.StatusUnauthorized},
	}
	rigs := map[bool]*rig{false: startRig(t, rigOpts{}), true: startRig(t, rigOpts{token: true})}
	httpc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rigs[tt.token]
			port := func(s string) string { return strings.ReplaceAll(s, "PORT", r.port) }
			method := tt.method
			if method == "" {
				method = http.MethodPost
			}
			path := r.path
			if tt.path != "" {
				path = strings.ReplaceAll(tt.path, "/SECRET", r.path)
			}
			var body io.Reader
			if tt.body != nil {
				body = tt.body()
			}
			ctx, cancel := context.WithTimeout(t.Context(), testBound)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, method, "http://"+r.addr+path, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.host != "" {
				req.Host = port(tt.host)
			}
			if tt.origin != "" {
				req.Header.Set("Origin", port(tt.origin))
			}
			switch tt.auth {
			case "":
			case "right":
				req.Header.Set("Authorization", "Bearer "+r.token)
			default:
				req.Header.Set("Authorization", strings.ReplaceAll(tt.auth, "right", r.token))
			}
			before := r.reached.Load()
			resp, err := httpc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d (body %.200q)", resp.StatusCode, tt.status, got)
			}
			if n := r.reached.Load() - before; n != 0 {
				t.Errorf("%d requests reached the backend", n)
			}
			if k := tt.wantHdr[0]; k != "" && resp.Header.Get(k) != tt.wantHdr[1] {
				t.Errorf("%s = %q, want %q", k, resp.Header.Get(k), tt.wantHdr[1])
			}
			secret := strings.TrimPrefix(r.path, "/mcp/")
			if r.token != "" {
				secret = r.token
			}
			if bytes.Contains(got, []byte(secret)) {
				t.Errorf("the answer tells the secret: %q", got)
			}
			if tt.wantJSON {
				var msg struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Error   struct{ Code int }
				}
				if err := json.Unmarshal(got, &msg); err != nil || msg.JSONRPC != "2.0" || string(msg.ID) != "null" || msg.Error.Code != mcp.PARSE_ERROR {
					t.Errorf("want a JSON-RPC parse error, got %q (%v)", got, err)
				}
			}
		})
	}
}

// TestGuardContentLengthUpFront: a body announced by Content-Length as over the cap is
// answered 413 and never reaches the backend, whether the client sends all of it or, as
// in the second case, only a few bytes of it: a guard that read the body before looking
// at its length would see that one end early (400) instead. The requests go over a raw
// connection, read while being written: net/http's client reports its own write error
// rather than the answer when the server stops reading.
func TestGuardContentLengthUpFront(t *testing.T) {
	tests := []struct {
		name      string
		announced int
		send      []byte
	}{
		{name: "whole body sent", announced: DefaultMaxBody + 1, send: paddedPing(DefaultMaxBody + 1)},
		{name: "announced, not sent", announced: 2 * DefaultMaxBody, send: []byte(`{"a":`)},
	}
	r := startRig(t, rigOpts{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", r.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(testBound))
			wrote := make(chan struct{})
			go func() {
				defer close(wrote)
				fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", r.path, r.addr, tt.announced)
				_, _ = conn.Write(tt.send)
				_ = conn.(*net.TCPConn).CloseWrite()
			}()
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			_ = conn.Close()
			<-wrote
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d, want 413", resp.StatusCode)
			}
			if r.reached.Load() != 0 {
				t.Fatal("the request reached the backend")
			}
		})
	}
}

// TestGuardRightRequests: with everything right, a real mcp-go client initializes and
// calls a tool through the guard, in each protocol era, with the path secret and with a
// token; the Host names and Origins a loopback client may send are let through.
func TestGuardRightRequests(t *testing.T) {
	tests := []struct {
		name   string
		token  bool
		legacy bool // the 2025-11-25 handshake, with the GET stream open
		host   string
		origin string
	}{
		{name: "secret path, 2025-11-25", legacy: true},
		{name: "secret path, default era"},
		{name: "token, 2025-11-25", token: true, legacy: true},
		{name: "token, default era", token: true},
		{name: "Host localhost", host: "localhost:PORT", legacy: true},
		{name: "Host [::1], Origin http://[::1]", host: "[::1]:PORT", origin: "http://[::1]:PORT", legacy: true},
		{name: "Origin http://localhost", origin: "http://localhost:PORT"},
		{name: "Origin http://127.0.0.1/", origin: "http://127.0.0.1:PORT/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := startRig(t, rigOpts{token: tt.token})
			port := func(s string) string { return strings.ReplaceAll(s, "PORT", r.port) }
			hdr := map[string]string{}
			if tt.token {
				hdr["Authorization"] = "Bearer " + r.token
			}
			if tt.origin != "" {
				hdr["Origin"] = port(tt.origin)
			}
			opts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(hdr)}
			if tt.host != "" {
				opts = append(opts, transport.WithStreamableHTTPHost(port(tt.host)))
			}
			if tt.legacy {
				//lint:ignore SA1019 the standalone GET stream is a 2025-11-25 client
				opts = append(opts, transport.WithContinuousListening())
			}
			c := mcpClient(t, r.url(), tt.legacy, opts...)
			if got := echo(t, c, "through the guard"); got != "through the guard" {
				t.Fatalf("echo = %q", got)
			}
			if r.reached.Load() == 0 {
				t.Fatal("nothing reached the backend")
			}
		})
	}
}

func mcpClient(t *testing.T, url string, legacy bool, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testBound)
	defer cancel()
	c, err := client.NewStreamableHttpClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{Params: mcp.InitializeParams{ClientInfo: mcp.Implementation{Name: "guard-test", Version: "0.0.1"}}}
	if legacy {
		init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

func echo(t *testing.T, c *client.Client, text string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testBound)
	defer cancel()
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%d content blocks", len(res.Content))
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("content %T", res.Content[0])
	}
	return tc.Text
}

// TestListenGuardedRefuses: only loopback addresses are listened on unless the caller
// allows others; the error names what would allow it.
func TestListenGuardedRefuses(t *testing.T) {
	tests := []struct {
		addr  string
		allow bool
		ok    bool
	}{
		{addr: "", ok: true},
		{addr: "127.0.0.1:0", ok: true},
		{addr: "localhost:0", ok: true},
		{addr: ":0"},
		{addr: "0.0.0.0:0"},
		{addr: "[::]:0"},
		{addr: "192.0.2.1:0"},
		{addr: "127.0.0.1:0", allow: true, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			ln, err := ListenGuarded(t.Context(), tt.addr, tt.allow, 0)
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				_ = ln.Close()
				return
			}
			if err == nil {
				_ = ln.Close()
				t.Fatalf("listened on %s", ln.Addr())
			}
			if !errors.Is(err, ErrNotLoopback) || !strings.Contains(err.Error(), "--listen") || !strings.Contains(err.Error(), "--token-file") {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

// TestGuardConnectionFlood: 1,000 connections opened at once, each sending a request.
// No more than maxConns are served at once: the backend holds every request until the
// listener has had to wait for a free slot (an event, not a guess that "enough" arrived),
// and no request ever finds more than maxConns in the backend. Then all are let go; each
// connection is answered or closed, a normal client still works, and the goroutines
// return to what they were before the flood.
func TestGuardConnectionFlood(t *testing.T) {
	const (
		clients  = 1000
		maxConns = 32
	)
	var inflight, over atomic.Int64
	gate := make(chan struct{})
	full := make(chan struct{})
	var fullOnce sync.Once
	r := startRig(t, rigOpts{maxConns: maxConns, full: func() { fullOnce.Do(func() { close(full) }) }, around: func(w http.ResponseWriter, req *http.Request, backend http.Handler) {
		if req.Header.Get("X-Flood") != "" {
			if inflight.Add(1) > maxConns {
				over.Add(1)
			}
			<-gate
			inflight.Add(-1)
		}
		backend.ServeHTTP(w, req)
	}})

	ctx, cancel := context.WithTimeout(t.Context(), testBound)
	defer cancel()
	deadline, _ := ctx.Deadline()
	base := runtime.NumGoroutine()

	var answered, closed atomic.Int64
	var wg sync.WaitGroup
	dialErrs := make(chan error, clients)
	for range clients {
		wg.Go(func() {
			conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", r.addr)
			if err != nil {
				dialErrs <- err
				return
			}
			defer conn.Close()
			_ = conn.SetDeadline(deadline)
			req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nX-Flood: 1\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", r.path, r.addr, len(pingBody), pingBody)
			if _, err := io.WriteString(conn, req); err != nil {
				closed.Add(1)
				return
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				closed.Add(1)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			answered.Add(1)
		})
	}
	select {
	case <-full:
	case <-ctx.Done():
		t.Fatal("the listener never had to wait for a slot")
	}
	close(gate)
	wg.Wait()
	close(dialErrs)
	for err := range dialErrs {
		t.Errorf("dial: %v", err)
	}
	if n := over.Load(); n > 0 {
		t.Errorf("%d requests found more than %d connections served at once", n, maxConns)
	}
	if a, c := answered.Load(), closed.Load(); a+c != clients || a == 0 {
		t.Errorf("%d answered and %d closed of %d", a, c, clients)
	}
	testutil.WaitFor(ctx, t, fmt.Sprintf("goroutines back to %d", base), func() bool { return runtime.NumGoroutine() <= base })

	c := mcpClient(t, r.url(), true)
	if got := echo(t, c, "after the flood"); got != "after the flood" {
		t.Fatalf("echo = %q", got)
	}
}

// TestGuardStalledReader: a client that asks for a large answer and never reads it holds
// its connection only until a write has waited WriteStall on the injected clock; then the
// connection is closed and the handler returns. Another client, served while the first
// is stalled and after it is cut, is not disturbed.
func TestGuardStalledReader(t *testing.T) {
	const big = 8 << 20 // more than the kernel buffers of both ends hold
	clk := clock.NewFake()
	released := make(chan struct{})
	r := startRig(t, rigOpts{clk: clk, around: func(w http.ResponseWriter, req *http.Request, backend http.Handler) {
		backend.ServeHTTP(w, req)
		if req.Header.Get("X-Stall") != "" {
			close(released)
		}
	}})
	ctx, cancel := context.WithTimeout(t.Context(), testBound)
	defer cancel()
	deadline, _ := ctx.Deadline()

	other := mcpClient(t, r.url(), false)

	conn, err := net.Dial("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(deadline)
	// A small receive buffer keeps the client's side from soaking up the answer.
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	// A 2026-07-28 request: it needs no session, so nothing but this one POST is sent.
	call := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"big","arguments":{"bytes":%d},"_meta":{%q:%q,%q:{"name":"stalled","version":"1"},%q:{}}}}`,
		big, mcp.MetaKeyProtocolVersion, mcp.ProtocolVersion20260728, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities)
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nX-Stall: 1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%s: %s\r\n%s: tools/call\r\n%s: big\r\nContent-Length: %d\r\n\r\n%s",
		r.path, r.addr, mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728, mcp.HeaderMethod, mcp.HeaderName, len(call), call)

	// The answer is being written once a stall timer is pending; the other client is
	// served meanwhile (its own writes finish, so their timers are stopped before the
	// clock moves).
	if err := clk.WaitTimer(ctx, DefaultWriteStall); err != nil {
		t.Fatal(err)
	}
	if got := echo(t, other, "during the stall"); got != "during the stall" {
		t.Fatalf("echo = %q", got)
	}
	// Move the clock by the bound each time a write waits on it, until the stalled
	// handler is let go: pieces the kernel still took finish by themselves, the one that
	// blocks is cut.
	cutCtx, cutCancel := context.WithCancel(ctx)
	defer cutCancel()
	go func() {
		select {
		case <-released:
		case <-ctx.Done():
		}
		cutCancel()
	}()
	for {
		err := clk.WaitTimer(cutCtx, DefaultWriteStall)
		if isClosed(released) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(DefaultWriteStall)
	}
	// The client finds its answer cut short: the connection was reset, not finished.
	br := bufio.NewReader(conn)
	if resp, err := http.ReadResponse(br, nil); err == nil {
		n, err := io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if err == nil {
			t.Fatalf("the stalled client got its whole answer (%d bytes of body)", n)
		}
	}
	if got := echo(t, other, "after the stall"); got != "after the stall" {
		t.Fatalf("echo = %q", got)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
