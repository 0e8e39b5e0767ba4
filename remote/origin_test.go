package remote

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/config"
)

const (
	testBearer = "tok-SECRET-0123456789"
	testAPIKey = "key-SECRET-0123456789"
)

// recorder is a server on another origin that notes the headers and the body of every
// request it gets.
type recorder struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []http.Header
	bodies []string
}

func newRecorder(t *testing.T, useTLS bool) *recorder {
	r := &recorder{}
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 64<<10))
		r.mu.Lock()
		r.got = append(r.got, req.Header.Clone())
		r.bodies = append(r.bodies, string(body))
		r.mu.Unlock()
		http.NotFound(w, req)
	})
	if useTLS {
		r.srv = httptest.NewTLSServer(h)
	} else {
		r.srv = httptest.NewServer(h)
	}
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) requests() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.got...)
}

// received are the bodies of the requests it got, in order ("" for none).
func (r *recorder) received() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...)
}

// originBound are the headers no other origin may see, with the value that must not leak
// ("": any value).
var originBound = map[string]string{"Authorization": "", "X-Api-Key": "", transport.HeaderKeySessionID: "", "Referer": ""}

// checkNothingLeaked fails when a request the recorder got carries an origin-bound header.
func checkNothingLeaked(t *testing.T, got []http.Header) {
	t.Helper()
	for i, h := range got {
		for k := range originBound {
			if v := h.Get(k); v != "" {
				t.Errorf("request %d on the other origin carried %s: %q", i, k, v)
			}
		}
	}
}

// mcpHome is an MCP server that wants testBearer and redirects its tools/call POSTs with
// code (0: 307) to where() ("": not redirected); every path serves MCP, so a redirect to
// another path of the same server keeps the session. seen are the headers of the requests
// it served on other paths than /mcp.
type mcpHome struct {
	srv   *httptest.Server
	where func() string
	code  int
	mu    sync.Mutex
	seen  []http.Header
}

func newMCPHome(t *testing.T, useTLS bool) *mcpHome {
	m := &mcpHome{}
	mcpSrv := server.NewMCPServer("home", "1.0.0", server.WithToolCapabilities(false))
	mcpSrv.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(r.GetString("text", "")), nil
	})
	inner := server.NewStreamableHTTPServer(mcpSrv)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+testBearer || r.Header.Get("X-Api-Key") != testAPIKey {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if r.URL.Path == "/mcp" && bytes.Contains(body, []byte(`"tools/call"`)) && m.where != nil {
			if u := m.where(); u != "" {
				code := m.code
				if code == 0 {
					code = http.StatusTemporaryRedirect
				}
				http.Redirect(w, r, u, code)
				return
			}
		}
		if r.URL.Path != "/mcp" {
			m.mu.Lock()
			m.seen = append(m.seen, r.Header.Clone())
			m.mu.Unlock()
		}
		inner.ServeHTTP(w, r)
	})
	if useTLS {
		m.srv = httptest.NewTLSServer(h)
	} else {
		m.srv = httptest.NewServer(h)
	}
	t.Cleanup(m.srv.Close)
	return m
}

