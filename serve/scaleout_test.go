package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// testToken is the bearer token of the instances served over HTTP in these tests.
const testToken = "scale-out-test-token"

// serveGuarded serves f's server over HTTP behind the guard on a fresh loopback port at
// /mcp with testToken, accepting the Host values in hosts too (what a load balancer in
// front passes on); it returns the instance's URL. The serving ends with the test.
func serveGuarded(t *testing.T, f *fixture, hosts ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := ListenGuarded(ctx, "127.0.0.1:0", false, 0)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	h := Guard(f.srv.HTTPHandler(), GuardOptions{Path: "/mcp", Token: testToken, Addr: ln.Addr().String(), Hosts: hosts})
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, ServerOptions{}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// httpClient is an mcp-go client of u in the given era (mcp.LATEST_PROTOCOL_VERSION:
// stateless, server/discover; mcp.LATEST_LEGACY_PROTOCOL_VERSION: initialize and a
// session id), started and initialized, closed when the test ends.
func proxiedClient(t testing.TB, ctx context.Context, u, era string, hc *http.Client) *client.Client {
	t.Helper()
	c, err := newHTTPClient(ctx, u, era, hc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// newHTTPClient is httpClient for a goroutine: it fails unless the era asked for was
// agreed (mcp-go falls back to 2025-11-25 silently when server/discover fails).
func newHTTPClient(ctx context.Context, u, era string, hc *http.Client) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(u, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + testToken}),
		transport.WithHTTPBasicClient(hc))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = era
	init.Params.ClientInfo = mcp.Implementation{Name: "test-" + era, Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("initialize at %s: %w", era, err)
	}
	if res.ProtocolVersion != era {
		_ = c.Close()
		return nil, fmt.Errorf("the client asked for %s and settled on %s", era, res.ProtocolVersion)
	}
	return c, nil
}

// roundRobin is a reverse proxy that sends each request to the next instance in turn,
// passing the client's Host on as a layer-4 balancer (a Kubernetes Service) does, and
// counts what each instance was sent.
type roundRobin struct {
	targets []*url.URL
	next    atomic.Uint64
	proxy   *httputil.ReverseProxy

	mu sync.Mutex
	// methods counts the JSON-RPC methods each instance was sent, by instance index.
	methods []map[string]int
	// headers are the headers of every request counted.
	headers []http.Header
}

func newRoundRobin(targets ...string) *roundRobin {
	rr := &roundRobin{}
	for _, s := range targets {
		u, _ := url.Parse(s)
		rr.targets = append(rr.targets, u)
		rr.methods = append(rr.methods, map[string]int{})
	}
	rr.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			i := int((rr.next.Add(1) - 1) % uint64(len(rr.targets)))
			pr.SetURL(rr.targets[i])
			pr.Out.URL.Path = rr.targets[i].Path
			pr.Out.Host = pr.In.Host
			rr.note(i, pr.Out)
		},
		// Event streams pass through as they are written.
		FlushInterval: -1,
	}
	return rr
}

// note records the JSON-RPC method of req (reading its body and putting it back).
func (rr *roundRobin) note(i int, req *http.Request) {
	method := req.Method
	if req.Body != nil && req.Body != http.NoBody {
		raw, _ := io.ReadAll(req.Body)
		_ = req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(raw))
		var msg struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(raw, &msg) == nil && msg.Method != "" {
			method = msg.Method
		}
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.methods[i][method]++
	rr.headers = append(rr.headers, req.Header.Clone())
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) { rr.proxy.ServeHTTP(w, r) }

// counts are the times each instance was sent method.
func (rr *roundRobin) counts(method string) []int {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	out := make([]int, len(rr.methods))
	for i, m := range rr.methods {
		out[i] = m[method]
	}
	return out
}

// reset forgets what was counted.
func (rr *roundRobin) reset() {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	for i := range rr.methods {
		rr.methods[i] = map[string]int{}
	}
	rr.headers = nil
}

func (rr *roundRobin) seenHeaders() []http.Header {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return slices.Clone(rr.headers)
}

// startProxy serves rr on a loopback port until the test ends; ln is listened already
// (the instances behind it must know its address to accept its Host).
func startProxy(t *testing.T, ln net.Listener, rr *roundRobin) string {
	t.Helper()
	srv := &http.Server{Handler: rr}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("proxy: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

func resultJSON(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestServeScaleOut: two instances, each with its own bridge, its own home holding the
// same configuration and its own backends, behind a round-robin proxy. Clients of both
// eras list the tools and call them through the proxy: both instances answer lists and
// calls, with the same tool names and the same results. A 2026-07-28 client sends no
// session id at all; a 2025-11-25 client's session id, minted by one instance, is taken
// by the other as it is (mcp-go's default keeps no table of ids to check it against), so
// plain requests need no affinity in either era.
func TestServeScaleOut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		era  string
		// call is the tool called and its arguments; want its answer's text.
		call string
		args map[string]any
		want string
		// list is the names listed (before any search).
		list []string
	}{
		{name: "2026-07-28, every tool", opts: Options{Tools: ToolsAll}, era: mcp.LATEST_PROTOCOL_VERSION,
			call: "mcp__beta__echo", args: map[string]any{"text": "hi"}, want: "beta: hi",
			list: []string{"mcp__alpha__ask", "mcp__alpha__chatty", "mcp__alpha__count", "mcp__alpha__echo", "mcp__alpha__hang", "mcp__alpha__poem",
				"mcp__beta__ask", "mcp__beta__chatty", "mcp__beta__count", "mcp__beta__echo", "mcp__beta__hang", "mcp__beta__poem"}},
		{name: "2026-07-28, search", opts: Options{}, era: mcp.LATEST_PROTOCOL_VERSION,
			call: CallTool, args: map[string]any{"server": "alpha", "tool": "echo", "arguments": map[string]any{"text": "yo"}}, want: "alpha: yo",
			list: []string{CallTool, SearchTool}},
		{name: "2025-11-25, every tool", opts: Options{Tools: ToolsAll}, era: mcp.LATEST_LEGACY_PROTOCOL_VERSION,
			call: "mcp__alpha__echo", args: map[string]any{"text": "old"}, want: "alpha: old",
			list: []string{"mcp__alpha__ask", "mcp__alpha__chatty", "mcp__alpha__count", "mcp__alpha__echo", "mcp__alpha__hang", "mcp__alpha__poem",
				"mcp__beta__ask", "mcp__beta__chatty", "mcp__beta__count", "mcp__beta__echo", "mcp__beta__hang", "mcp__beta__poem"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			pln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			// Two instances of one configuration (newFixture writes the same mcp.json into
			// each one's own home), each with its own backends.
			a := newFixture(t, tt.opts, "alpha", "beta")
			b := newFixture(t, tt.opts, "alpha", "beta")
			rr := newRoundRobin(serveGuarded(t, a, pln.Addr().String()), serveGuarded(t, b, pln.Addr().String()))
			u := startProxy(t, pln, rr)
			hc := &http.Client{Transport: &http.Transport{}}
			t.Cleanup(hc.CloseIdleConnections)

			const clients, rounds = 2, 6
			var cs []*client.Client
			for range clients {
				cs = append(cs, proxiedClient(t, ctx, u, tt.era, hc))
			}
			rr.reset()
			// Requests in a row alternate between the instances: rounds of each method per
			// client reach both.
			for _, c := range cs {
				for range rounds {
					if got := toolNames(t, c); !slices.Equal(got, tt.list) {
						t.Fatalf("tools/list = %q, want %q", got, tt.list)
					}
				}
			}
			var first string
			for _, c := range cs {
				for k := range rounds {
					text, res := callText(t, c, tt.call, tt.args)
					if text != tt.want || res.IsError {
						t.Fatalf("call %d: %s = %q (error %v), want %q", k, tt.call, text, res.IsError, tt.want)
					}
					if got := resultJSON(t, res); first == "" {
						first = got
					} else if got != first {
						t.Fatalf("call %d answered %s, another %s", k, got, first)
					}
				}
			}
			for _, m := range []string{string(mcp.MethodToolsList), string(mcp.MethodToolsCall)} {
				if n := rr.counts(m); n[0] == 0 || n[1] == 0 || n[0]+n[1] != clients*rounds {
					t.Errorf("%s answered by the instances %v times, want both among %d", m, n, clients*rounds)
				}
			}
			for _, h := range rr.seenHeaders() {
				sid, ver := h.Get("Mcp-Session-Id"), h.Get("Mcp-Protocol-Version")
				if tt.era == mcp.LATEST_PROTOCOL_VERSION && sid != "" {
					t.Errorf("a 2026-07-28 request carried session id %q", sid)
				}
				if tt.era == mcp.LATEST_LEGACY_PROTOCOL_VERSION && sid == "" {
					t.Errorf("a 2025-11-25 request after initialize carried no session id")
				}
				if ver != tt.era {
					t.Errorf("a request carried Mcp-Protocol-Version %q, want %s", ver, tt.era)
				}
			}
		})
	}
}
