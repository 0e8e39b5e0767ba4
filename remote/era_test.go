package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// eraHTTP is an mcp-go streamable HTTP server with a record of what reached it.
type eraHTTP struct {
	srv *server.MCPServer
	url string

	// hang makes server/discover go unanswered until the client gives up on it; probed
	// is closed when such a probe arrived.
	hang       atomic.Bool
	probed     chan struct{}
	probedOnce sync.Once

	mu        sync.Mutex
	methods   map[string]int // JSON-RPC methods of the POSTs
	gets      int
	sessioned int // requests that carried Mcp-Session-Id
}

// newEraHTTP serves both eras, or the legacy one only; garbage answers server/discover
// with an empty result before the server sees it.
func newEraHTTP(t *testing.T, legacyOnly, garbage bool) *eraHTTP {
	t.Helper()
	e := &eraHTTP{methods: map[string]int{}, probed: make(chan struct{})}
	e.srv = server.NewMCPServer("era", "1.0", server.WithToolCapabilities(true))
	e.srv.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	var opts []server.StreamableHTTPOption
	if legacyOnly {
		opts = append(opts, server.WithStreamableHTTPProtocolVersions(mcp.LegacyProtocolVersions()...))
	}
	h := server.NewStreamableHTTPServer(e.srv, opts...)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			_ = json.Unmarshal(body, &m)
		}
		e.mu.Lock()
		e.methods[m.Method]++
		if r.Method == http.MethodGet {
			e.gets++
		}
		if r.Header.Get("Mcp-Session-Id") != "" {
			e.sessioned++
		}
		e.mu.Unlock()
		if e.hang.Load() && m.Method == string(mcp.MethodServerDiscover) {
			e.probedOnce.Do(func() { close(e.probed) })
			<-r.Context().Done()
			return
		}
		if garbage && m.Method == string(mcp.MethodServerDiscover) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`))
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	e.url = ts.URL + "/mcp"
	return e
}

// TestStreamableHTTPEra: a modern server is spoken to statelessly (no initialize, no
// session id, no GET stream) and its list changes come on subscriptions/listen; a legacy
// one (or one whose discover answer is garbage) keeps initialize, its session and the GET
// stream; a remembered or pinned legacy era sends no probe.
func TestStreamableHTTPEra(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		legacyOnly, garbage bool
		era                 session.Era
		want                string
		discovers, inits    int
		stateless           bool
	}{
		{name: "modern", want: mcp.LATEST_PROTOCOL_VERSION, discovers: 1, inits: 0, stateless: true},
		{name: "legacy only", legacyOnly: true, want: mcp.LATEST_LEGACY_PROTOCOL_VERSION, discovers: 1, inits: 1},
		{name: "garbage discover", garbage: true, want: mcp.LATEST_LEGACY_PROTOCOL_VERSION, discovers: 1, inits: 2},
		{name: "remembered legacy", era: session.Era{Known: mcp.LATEST_LEGACY_PROTOCOL_VERSION}, want: mcp.LATEST_LEGACY_PROTOCOL_VERSION, discovers: 0, inits: 1},
		{name: "pinned legacy", era: session.Era{Pin: "2025-06-18"}, want: "2025-06-18", discovers: 0, inits: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEraHTTP(t, tt.legacyOnly, tt.garbage)
			cfg := &config.Server{Name: "r", Source: "mcp.json", URL: e.url, Transport: config.TransportStreamableHTTP,
				ConnectTimeout: 30 * time.Second, RequestTimeout: 30 * time.Second, Raw: config.Raw{URL: e.url}}
			d := testDeps()
			getOpen := make(chan struct{}, 8)
			d.Answered = func(method string, status int) {
				if method == http.MethodGet && status == http.StatusOK {
					getOpen <- struct{}{}
				}
			}
			notes := make(chan string, 16)
			h := testHandlers()
			h.Era = tt.era
			h.OnNotification = func(n mcp.JSONRPCNotification) { notes <- n.Method }
			sess, err := NewServer(cfg, d).Open(testCtx(t), h)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer sess.Close(context.Background())
			if got := sess.Info().Protocol; got != tt.want {
				t.Errorf("protocol %q, want %q", got, tt.want)
			}
			if _, err := sess.CallTool(testCtx(t), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "echo"}}); err != nil {
				t.Fatalf("call: %v", err)
			}
			// Once the stream that carries list changes is open, a change reaches us.
			ctx := testCtx(t)
			if tt.stateless {
				waitNote(ctx, t, notes, mcp.MethodNotificationSubscriptionsAcknowledged)
			} else {
				select {
				case <-getOpen:
				case <-ctx.Done():
					t.Fatal("no GET stream opened")
				}
			}
			e.srv.AddTool(mcp.NewTool("late"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("late"), nil
			})
			waitNote(ctx, t, notes, string(mcp.MethodNotificationToolsListChanged))
			e.mu.Lock()
			defer e.mu.Unlock()
			if d, i := e.methods[string(mcp.MethodServerDiscover)], e.methods[string(mcp.MethodInitialize)]; d != tt.discovers || i != tt.inits {
				t.Errorf("server/discover %d, initialize %d; want %d, %d", d, i, tt.discovers, tt.inits)
			}
			if tt.stateless && (e.gets != 0 || e.sessioned != 0) {
				t.Errorf("a modern connection sent %d GETs and %d requests with a session id, want none", e.gets, e.sessioned)
			}
			if !tt.stateless && e.sessioned == 0 {
				t.Errorf("a legacy connection sent no session id")
			}
		})
	}
}

// TestStreamableHTTPEraHungProbe: a server that never answers server/discover over
// streamable HTTP is given up on at the probe's own deadline (on the injected clock) and
// spoken to in the legacy era, its GET stream open; the open does not wait for the
// connect timeout.
func TestStreamableHTTPEraHungProbe(t *testing.T) {
	t.Parallel()
	e := newEraHTTP(t, false, false)
	e.hang.Store(true)
	cfg := &config.Server{Name: "r", Source: "mcp.json", URL: e.url, Transport: config.TransportStreamableHTTP,
		ConnectTimeout: 30 * time.Second, RequestTimeout: 30 * time.Second, Raw: config.Raw{URL: e.url}}
	d := testDeps()
	getOpen := make(chan struct{}, 8)
	d.Answered = func(method string, status int) {
		if method == http.MethodGet && status == http.StatusOK {
			getOpen <- struct{}{}
		}
	}
	fake := clock.NewFake()
	h := testHandlers()
	h.Era = session.Era{Clock: fake}
	ctx := testCtx(t)
	type opened struct {
		s   session.Session
		err error
	}
	done := make(chan opened, 1)
	go func() {
		s, err := NewServer(cfg, d).Open(ctx, h)
		done <- opened{s, err}
	}()
	select {
	case <-e.probed:
	case <-ctx.Done():
		t.Fatal("no probe reached the server")
	}
	testutil.AdvanceWhenWaiting(ctx, t, fake, session.DefaultProbeTimeout)
	var o opened
	select {
	case o = <-done:
	case <-ctx.Done():
		t.Fatal("the open waited past the probe's deadline")
	}
	if o.err != nil {
		t.Fatalf("open: %v", o.err)
	}
	defer o.s.Close(context.Background())
	if got := o.s.Info().Protocol; got != mcp.LATEST_LEGACY_PROTOCOL_VERSION {
		t.Errorf("protocol %q, want the legacy era", got)
	}
	select {
	case <-getOpen:
	case <-ctx.Done():
		t.Fatal("no GET stream opened")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if d, i := e.methods[string(mcp.MethodServerDiscover)], e.methods[string(mcp.MethodInitialize)]; d != 1 || i != 1 {
		t.Errorf("server/discover %d, initialize %d; want 1 each", d, i)
	}
}

func waitNote(ctx context.Context, t *testing.T, notes <-chan string, want string) {
	t.Helper()
	for {
		select {
		case m := <-notes:
			if m == want {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no %s", want)
		}
	}
}

// TestStreamableHTTPProbeUnauthorized: a server that refuses the probe with HTTP 401 is
// not taken for a legacy one: no initialize follows with the same credentials, the start
// fails as an authorization failure (also when the entry pins the modern era, where the
// answer is to log in, not to remove "protocolVersion"). Before,
// the fallback's initialize went out, and its failure, not the probe's, was reported.
func TestStreamableHTTPProbeUnauthorized(t *testing.T) {
	t.Parallel()
	for _, pin := range []string{"", mcp.LATEST_PROTOCOL_VERSION} {
		t.Run("pin "+pin, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			methods := map[string]int{}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var m struct {
					Method string `json:"method"`
				}
				_ = json.NewDecoder(r.Body).Decode(&m)
				mu.Lock()
				methods[m.Method]++
				mu.Unlock()
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				w.WriteHeader(http.StatusUnauthorized)
			}))
			t.Cleanup(ts.Close)
			u := ts.URL + "/mcp"
			cfg := &config.Server{Name: "r", Source: "mcp.json", URL: u, Transport: config.TransportStreamableHTTP,
				ConnectTimeout: 30 * time.Second, RequestTimeout: 30 * time.Second, Raw: config.Raw{URL: u}}
			h := testHandlers()
			h.Era = session.Era{Pin: pin}
			sess, err := NewServer(cfg, testDeps()).Open(testCtx(t), h)
			if err == nil {
				sess.Close(context.Background())
				t.Fatal("open succeeded")
			}
			var e *session.Error
			var nm *session.NotModernError
			if !errors.As(err, &e) || e.Kind != session.KindAuth || errors.As(err, &nm) {
				t.Fatalf("err = %v (%#v), want an authorization failure", err, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if d, i := methods[string(mcp.MethodServerDiscover)], methods[string(mcp.MethodInitialize)]; d != 1 || i != 0 {
				t.Errorf("server/discover %d, initialize %d; want 1, 0", d, i)
			}
		})
	}
}