// loggedInServer is a Server for url with a stored OAuth token (testBearer) and a
// configured header (X-Api-Key); tlsFrom, when set, is a test server whose certificate
// its connections trust.
func loggedInServer(t *testing.T, u string, tlsFrom *httptest.Server) *Server {
	t.Helper()
	d := testDeps()
	d.OAuth = NewOAuth(t.TempDir(), OAuthHooks{})
	if tlsFrom != nil {
		d.base = tlsFrom.Client().Transport.(*http.Transport).Clone()
	}
	if err := writeCreds(d.OAuth.credPath(u), &oauthCreds{ClientID: "client-1", Token: &transport.Token{AccessToken: testBearer, TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Server{Name: "r", Source: "mcp.json", URL: u, Transport: config.TransportStreamableHTTP,
		Headers: map[string]string{"X-Api-Key": testAPIKey}, ConnectTimeout: 30 * time.Second, RequestTimeout: 30 * time.Second,
		Raw: config.Raw{URL: u, Headers: map[string]string{"X-Api-Key": "${API_KEY}"}}}
	return NewServer(cfg, d)
}

// TestMCPRedirectKeepsCredentialsOnTheirOrigin: a logged-in server that answers tools/call
// with 307 or 308 to another origin (another port of 127.0.0.1, the host name Go's
// redirect policy compares) gets nothing there: the tool call's arguments are not re-sent
// to a host the config does not name, and the call fails saying why and naming the
// target; a 303 there (which Go follows with a GET, without the body) reaches it without
// the bearer token, the configured header, the session id or the referring url; from
// https to plain http nothing is sent and the call fails saying why; a 307 to another
// path of the same origin still carries them all and the call works. Before, Go's client
// re-posted the call there, and kept Authorization and the session id for the same host
// name, whatever the port or the scheme.
func TestMCPRedirectKeepsCredentialsOnTheirOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		homeTLS, elTLS bool
		code           int // 0: 307
		sameOrigin     bool
		wantErr        string // "": the call works
		wantOther      int    // requests the other origin gets
	}{
		{name: "http, another port", wantErr: "refused for safety", wantOther: 0},
		{name: "http, another port, 308", code: http.StatusPermanentRedirect, wantErr: "refused for safety", wantOther: 0},
		{name: "https, another port", homeTLS: true, elTLS: true, wantErr: "refused for safety", wantOther: 0},
		{name: "http, another port, 303", code: http.StatusSeeOther, wantErr: "HTTP 404", wantOther: 1},
		{name: "https, another port, 303", homeTLS: true, elTLS: true, code: http.StatusSeeOther, wantErr: "HTTP 404", wantOther: 1},
		{name: "https to http", homeTLS: true, wantErr: "never follows https to plain http", wantOther: 0},
		{name: "same origin, another path", sameOrigin: true},
		{name: "https, same origin", homeTLS: true, sameOrigin: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := newMCPHome(t, tt.homeTLS)
			other := newRecorder(t, tt.elTLS)
			target := other.srv.URL + "/elsewhere"
			if tt.sameOrigin {
				target = home.srv.URL + "/moved"
			}
			home.where = func() string { return target }
			home.code = tt.code
			var tlsFrom *httptest.Server
			if tt.homeTLS {
				tlsFrom = home.srv
			}
			s := loggedInServer(t, home.srv.URL+"/mcp", tlsFrom)
			sess, err := s.Open(testCtx(t), testHandlers())
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer sess.Close(context.Background())
			res, err := sess.CallTool(testCtx(t), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("call: %v", err)
			case tt.wantErr == "" && (len(res.Content) != 1 || res.Content[0].(mcp.TextContent).Text != "hi"):
				t.Fatalf("call: %+v", res)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("call: %v, want an error saying %q", err, tt.wantErr)
			}
			if err != nil && (strings.Contains(err.Error(), testBearer) || strings.Contains(err.Error(), testAPIKey)) {
				t.Errorf("the error shows a secret: %v", err)
			}
			if tt.wantErr == "refused for safety" && (!strings.Contains(err.Error(), target) || !strings.Contains(err.Error(), "if the server has moved to that address, set its url in mcp.json")) {
				t.Errorf("call: %v, want an error naming %s and what to do", err, target)
			}
			got := other.requests()
			if len(got) != tt.wantOther {
				t.Errorf("the other origin got %d requests, want %d", len(got), tt.wantOther)
			}
			checkNothingLeaked(t, got)
			for _, b := range other.received() {
				if b != "" {
					t.Errorf("the other origin got a body: %q", b)
				}
			}
			if tt.sameOrigin {
				home.mu.Lock()
				seen := home.seen
				home.mu.Unlock()
				// A legacy connection's call carries its session; a modern one has none,
				// and says its revision instead.
				if len(seen) != 1 || seen[0].Get(transport.HeaderKeySessionID) == "" && !mcp.IsModernProtocol(seen[0].Get(mcp.HeaderProtocolVersion)) {
					t.Errorf("the same origin's other path got %d requests (headers %v), want the call with its session or its modern revision", len(seen), seen)
				}
			}
		})
	}
}

