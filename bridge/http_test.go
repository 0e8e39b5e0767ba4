package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/zot-mcp/mcp-bridge/session"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/testkit/fakemcp/fake"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// startFakeHTTP starts the fake server in -http or -sse mode on a free loopback port, in
// the test's process (fake.ListenHTTP), and returns its url and record file.
func startFakeHTTP(t *testing.T, mode string, extra ...string) (url, record string) {
	t.Helper()
	record = filepath.Join(t.TempDir(), "record.jsonl")
	args := append([]string{mode, "127.0.0.1:0", "-record", record}, extra...)
	var stderr testutil.SyncBuffer
	url, stop, err := fake.ListenHTTP(args, fake.Env{}, &stderr)
	if err != nil {
		t.Fatalf("fake server %v: %v", args, err)
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("fake server %v stderr:\n%s", args, stderr.String())
		}
	})
	return url, record
}

func httpLines(t *testing.T, record string) []testutil.RecordLine {
	t.Helper()
	var out []testutil.RecordLine
	for _, l := range testutil.ReadRecord(t, record) {
		if l.Method == "http" {
			out = append(out, l)
		}
	}
	return out
}

func countRecord(t *testing.T, record string, match func(testutil.RecordLine) bool) int {
	t.Helper()
	n := 0
	for _, l := range testutil.ReadRecord(t, record) {
		if match(l) {
			n++
		}
	}
	return n
}

func isCall(tool string) func(testutil.RecordLine) bool {
	return func(l testutil.RecordLine) bool { return l.Method == "tools/call" && l.Tool == tool }
}

func isHTTP(method, path string) func(testutil.RecordLine) bool {
	return func(l testutil.RecordLine) bool {
		return l.Method == "http" && l.HTTPMethod == method && (path == "" || l.Path == path)
	}
}

func callSafe(t *testing.T, s *lifecycle.Server, tool string, args map[string]any, safe bool) (string, error) {
	t.Helper()
	r, err := s.Call(ctxGuard(t), tool, args, safe)
	if err != nil {
		return "", err
	}
	return resultText(r), nil
}

// Item 1: the configured headers (after ${VAR} expansion) go on every request of both
// transports, including the GET streams and the session DELETE of the legacy era, and the
// modern era's subscriptions/listen stream.
func TestHTTPHeadersOnEveryRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, mode, transport, pin string
		methods                    []string
	}{
		{"streamable-http", "-http", "streamable-http", "2025-11-25", []string{"POST", "GET", "DELETE"}},
		{"streamable-http modern", "-http", "streamable-http", "2026-07-28", []string{"POST"}},
		{"sse", "-sse", "sse", "", []string{"GET", "POST"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			e.env["API_KEY"] = "k-0123456789"
			url, record := startFakeHTTP(t, tc.mode, "-require-header", "X-Api-Key:k-0123456789")
			entry := map[string]any{"url": url, "transport": tc.transport, "headers": map[string]any{"X-Api-Key": "${API_KEY}"}}
			if tc.pin != "" {
				entry["protocolVersion"] = tc.pin
			}
			e.write(map[string]any{"r": entry}, nil)
			b := e.bridge(extension.GenNew)
			s := e.srv(b, "r")
			if got := mustCall(t, s, "echo", map[string]any{"text": "hi"}); got != "hi" {
				t.Fatalf("echo = %q", got)
			}
			if _, err := s.ListTools(ctxGuard(t)); err != nil {
				t.Fatal(err)
			}
			modern := tc.pin == "2026-07-28"
			if modern {
				// The listen stream opens in the background; wait for it.
				testutil.WaitRecord(t, record, guard, func(l testutil.RecordLine) bool { return l.Method == "subscriptions/listen" })
			} else {
				// So does the legacy GET stream.
				testutil.WaitRecord(t, record, guard, isHTTP("GET", ""))
			}
			s.Stop(ctxGuard(t))
			if tc.transport == "streamable-http" && !modern {
				testutil.WaitRecord(t, record, guard, isHTTP("DELETE", ""))
			}
			seen := map[string]bool{}
			lines := httpLines(t, record)
			for _, l := range lines {
				seen[l.HTTPMethod] = true
				if l.Rejected || len(l.Headers["X-Api-Key"]) != 1 || l.Headers["X-Api-Key"][0] != "k-0123456789" {
					t.Errorf("%s %s arrived without the header: %+v", l.HTTPMethod, l.Path, l)
				}
			}
			for _, m := range tc.methods {
				if !seen[m] {
					t.Errorf("no %s request recorded; got %d requests", m, len(lines))
				}
			}
			if modern && (seen["GET"] || seen["DELETE"]) {
				t.Errorf("a modern connection sent a GET stream or a session DELETE: %+v", lines)
			}
		})
	}
}

