package lifecycle

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// modernHTTP is a session over mcp-go's streamable HTTP transport that negotiates
// 2026-07-28 (the bridge's own handshake pins 2025-11-25 until the era is negotiated):
// what a test needs to see what the state machine sends on a modern connection.
type modernHTTP struct{ *session.Client }

func (m modernHTTP) Close(context.Context) error {
	err := m.MCP().Close()
	m.Finish(session.End{Cause: session.CauseClosed})
	return err
}

// metaRecorder keeps the _meta of the last POST of each method.
type metaRecorder struct {
	mu   sync.Mutex
	meta map[string]json.RawMessage
}

func (r *metaRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
			r.mu.Lock()
			r.meta[msg.Method] = msg.Params.Meta[mcp.MetaKeyClientCapabilities]
			r.mu.Unlock()
		}
		next.ServeHTTP(w, req)
	})
}

// TestModernCallCarriesParamHeaders: a server woken on a modern HTTP connection is
// called with the Mcp-Param-* header its tool's x-mcp-header annotation asks for
// (mcp-go's server refuses the call without it), from the definition its listing gave,
// and the bridge's tools/list declares the client capabilities mcp-go's own requests
// declare (the roots the roots handler implies among them).
func TestModernCallCarriesParamHeaders(t *testing.T) {
	srv := server.NewMCPServer("hdr", "1", server.WithToolCapabilities(false), server.WithPromptCapabilities(false))
	srv.AddTool(mcp.Tool{Name: "route", RawInputSchema: json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("routed " + req.GetString("region", "")), nil
		})
	rec := &metaRecorder{meta: map[string]json.RawMessage{}}
	hs := httptest.NewServer(rec.wrap(server.NewStreamableHTTPServer(srv)))
	defer hs.Close()

	home := t.TempDir()
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"remote": map[string]any{"url": hs.URL, "transport": "streamable-http"}}})
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Load(config.Options{ZotHome: home, ProjectDir: t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
	d := &Deps{Clock: clock.System{}, Log: zerolog.New(testutil.Log(t)), Surface: zotSurface{},
		Connector: ConnectFunc(func(ctx context.Context, c *config.Server, h session.Handlers) (session.Session, error) {
			tr, err := transport.NewStreamableHTTP(c.URL)
			if err != nil {
				return nil, err
			}
			h.Init.Params.ProtocolVersion = "" // negotiate
			cl := session.NewClient(tr, config.TransportStreamableHTTP, h)
			if err := cl.Initialize(ctx, h); err != nil {
				return nil, err
			}
			if v := cl.MCP().ProtocolVersion(); !mcp.IsModernProtocol(v) {
				t.Errorf("negotiated %q, want a modern version", v)
			}
			return modernHTTP{cl}, nil
		}).For}
	s := New(&cfg.Servers[0], d)
	defer s.Stop(context.Background())
	ctx := ctxGuard(t)

	if got := mustCall(t, s, "route", map[string]any{"region": "eu-1"}); got != "routed eu-1" {
		t.Fatalf("call: %q", got)
	}
	s.ListOffers(ctx) // prompts/list through mcp-go
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if own, ours := rec.meta["prompts/list"], rec.meta["tools/list"]; len(own) == 0 || string(own) != string(ours) {
		t.Errorf("tools/list declares %s, mcp-go's own request %s", ours, own)
	}
}
