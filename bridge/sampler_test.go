package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/inproctest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// frontModel is a front end's sampler that answers with the name of the server that
// asked.
type frontModel struct{ server string }

func (m frontModel) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("model for " + m.server)}}, nil
}

// TestOptionsSamplerAnswersServers: with Options.Sampler, a 2026-07-28 server's sampling
// input request is answered by the handler Sampler gives for that server; a nil handler
// refuses that server's sampling as zot's bridge does. Before, sampling was refused
// always.
func TestOptionsSamplerAnswersServers(t *testing.T) {
	t.Parallel()
	srv := server.NewMCPServer("m", "1.0", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("sample"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if a := server.SamplingResponse(r.Params.InputResponses, "s"); a != nil {
			c, _ := mcp.ParseSamplingContent(a.Content)
			if tc, ok := c.(mcp.TextContent); ok {
				return mcp.NewToolResultText(tc.Text), nil
			}
			return mcp.NewToolResultError("untyped sampling content"), nil
		}
		return server.NewInputRequestBuilder("").Sample("s", mcp.CreateMessageParams{MaxTokens: 1}).ToolResult(), nil
	})
	home, project := t.TempDir(), t.TempDir()
	inproctest.WriteConfig(t, home, map[string]map[string]any{"offered": {}, "refused": {}})
	connect := func(ctx context.Context, _ *config.Server, h session.Handlers) (session.Session, error) {
		h.Init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION // era negotiation is not this test's
		return session.OpenInProcess(ctx, srv, h)
	}
	sampler := func(server string) client.SamplingHandler {
		if server == "refused" {
			return nil
		}
		return frontModel{server: server}
	}
	b := New(Options{ZotHome: home, LookupEnv: func(string) (string, bool) { return "", false }, Clock: newFakeClock(),
		Log: zerolog.New(testutil.Log(t)), Resolver: noDNS(), Connect: connect, Surface: commands.SurfaceCLI, Sampler: sampler})
	b.Load(project, extension.GenNew)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5e9)
		defer cancel()
		b.Close(ctx)
	})
	for _, tt := range []struct {
		server, want string
		isError      bool
	}{
		{server: "offered", want: "model for offered"},
		{server: "refused", want: "mcp-bridge does not offer sampling", isError: true},
	} {
		r := b.CallByName(ctxGuard(t), tt.server, "sample", json.RawMessage(`{}`))
		if got := textOf(t, r); r.IsError != tt.isError || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q (error %v), want %q", tt.server, got, r.IsError, tt.want)
		}
	}
}