// Item 2: a url-only entry falls back to SSE when the POST gets a 4xx, remembers the
// transport in the cache, and the next session goes straight to SSE. Pinned to the legacy
// era one POST is tried; with the era unknown two, the probe and then the fallback's
// initialize (the dual-era rule falls back on any failure of the probe).
func TestURLOnlyFallsBackToSSEAndRemembers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		pin   string
		posts int
	}{
		{"legacy", "2025-11-25", 1},
		{"negotiated", "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			url, record := startFakeHTTP(t, "-sse")
			entry := map[string]any{"url": url}
			if tc.pin != "" {
				entry["protocolVersion"] = tc.pin
			}
			e.write(map[string]any{"r": entry}, nil)
			b := e.bridge(extension.GenNew)
			if _, errs := b.Refresh(ctxGuard(t), []string{"r"}); len(errs) > 0 {
				t.Fatal(errs)
			}
			s := e.srv(b, "r")
			if tr := s.Status().Transport; tr != "sse" {
				t.Fatalf("transport %q, want sse", tr)
			}
			lines := httpLines(t, record)
			ok := len(lines) > tc.posts && lines[tc.posts].HTTPMethod == "GET"
			for _, l := range lines[:min(tc.posts, len(lines))] {
				ok = ok && l.HTTPMethod == "POST" && l.Path == "/sse"
			}
			if !ok {
				t.Fatalf("first requests should be %d streamable POSTs, then the SSE GET: %+v", tc.posts, lines)
			}
			f, err := cache.Read(cache.DefaultPath(e.home))
			if err != nil {
				t.Fatal(err)
			}
			if ent := f.Servers["r"]; ent == nil || ent.Transport != "sse" {
				t.Fatalf("cache entry does not remember sse: %+v", ent)
			}
			b.Close(ctxGuard(t))

			if err := os.Truncate(record, 0); err != nil {
				t.Fatal(err)
			}
			b2 := e.bridge(extension.GenNew)
			if got := mustCall(t, e.srv(b2, "r"), "echo", map[string]any{"text": "again"}); got != "again" {
				t.Fatalf("echo = %q", got)
			}
			lines = httpLines(t, record)
			if len(lines) == 0 || lines[0].HTTPMethod != "GET" || lines[0].Path != "/sse" {
				t.Fatalf("second session did not go straight to SSE: %+v", lines)
			}
			if n := countRecord(t, record, isHTTP("POST", "/sse")); n != 0 {
				t.Fatalf("second session still probed streamable HTTP (%d POSTs to /sse)", n)
			}
		})
	}
}

