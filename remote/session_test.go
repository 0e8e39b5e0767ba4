package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
)

func testDeps() *Deps {
	return &Deps{Log: zerolog.Nop(), Clock: clock.System{}, ClientName: "test",
		Cmd: func(sub string, args ...string) string {
			return strings.TrimSpace("/mcp " + sub + " " + strings.Join(args, " "))
		}}
}

func testHandlers() session.Handlers {
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	return session.Handlers{Init: init}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestOpenFallsBackToSSEAndRemembers: a url-only server is opened without the bridge —
// streamable HTTP first; a legacy SSE server's refusal makes Open try SSE, which works
// and is remembered, so the next Open goes to SSE straight away.
func TestOpenFallsBackToSSEAndRemembers(t *testing.T) {
	t.Parallel()
	mcpSrv := server.NewMCPServer("legacy", "1.0.0", server.WithToolCapabilities(false))
	mcpSrv.AddTool(mcp.NewTool("ping_me"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	})
	var sse *server.SSEServer
	var posts atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/sse" {
			posts.Add(1)
		}
		sse.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	sse = server.NewSSEServer(mcpSrv, server.WithBaseURL(ts.URL))
	u := ts.URL + "/sse"
	cfg := &config.Server{Name: "r", Source: "mcp.json", URL: u, Transport: config.TransportStreamableHTTP, TransportGuessed: true,
		ConnectTimeout: 30 * time.Second, RequestTimeout: 30 * time.Second, Raw: config.Raw{URL: u}}
	s := NewServer(cfg, testDeps())
	// The streamable attempt is the probe (server/discover) and initialize; the second
	// open sends none.
	for i, wantPosts := range []int32{2, 2} {
		sess, err := s.Open(testCtx(t), testHandlers())
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if tr := sess.Info().Transport; tr != config.TransportSSE {
			t.Errorf("open %d: transport %q, want sse", i, tr)
		}
		res, err := sess.CallTool(testCtx(t), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "ping_me"}})
		if err != nil || len(res.Content) != 1 {
			t.Fatalf("open %d: call: %v %+v", i, err, res)
		}
		_ = sess.Close(context.Background()) // closing an SSE stream may report the stream's end
		if n := posts.Load(); n != wantPosts {
			t.Errorf("after open %d: %d streamable-HTTP POSTs, want %d (the remembered transport goes first)", i, n, wantPosts)
		}
	}
}

// TestOpenErrorIsTyped: a refused connection comes back as *Error of kind unreachable,
// worded without the "MCP server" prefix (the bridge adds it when it maps the kind).
func TestOpenErrorIsTyped(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.NotFoundHandler())
	u := ts.URL + "/mcp"
	ts.Close()
	cfg := &config.Server{Name: "r", Source: "mcp.json", URL: u, Transport: config.TransportStreamableHTTP,
		ConnectTimeout: 30 * time.Second, RequestTimeout: 30 * time.Second, Raw: config.Raw{URL: u}}
	_, err := NewServer(cfg, testDeps()).Open(testCtx(t), testHandlers())
	var e *session.Error
	if !errors.As(err, &e) || e.Kind != session.KindUnreachable || !strings.HasPrefix(e.Msg, "cannot connect to "+u) || strings.Contains(e.Msg, "MCP server") {
		t.Fatalf("err = %#v", err)
	}
}
