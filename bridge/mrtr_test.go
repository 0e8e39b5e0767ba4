package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/inproctest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// acceptAll is the CLI's side of the bridge's questions, accepting each with {"ok": true}.
type acceptAll struct{ asked chan string }

func (a acceptAll) Modes() (form, url bool) { return true, false }
func (a acceptAll) Elicit(_ context.Context, q *interact.Elicitation) (*mcp.ElicitationResult, error) {
	a.asked <- q.Message
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"ok": true}}}, nil
}

// TestInputRequiredThroughBridge: a 2026-07-28 server's tool that asks for input in its
// result gets the bridge's answers: the user's (through the bridge's question flow), the
// project as its root, sampling refused with an error that says so; the call then ends
// with the server's result. Before, mcp-go answered with its own handlers only, and
// sampling failed with "no sampling handler configured".
func TestInputRequiredThroughBridge(t *testing.T) {
	t.Parallel()
	srv := server.NewMCPServer("m", "1.0", server.WithToolCapabilities(false))
	form := mcp.ElicitationParams{Message: "Proceed?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}
	srv.AddTool(mcp.NewTool("ask"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if a := server.ElicitationResponse(r.Params.InputResponses, "q"); a != nil {
			raw, _ := json.Marshal(a.Content)
			return mcp.NewToolResultText(string(a.Action) + " " + string(raw)), nil
		}
		return server.NewInputRequestBuilder("s").Elicit("q", form).ToolResult(), nil
	})
	srv.AddTool(mcp.NewTool("where"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if a := server.RootsResponse(r.Params.InputResponses, "r"); a != nil && len(a.Roots) > 0 {
			return mcp.NewToolResultText(a.Roots[0].URI), nil
		}
		return server.NewInputRequestBuilder("").Roots("r").ToolResult(), nil
	})
	srv.AddTool(mcp.NewTool("sample"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return server.NewInputRequestBuilder("").Sample("s", mcp.CreateMessageParams{MaxTokens: 1}).ToolResult(), nil
	})
	home, project := t.TempDir(), t.TempDir()
	inproctest.WriteConfig(t, home, map[string]map[string]any{"m": {}})
	connect := func(ctx context.Context, _ *config.Server, h session.Handlers) (session.Session, error) {
		h.Init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION // era negotiation is not this test's
		return session.OpenInProcess(ctx, srv, h)
	}
	b := New(Options{ZotHome: home, LookupEnv: func(string) (string, bool) { return "", false }, Clock: newFakeClock(),
		Log: zerolog.New(testutil.Log(t)), Resolver: noDNS(), Connect: connect, Surface: commands.SurfaceCLI})
	asked := acceptAll{asked: make(chan string, 4)}
	b.SetElicitor(asked)
	b.Load(project, extension.GenNew)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5e9)
		defer cancel()
		b.Close(ctx)
	})
	for _, tt := range []struct {
		tool, want string
		isError    bool
	}{
		{tool: "ask", want: `accept {"ok":true}`},
		{tool: "where", want: lifecycle.FileURI(project)},
		{tool: "sample", want: "mcp-bridge does not offer sampling", isError: true},
	} {
		r := b.CallByName(ctxGuard(t), "m", tt.tool, json.RawMessage(`{}`))
		if got := textOf(t, r); r.IsError != tt.isError || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q (error %v), want %q", tt.tool, got, r.IsError, tt.want)
		}
	}
	select {
	case q := <-asked.asked:
		if q != "Proceed?" {
			t.Errorf("asked %q", q)
		}
	default:
		t.Error("the user was not asked")
	}
}