func TestURLOnlyStreamableHTTP(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	url, record := startFakeHTTP(t, "-http")
	e.write(map[string]any{"r": map[string]any{"url": url}}, nil)
	b := e.bridge(extension.GenNew)
	if _, errs := b.Refresh(ctxGuard(t), []string{"r"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	if tr := e.srv(b, "r").Status().Transport; tr != "streamable-http" {
		t.Fatalf("transport %q", tr)
	}
	f, _ := cache.Read(cache.DefaultPath(e.home))
	if ent := f.Servers["r"]; ent == nil || ent.Transport != "streamable-http" {
		t.Fatalf("cache entry: %+v", ent)
	}
	if n := countRecord(t, record, isHTTP("GET", "/sse")); n != 0 {
		t.Fatal("probed SSE although streamable HTTP worked")
	}
}

// A server that answers the initialize POST with a legacy SSE stream (endpoint event) is
// detected as SSE.
func TestURLOnlyFallsBackOnEndpointEvent(t *testing.T) {
	t.Parallel()
	mcpSrv := server.NewMCPServer("legacy", "1.0.0", server.WithToolCapabilities(false))
	mcpSrv.AddTool(mcp.NewTool("ping_me", mcp.WithDescription("say pong")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	})
	var sse *server.SSEServer
	var posts sync.Map
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/sse" {
			// Some SSE servers open a session for any method on their stream path.
			posts.Store("post", true)
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\ndata: /message?sessionId=nope\n\n")
			return
		}
		sse.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close) // after the bridge's cleanup closed the stream
	sse = server.NewSSEServer(mcpSrv, server.WithBaseURL(ts.URL))
	e := newTestEnv(t)
	e.write(map[string]any{"r": map[string]any{"url": ts.URL + "/sse"}}, nil)
	s := e.srv(e.bridge(extension.GenNew), "r")
	if got := mustCall(t, s, "ping_me", nil); got != "pong" {
		t.Fatalf("call = %q", got)
	}
	if _, ok := posts.Load("post"); !ok {
		t.Fatal("streamable HTTP was not tried first")
	}
	if tr := s.Status().Transport; tr != "sse" {
		t.Fatalf("transport %q, want sse", tr)
	}
}

// An explicit transport never falls back, and the error says what to change.
func TestExplicitStreamableAgainstSSEServer(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	url, record := startFakeHTTP(t, "-sse")
	e.write(map[string]any{"r": map[string]any{"url": url, "transport": "streamable-http"}}, nil)
	s := e.srv(e.bridge(extension.GenNew), "r")
	err := s.Start(ctxGuard(t))
	if kindOf(err) != session.KindBadResponse || !strings.Contains(err.Error(), `"transport": "sse"`) {
		t.Fatalf("err = %v (kind %d)", err, kindOf(err))
	}
	if n := countRecord(t, record, isHTTP("GET", "/sse")); n != 0 {
		t.Fatal("an explicit streamable-http entry fell back to SSE")
	}
}