// TestGuardRedirect: the redirect rule on chains of hops as Go's client makes them (each
// hop's Response names the request before it): headers bound to the first request's
// origin are stripped on a hop to another scheme, host or port and kept on the same
// origin (even after a detour); no hop goes from https to http; and a hop that carries a
// body (a 307 or 308 of a POST) never goes to another origin: it is refused naming its
// target without user info or query, and its body is closed unsent. Before, the body went
// along.
func TestGuardRedirect(t *testing.T) {
	t.Parallel()
	const (
		kept = iota
		stripped
		downgrade
		bodyRefused
	)
	tests := []struct {
		name   string
		chain  []string // the first request, then each hop
		body   bool     // the last hop carries a body (else it is a GET)
		want   int
		target string // the refused hop as a *RedirectError names it
	}{
		{name: "first request", chain: []string{"http://127.0.0.1:1/mcp"}, body: true},
		{name: "same origin", chain: []string{"http://127.0.0.1:1/mcp", "http://127.0.0.1:1/moved"}},
		{name: "same origin, body", chain: []string{"http://127.0.0.1:1/token", "http://127.0.0.1:1/v2/token"}, body: true},
		{name: "default port spelled out", chain: []string{"https://h.example/mcp", "https://H.example:443/moved"}, body: true},
		{name: "another port", chain: []string{"http://127.0.0.1:1/mcp", "http://127.0.0.1:2/mcp"}, want: stripped},
		{name: "another host", chain: []string{"https://h.example/mcp", "https://sub.h.example/mcp"}, want: stripped},
		{name: "http to https", chain: []string{"http://127.0.0.1:1/mcp", "https://127.0.0.1:1/mcp"}, want: stripped},
		{name: "back to the first origin", chain: []string{"https://a.example/mcp", "https://b.example/x", "https://a.example/y"}},
		{name: "back to the first origin, body", chain: []string{"https://a.example/mcp", "https://a.example/x", "https://a.example/y"}, body: true},
		{name: "https to http", chain: []string{"https://127.0.0.1:1/mcp", "http://127.0.0.1:1/mcp"}, want: downgrade},
		{name: "https to http later", chain: []string{"https://a.example/mcp", "https://b.example/x", "http://c.example/y"}, want: downgrade},
		{name: "body, another port", chain: []string{"http://127.0.0.1:1/token", "http://127.0.0.1:2/token"}, body: true, want: bodyRefused,
			target: "http://127.0.0.1:2/token"},
		{name: "body, another host", chain: []string{"https://auth.example/token", "https://u:pw@evil.example/t?code=1"}, body: true, want: bodyRefused,
			target: "https://evil.example/t?…"},
		{name: "body, http to https", chain: []string{"http://127.0.0.1:1/mcp", "https://127.0.0.1:1/mcp"}, body: true, want: bodyRefused,
			target: "https://127.0.0.1:1/mcp"},
		{name: "body, after a same-origin hop", chain: []string{"https://a.example/mcp", "https://a.example/x", "https://b.example/y"}, body: true, want: bodyRefused,
			target: "https://b.example/y"},
	}
	configured := map[string]string{"X-Api-Key": testAPIKey}
	for _, tt := range tests {
		var req *http.Request
		var body *closeRecorder
		for i, u := range tt.chain {
			method, rc := http.MethodGet, io.ReadCloser(nil)
			if tt.body && i == len(tt.chain)-1 {
				body = &closeRecorder{Reader: strings.NewReader(`{"code":"x"}`)}
				method, rc = http.MethodPost, body
			}
			next, err := http.NewRequestWithContext(context.Background(), method, u, rc)
			if err != nil {
				t.Fatal(err)
			}
			if req != nil {
				next.Response = &http.Response{StatusCode: http.StatusTemporaryRedirect, Request: req}
			}
			for k := range originBound {
				next.Header.Set(k, "v")
			}
			req = next
		}
		got, err := guardRedirect(req, configured)
		if tt.want == downgrade || tt.want == bodyRefused {
			re, ok := err.(*RedirectError)
			switch {
			case !ok || got != nil:
				t.Errorf("%s: %v, %v; want a *RedirectError", tt.name, got, err)
			case re.Body != (tt.want == bodyRefused):
				t.Errorf("%s: %v (Body %v), want Body %v", tt.name, re, re.Body, tt.want == bodyRefused)
			case tt.want == bodyRefused && (re.Target != tt.target || !strings.Contains(re.Error(), tt.target) || !strings.Contains(re.Error(), "refused for safety")):
				t.Errorf("%s: %q (target %q), want one naming %q and saying it is refused for safety", tt.name, re, re.Target, tt.target)
			}
			if body != nil && !body.closed {
				t.Errorf("%s: the refused hop's body was not closed", tt.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		for k := range originBound {
			if has := got.Header.Get(k) != ""; has == (tt.want == stripped) {
				t.Errorf("%s: %s present %v, want %v", tt.name, k, has, tt.want != stripped)
			}
		}
		if tt.want == stripped && req.Header.Get("Authorization") == "" {
			t.Errorf("%s: the caller's request was changed", tt.name)
		}
	}
}

// closeRecorder is a request body that notes it was closed.
type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }
