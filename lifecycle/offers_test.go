package lifecycle

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestListOffers: a server lists its resources, resource templates and prompts for what
// its capabilities announce (starting it if asleep).
func TestListOffers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                        string
		offerResources, offerPrompt bool // what the server has (mcp-go announces what it has)
		resources, templates, other int  // what is listed; other: prompts
	}{
		{"resources and prompts", true, true, 1, 1, 1},
		{"prompts only", false, true, 0, 0, 1},
		{"tools only", false, false, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := server.NewMCPServer("offers", "1.0", server.WithToolCapabilities(false))
			srv.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
			if tc.offerResources {
				srv.AddResource(mcp.NewResource("docs://handbook", "handbook", mcp.WithMIMEType("text/markdown")),
					func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil })
				srv.AddResourceTemplate(mcp.NewResourceTemplate("docs://page/{n}", "page"),
					func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil })
			}
			if tc.offerPrompt {
				srv.AddPrompt(mcp.NewPrompt("summarize", mcp.WithArgument("topic", mcp.RequiredArgument())),
					func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
						return &mcp.GetPromptResult{}, nil
					})
			}

			home := t.TempDir()
			raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"docs": map[string]any{"command": "in-process"}}})
			if err := os.WriteFile(filepath.Join(home, "mcp.json"), raw, 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := config.Load(config.Options{ZotHome: home, ProjectDir: t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
			connect := func(ctx context.Context, _ *config.Server, h session.Handlers) (session.Session, error) {
				return session.OpenInProcess(ctx, srv, h)
			}
			s := New(&cfg.Servers[0], &Deps{Clock: clock.NewFake(), Log: zerolog.New(testutil.Log(t)), Connector: ConnectFunc(connect).For, Surface: zotSurface{}})
			t.Cleanup(func() { s.Stop(context.Background()) })

			o := s.ListOffers(ctxGuard(t)) // asleep: the list starts it
			if len(o.Resources) != tc.resources || len(o.Templates) != tc.templates || len(o.Prompts) != tc.other {
				t.Fatalf("listed %d resources, %d templates, %d prompts; want %d, %d, %d: %+v",
					len(o.Resources), len(o.Templates), len(o.Prompts), tc.resources, tc.templates, tc.other, o)
			}
			if tc.resources > 0 && (o.Resources[0].URI != "docs://handbook" || o.Resources[0].MIMEType != "text/markdown") {
				t.Errorf("resource %+v", o.Resources[0])
			}
			if tc.other > 0 && (o.Prompts[0].Name != "summarize" || len(o.Prompts[0].Arguments) != 1 || !o.Prompts[0].Arguments[0].Required) {
				t.Errorf("prompt %+v", o.Prompts[0])
			}
		})
	}
}

// TestListOffersBoundedByRequestTimeout: a list the server never answers ends once
// requestTimeout has passed on the injected clock, even under a context that never ends
// (the background refresh's), and the other lists are still made. Before, ListOffers
// waited for it forever.
func TestListOffersBoundedByRequestTimeout(t *testing.T) {
	t.Parallel()
	hooks := &server.Hooks{}
	hooks.AddBeforeListResources(func(ctx context.Context, _ any, _ *mcp.ListResourcesRequest) { <-ctx.Done() })
	srv := server.NewMCPServer("offers", "1.0", server.WithHooks(hooks))
	srv.AddResource(mcp.NewResource("docs://handbook", "handbook"),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil })
	srv.AddPrompt(mcp.NewPrompt("summarize"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	home := t.TempDir()
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"docs": map[string]any{"command": "in-process", "requestTimeout": 420}}})
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	all := config.Load(config.Options{ZotHome: home, ProjectDir: t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
	cfg := &all.Servers[0]
	clk := clock.NewFake()
	connect := func(ctx context.Context, _ *config.Server, h session.Handlers) (session.Session, error) {
		return session.OpenInProcess(ctx, srv, h)
	}
	s := New(cfg, &Deps{Clock: clk, Log: zerolog.New(testutil.Log(t)), Connector: ConnectFunc(connect).For, Surface: zotSurface{}})
	t.Cleanup(func() { s.Stop(context.Background()) })
	done := make(chan Offers, 1)
	go func() { done <- s.ListOffers(context.Background()) }()
	if err := clk.AdvanceWhenSet(ctxGuard(t), cfg.RequestTimeout); err != nil {
		t.Fatalf("no requestTimeout on the injected clock: %v", err)
	}
	// The in-process server answers the list once its hook returns; the answer after the
	// deadline is the in-process session's to fail, so only the return and the prompts
	// listed after it are checked.
	o := <-done
	if len(o.Prompts) != 1 {
		t.Fatalf("listed %+v; want the prompt listed after the bounded list", o)
	}
}

// TestToolListOfAnEndedSession: a tool listing cut by the session's end is of the ended
// kind, on connect and later: an exit with "the next use starts it again". Before, the
// *EndedError got a call failure's (or a start failure's) wording.
func TestToolListOfAnEndedSession(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		list func(ctx context.Context, s *Server) error
	}{
		{"on connect", func(ctx context.Context, s *Server) error { return s.Start(ctx) }},
		{"later", func(ctx context.Context, s *Server) error { _, err := s.ListTools(ctx); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var sess atomic.Pointer[session.InProcess]
			var lists atomic.Int32
			first := int32(1)
			if tt.name == "later" {
				first = 2 // the connect's own listing answers
			}
			hooks := &server.Hooks{}
			hooks.AddBeforeListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest) {
				if lists.Add(1) == first {
					sess.Load().Exit("exited: signal: killed", "fatal: boom")
					<-ctx.Done()
				}
			})
			srv := server.NewMCPServer("ended", "1.0", server.WithToolCapabilities(false), server.WithHooks(hooks))
			srv.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
			home := t.TempDir()
			raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"docs": map[string]any{"command": "in-process"}}})
			if err := os.WriteFile(filepath.Join(home, "mcp.json"), raw, 0o600); err != nil {
				t.Fatal(err)
			}
			all := config.Load(config.Options{ZotHome: home, ProjectDir: t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
			connect := func(ctx context.Context, _ *config.Server, h session.Handlers) (session.Session, error) {
				s, err := session.OpenInProcess(ctx, srv, h)
				if err == nil {
					sess.Store(s)
				}
				return s, err
			}
			s := New(&all.Servers[0], &Deps{Clock: clock.NewFake(), Log: zerolog.New(testutil.Log(t)), Connector: ConnectFunc(connect).For, Surface: zotSurface{}})
			t.Cleanup(func() { s.Stop(context.Background()) })
			if tt.name == "later" {
				if err := s.Start(ctxGuard(t)); err != nil {
					t.Fatal(err)
				}
			}
			err := tt.list(ctxGuard(t), s)
			if KindOf(err) != session.KindEnded || !strings.Contains(err.Error(), "starts it again") {
				t.Fatalf("listing cut by the exit: %v (kind %d); want the ended kind", err, KindOf(err))
			}
		})
	}
}