// Item 4: every failure names the server, has a kind, and says what to do.
func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	handler := func(status int, ct, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if ct != "" {
				w.Header().Set("Content-Type", ct)
			}
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		})
	}
	hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so the server notices when the client hangs up
		<-r.Context().Done()
	})
	refused := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr + "/mcp"
	}
	type tc struct {
		name      string
		url       func(t *testing.T) string
		transport string
		extra     map[string]any
		kind      session.Kind
		want      []string
		// advance is how far the fake clock must move for the start to fail (the
		// connectTimeout runs on it); 0: it fails by itself.
		advance time.Duration
	}
	serve := func(h http.Handler) func(t *testing.T) string {
		return func(t *testing.T) string {
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			return ts.URL + "/mcp"
		}
	}
	cases := []tc{
		{"dns", func(*testing.T) string { return "http://no-such-host.example.test/mcp" }, "", nil, session.KindUnreachable,
			[]string{"cannot resolve host", `"no-such-host.example.test"`, "DNS"}, 0},
		{"refused", func(*testing.T) string { return refused() }, "", nil, session.KindUnreachable, []string{"connection refused", "is the server running"}, 0},
		{"refused sse", func(*testing.T) string { return refused() }, "sse", nil, session.KindUnreachable, []string{"connection refused"}, 0},
		{"tls unknown authority", func(t *testing.T) string {
			ts := httptest.NewTLSServer(handler(200, "application/json", "{}"))
			t.Cleanup(ts.Close)
			return ts.URL + "/mcp"
		}, "", nil, session.KindTLS, []string{"TLS handshake", "unknown authority", "certificate"}, 0},
		{"tls to plain http", func(t *testing.T) string {
			ts := httptest.NewServer(handler(200, "application/json", "{}"))
			t.Cleanup(ts.Close)
			return strings.Replace(ts.URL, "http://", "https://", 1) + "/mcp"
		}, "", nil, session.KindTLS, []string{"does not speak TLS", "http://"}, 0},
		{"401 with header var", serve(handler(401, "text/plain", "nope")), "", map[string]any{"headers": map[string]any{"Authorization": "Bearer ${TOKEN}"}},
			session.KindAuth, []string{"HTTP 401", "${TOKEN}", "/mcp login r"}, 0},
		{"401 no headers", serve(handler(401, "", "")), "", nil, session.KindAuth, []string{"HTTP 401", `Add the credentials it needs to "headers"`, "/mcp login r"}, 0},
		{"403", serve(handler(403, "", "")), "streamable-http", map[string]any{"headers": map[string]any{"X-Key": "${KEY}"}}, session.KindAuth, []string{"HTTP 403", "${KEY}", "/mcp login r"}, 0},
		{"403 sse", serve(handler(403, "", "")), "sse", nil, session.KindAuth, []string{"HTTP 403"}, 0},
		{"404 explicit", serve(http.NotFoundHandler()), "streamable-http", nil, session.KindBadResponse, []string{"HTTP 404", "check the url's path"}, 0},
		{"404 url-only", serve(http.NotFoundHandler()), "", nil, session.KindBadResponse, []string{"HTTP 404", "streamable-http was tried first and answered HTTP 404"}, 0},
		{"503", serve(handler(503, "text/plain", "down")), "", nil, session.KindBadResponse, []string{"HTTP 503", "try again later"}, 0},
		{"500 sse", serve(handler(500, "text/plain", "boom")), "sse", nil, session.KindBadResponse, []string{"HTTP 500"}, 0},
		{"html page", serve(handler(200, "text/html; charset=utf-8", "<html>login</html>")), "streamable-http", nil, session.KindBadResponse, []string{"HTML page", "not MCP"}, 0},
		{"html page sse", serve(handler(200, "text/html", "<html>hi</html>")), "sse", nil, session.KindBadResponse, []string{"HTML page"}, 0},
		{"html page url-only", serve(handler(200, "text/html", "<html>hi</html>")), "", nil, session.KindBadResponse, []string{"HTML page"}, 0},
		{"no answer", serve(hang), "", map[string]any{"connectTimeout": 0.3}, session.KindTimeout, []string{"within connectTimeout (300ms)", "connectTimeout"}, 300 * time.Millisecond},
		{"no answer sse", serve(hang), "sse", map[string]any{"connectTimeout": 0.3}, session.KindTimeout, []string{"within connectTimeout (300ms)"}, 300 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t)
			entry := map[string]any{"url": c.url(t)}
			if c.transport != "" {
				entry["transport"] = c.transport
			}
			for k, v := range c.extra {
				entry[k] = v
			}
			e.env["TOKEN"], e.env["KEY"] = "tok-abcdef123", "key-abcdef123"
			e.write(map[string]any{"r": entry}, nil)
			s := e.srv(e.bridge(extension.GenNew), "r")
			errc := make(chan error, 1)
			go func() { errc <- s.Start(ctxGuard(t)) }()
			if c.advance > 0 {
				testutil.AdvanceWhenWaiting(ctxGuard(t), t, e.clock, c.advance)
			}
			err := <-errc
			if err == nil {
				t.Fatal("start succeeded")
			}
			if kindOf(err) != c.kind {
				t.Errorf("kind %d, want %d: %v", kindOf(err), c.kind, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, `MCP server "r": `) {
				t.Errorf("error does not name the server: %s", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q: %s", w, msg)
				}
			}
			if st := s.Status(); st.LastError != msg {
				t.Errorf("status error %q != %q", st.LastError, msg)
			}
		})
	}
}

func TestHTTPRequestTimeout(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	url, _ := startFakeHTTP(t, "-http")
	e.write(map[string]any{"r": map[string]any{"url": url, "requestTimeout": 0.3}}, nil)
	s := e.srv(e.bridge(extension.GenNew), "r")
	mustCall(t, s, "echo", map[string]any{"text": "warm"})
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(ctxGuard(t), "slow", map[string]any{"ms": 60000}, false)
		errc <- err
	}()
	// requestTimeout runs on the injected clock, and so does the grace for what has arrived.
	testutil.AdvanceWhenWaiting(ctxGuard(t), t, e.clock, 300*time.Millisecond)
	testutil.AdvanceWhenWaiting(ctxGuard(t), t, e.clock, lifecycle.SettleGrace)
	err := <-errc
	if kindOf(err) != session.KindTimeout || !strings.Contains(err.Error(), "requestTimeout (300ms)") || !strings.Contains(err.Error(), "may already have applied") {
		t.Fatalf("err = %v (kind %d)", err, kindOf(err))
	}
	// The connection survives a slow tool.
	if got := mustCall(t, s, "echo", map[string]any{"text": "after"}); got != "after" {
		t.Fatalf("echo after timeout = %q", got)
	}
}

// A server that goes away between calls: the error says so, and the next call reconnects.
func TestHTTPServerGoneDuringSession(t *testing.T) {
	t.Parallel()
	mcpSrv := server.NewMCPServer("gone", "1.0.0", server.WithToolCapabilities(false))
	mcpSrv.AddTool(mcp.NewTool("hello", mcp.WithReadOnlyHintAnnotation(true)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hi"), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	srv := &http.Server{Handler: server.NewStreamableHTTPServer(mcpSrv)}
	go func() { _ = srv.Serve(ln) }()
	e := newTestEnv(t)
	e.write(map[string]any{"r": map[string]any{"url": "http://" + addr + "/mcp", "transport": "streamable-http"}}, nil)
	s := e.srv(e.bridge(extension.GenNew), "r")
	if got := mustCall(t, s, "hello", nil); got != "hi" {
		t.Fatalf("hello = %q", got)
	}
	_ = srv.Close()
	_, err = s.Call(ctxGuard(t), "hello", nil, true)
	if k := kindOf(err); k != session.KindUnreachable {
		t.Fatalf("call to a stopped server: %v (kind %d)", err, k)
	}
	// The state machine learns of the lost session from its done signal, which may come
	// just after the failed call returned: wait for it (the guard fails a server that
	// stays ready).
	waitFor(t, "the lost connection to stop counting as ready", func() bool { return s.Status().State != lifecycle.StateReady })
	// Back on the same address (a restart): a new session is opened.
	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	srv2 := &http.Server{Handler: server.NewStreamableHTTPServer(mcpSrv)}
	go func() { _ = srv2.Serve(ln2) }()
	defer srv2.Close()
	if got := mustCall(t, s, "hello", nil); got != "hi" {
		t.Fatalf("after restart: %q", got)
	}
}

// Item 3: a server that forgot our session is re-initialized once and the call sent
// again — even an unsafe tool, since a 404 means it never ran.
func TestHTTPSessionForgottenReinitializes(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	url, record := startFakeHTTP(t, "-http", "-forget-session-after", "2")
	// Sessions are the legacy era's (a modern connection has none to forget).
	e.write(map[string]any{"r": map[string]any{"url": url, "transport": "streamable-http", "protocolVersion": "2025-11-25"}}, nil)
	s := e.srv(e.bridge(extension.GenNew), "r")
	if got := mustCall(t, s, "add", map[string]any{"a": 1, "b": 2}); got != "3" {
		t.Fatalf("add = %q", got)
	}
	if got := mustCall(t, s, "add", map[string]any{"a": 2, "b": 3}); got != "5" {
		t.Fatalf("add after the session was forgotten = %q", got)
	}
	if n := countRecord(t, record, isCall("add")); n != 2 {
		t.Fatalf("server ran add %d times, want 2", n)
	}
	if n := countRecord(t, record, func(l testutil.RecordLine) bool { return l.Method == "initialize" }); n != 2 {
		t.Fatalf("%d initialize requests, want 2", n)
	}
	if got := mustCall(t, s, "echo", map[string]any{"text": "still"}); got != "still" {
		t.Fatalf("echo = %q", got)
	}
	if st := s.Status(); st.State != lifecycle.StateReady || st.Failures != 0 {
		t.Fatalf("status after recovery: %+v", st)
	}
}

// Item 3: a dropped SSE stream fails an unsafe call at once without sending it again, and
// the next call reconnects.
func TestSSEStreamDropUnsafeCallNotRepeated(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	url, record := startFakeHTTP(t, "-sse", "-sse-drop-after", "2")
	e.write(map[string]any{"r": map[string]any{"url": url, "transport": "sse", "requestTimeout": 50}}, nil)
	s := e.srv(e.bridge(extension.GenNew), "r")
	mustCall(t, s, "add", map[string]any{"a": 1, "b": 1})
	_, err := s.Call(ctxGuard(t), "add", map[string]any{"a": 2, "b": 2}, false)
	if kindOf(err) != session.KindEnded || !strings.Contains(err.Error(), "SSE stream") || !strings.Contains(err.Error(), "may already have applied") {
		t.Fatalf("err = %v (kind %d)", err, kindOf(err))
	}
	if n := countRecord(t, record, isCall("add")); n != 2 {
		t.Fatalf("add sent %d times, want 2 (the unsafe call must not be repeated)", n)
	}
	waitState(t, s, lifecycle.StateAsleep)
	if got := mustCall(t, s, "add", map[string]any{"a": 3, "b": 4}); got != "7" {
		t.Fatalf("after reconnect: %q", got)
	}
	if n := countRecord(t, record, isHTTP("GET", "/sse")); n != 2 {
		t.Fatalf("%d SSE streams opened, want 2", n)
	}
}

// A read-only call in flight when the stream drops is sent again on a new connection.
func TestSSEStreamDropSafeCallRetried(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	url, record := startFakeHTTP(t, "-sse", "-sse-drop-after", "2")
	e.write(map[string]any{"r": map[string]any{"url": url, "transport": "sse", "requestTimeout": 50}}, nil)
	s := e.srv(e.bridge(extension.GenNew), "r")
	mustCall(t, s, "echo", map[string]any{"text": "a"})
	got, err := callSafe(t, s, "echo", map[string]any{"text": "b"}, true)
	if err != nil || got != "b" {
		t.Fatalf("safe call across a dropped stream: %q, %v", got, err)
	}
	if n := countRecord(t, record, isCall("echo")); n != 3 {
		t.Fatalf("echo sent %d times, want 3 (a, b, b again)", n)
	}
	if n := countRecord(t, record, isHTTP("GET", "/sse")); n != 2 {
		t.Fatalf("%d SSE streams, want 2", n)
	}
	if st := s.Status(); st.State != lifecycle.StateReady {
		t.Fatalf("state %s", st.State)
	}
}

// Item 6: a secret in a header (through ${VAR}) appears in no log line, error, status
// text or cache file — also when the server echoes it back.
func TestNoSecretLeaks(t *testing.T) {
	t.Parallel()
	const canary = "canary-5ecret-7f3a9c21"
	e := newTestEnv(t)
	e.env["CANARY"] = canary
	goodURL, _ := startFakeHTTP(t, "-http", "-require-header", "X-Api-Key:"+canary)
	goodSSE, _ := startFakeHTTP(t, "-sse", "-require-header", "X-Api-Key:"+canary)
	echo := func(status int) string {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// A careless server that echoes credentials everywhere. It answers the
			// request's own id: the first request is server/discover, and the error
			// that reaches the user is the fallback initialize's.
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			if len(req.ID) == 0 {
				req.ID = json.RawMessage("null")
			}
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+r.Header.Get("X-Api-Key")+`"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"bad key %s / %s"}}`, req.ID, r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"))
		}))
		t.Cleanup(ts.Close)
		return ts.URL + "/mcp"
	}
	headers := map[string]any{"X-Api-Key": "${CANARY}", "Authorization": "Bearer ${CANARY}"}
	servers := map[string]any{
		"good":     map[string]any{"url": goodURL, "headers": headers},
		"goodsse":  map[string]any{"url": goodSSE, "transport": "sse", "headers": headers},
		"echo401":  map[string]any{"url": echo(401), "headers": headers},
		"echo403":  map[string]any{"url": echo(403), "transport": "streamable-http", "headers": headers},
		"echo500":  map[string]any{"url": echo(500), "headers": headers},
		"echo200":  map[string]any{"url": echo(200), "transport": "streamable-http", "headers": headers},
		"echosse":  map[string]any{"url": echo(500), "transport": "sse", "headers": headers},
		"inquery":  map[string]any{"url": echo(401) + "?key=${CANARY}", "transport": "streamable-http"},
		"badquery": map[string]any{"url": "http://no-such-host.example.test/mcp?key=${CANARY}"},
	}
	e.write(servers, nil)
	logs := &testutil.SyncBuffer{}
	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(logs).Level(zerolog.DebugLevel),
		Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS()})
	b.Load(e.project, extension.GenNew)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		b.Close(ctx)
	})
	var texts []string
	check := func(what, text string) {
		t.Helper()
		texts = append(texts, text)
		if strings.Contains(text, canary) {
			t.Errorf("%s leaks the secret: %s", what, text)
		}
	}
	_, errs := b.Refresh(ctxGuard(t), b.ServerNames())
	for _, e := range errs {
		check("refresh error", e)
	}
	if len(errs) != len(servers)-2 {
		t.Errorf("%d refresh errors, want %d: %q", len(errs), len(servers)-2, errs)
	}
	for _, name := range b.ServerNames() {
		s, _ := b.Server(name)
		_, err := s.Call(ctxGuard(t), "echo", map[string]any{"text": "x"}, true)
		if err != nil {
			check(name+" call error", err.Error())
			for u := err; u != nil; {
				check(name+" wrapped error", u.Error())
				w, ok := u.(interface{ Unwrap() error })
				if !ok {
					break
				}
				u = w.Unwrap()
			}
		}
		check(name+" status", s.Status().LastError)
		out, _ := b.Command(ctxGuard(t), name)
		check("/mcp "+name, out)
	}
	out, _ := b.Command(ctxGuard(t), "")
	check("/mcp", out)
	for _, name := range []string{"good", "goodsse"} {
		s, _ := b.Server(name)
		s.Stop(ctxGuard(t))
	}
	raw, err := os.ReadFile(cache.DefaultPath(e.home))
	if err != nil {
		t.Fatal(err)
	}
	check("cache file", string(raw))
	if !strings.Contains(string(raw), `"good"`) {
		t.Error("the good server's tools were not cached")
	}
	check("log", logs.String())
	if !strings.Contains(logs.String(), "echo401") || !strings.Contains(strings.Join(texts, "\n"), "[redacted]") {
		t.Error("the test did not exercise the failure paths it meant to")
	}
}

// Item 3: streamable HTTP's GET stream, dropped while the server is unreachable, is
// reopened with a growing (capped) backoff, and the backoff resets once it opens again.
func TestStreamableGETStreamReconnectsWithBackoff(t *testing.T) {
	t.Parallel()
	mcpSrv := server.NewMCPServer("listen", "1.0.0", server.WithToolCapabilities(true))
	mcpSrv.AddTool(mcp.NewTool("hello"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hi"), nil
	})
	sh := server.NewStreamableHTTPServer(mcpSrv)
	var (
		mu     sync.Mutex
		gets   int
		refuse bool
		open   []context.CancelFunc
	)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			sh.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		gets++
		if refuse {
			mu.Unlock()
			// Unreachable: no HTTP answer, just garbage and a closed connection (which
			// Go's transport does not retry on its own).
			if c, buf, err := w.(http.Hijacker).Hijack(); err == nil {
				_, _ = buf.WriteString("garbage\r\n\r\n")
				_ = buf.Flush()
				c.Close()
			}
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		open = append(open, cancel)
		mu.Unlock()
		sh.ServeHTTP(w, r.WithContext(ctx))
	}))
	t.Cleanup(ts.Close)
	getCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return gets
	}
	drop := func(refuseNext bool) {
		mu.Lock()
		refuse = refuseNext
		for _, c := range open {
			c()
		}
		open = nil
		mu.Unlock()
	}
	e := newTestEnv(t)
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		ctx := ctxGuard(t)
		for !cond() {
			select {
			case <-ctx.Done():
				t.Fatalf("timed out waiting for %s (gets %d, timers %d)", what, getCount(), e.clock.Pending())
			case <-time.After(5 * time.Millisecond):
			}
		}
	}

	// The GET stream is the legacy era's (a modern connection listens with
	// subscriptions/listen instead, on its own backoff: session/listen.go).
	e.write(map[string]any{"r": map[string]any{"url": ts.URL + "/mcp", "transport": "streamable-http", "idleTimeout": 0,
		"protocolVersion": "2025-11-25"}}, nil)
	s := e.srv(e.bridge(extension.GenNew), "r")
	if got := mustCall(t, s, "hello", nil); got != "hi" {
		t.Fatalf("hello = %q", got)
	}
	waitFor("the GET stream", func() bool { return getCount() == 1 })

	// The stream drops and the server stays unreachable: the first retry goes out after
	// mcp-go's second, the next one waits for our backoff (on the bridge clock).
	drop(true)
	// mcp-go's own retry and our backoff's timer come in an order the machine's load
	// decides: both are waited for.
	waitFor("mcp-go's retry and a backoff wait", func() bool { return getCount() >= 2 && e.clock.Pending() == 1 })
	if n := getCount(); n != 2 {
		t.Fatalf("%d GET attempts before the first backoff, want 2", n)
	}
	e.clock.Advance(999 * time.Millisecond)
	if e.clock.Pending() != 1 {
		t.Fatal("first backoff ended before 1s")
	}
	e.clock.Advance(time.Millisecond)
	waitFor("the second backoff", func() bool { return getCount() == 3 && e.clock.Pending() == 1 })
	e.clock.Advance(2999 * time.Millisecond)
	if e.clock.Pending() != 1 {
		t.Fatal("second backoff did not grow to 3s")
	}
	// The server is back: the next attempt opens the stream and resets the backoff.
	drop(false)
	e.clock.Advance(time.Millisecond)
	waitFor("the reopened stream", func() bool { return getCount() == 4 })
	drop(false)
	waitFor("an immediate reopen", func() bool { return getCount() == 5 })
	if n := e.clock.Pending(); n != 0 {
		t.Fatalf("backoff not reset after the stream reopened: %d timers pending", n)
	}
	if got := mustCall(t, s, "hello", nil); got != "hi" {
		t.Fatalf("hello after reconnects = %q", got)
	}
}

func TestExplicitSSEAgainstStreamableServer(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	url, _ := startFakeHTTP(t, "-http")
	// mcp-go's streamable server answers the GET with an event stream that never carries
	// an endpoint event. connectTimeout runs on the fake clock; mcp-go's own endpoint
	// timer (twice as long, real time) only backs it up.
	e.write(map[string]any{"r": map[string]any{"url": url, "transport": "sse", "connectTimeout": 30}}, nil)
	b := e.bridge(extension.GenNew)
	// The wording below needs the GET's answer noted by the transport before connectTimeout
	// fires: wait for that answer, not for the server to have seen the request.
	answered := make(chan struct{})
	var once sync.Once
	b.remote.Answered = func(method string, _ int) {
		if method == http.MethodGet {
			once.Do(func() { close(answered) })
		}
	}
	s := e.srv(b, "r")
	errc := make(chan error, 1)
	go func() { errc <- s.Start(ctxGuard(t)) }()
	select {
	case <-answered:
	case <-ctxGuard(t).Done():
		t.Fatal("the SSE GET was never answered")
	}
	testutil.AdvanceWhenWaiting(ctxGuard(t), t, e.clock, 30*time.Second)
	err := <-errc
	if kindOf(err) != session.KindTimeout || !strings.Contains(err.Error(), "no SSE endpoint event") || !strings.Contains(err.Error(), `"transport": "streamable-http"`) {
		t.Fatalf("err = %v (kind %d)", err, kindOf(err))
	}
}
