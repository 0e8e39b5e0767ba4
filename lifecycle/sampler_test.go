package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/remote"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// samplerHost is a Host with an optional sampler, counting the refusals it is told of.
type samplerHost struct {
	Host
	sampler client.SamplingHandler
	refused atomic.Int32
}

func (h *samplerHost) SessionOptions(*Server) []client.ClientOption    { return nil }
func (h *samplerHost) Elicitor(*Server) client.ElicitationHandler      { return nil }
func (h *samplerHost) Sampler(*Server) client.SamplingHandler          { return h.sampler }
func (h *samplerHost) SamplingRefused(string)                          { h.refused.Add(1) }
func (h *samplerHost) ProtocolLearned(*Server, string)                 {}
func (h *samplerHost) Progress(string, mcp.ProgressNotificationParams) {}
func (h *samplerHost) ServerLog(string, LogLine)                       {}
func (h *samplerHost) ApprovalErr(*Server) *Error                      { return nil }
func (h *samplerHost) CallMeta(context.Context) *mcp.Meta              { return nil }

// callMark is a value the test's calls carry, which no sampler may see.
type callMark struct{}

// fakeModel is a front end's sampler: it answers with text, or fails with err, and
// records what it was asked and whether its context carried anything of the call.
type fakeModel struct {
	text string
	err  error

	mu     sync.Mutex
	asked  []string
	leaked []string
}

func (m *fakeModel) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range req.Messages {
		if tc, ok := msg.Content.(mcp.TextContent); ok {
			m.asked = append(m.asked, tc.Text)
		} else {
			m.asked = append(m.asked, "untyped content")
		}
	}
	if ctx.Value(callMark{}) != nil {
		m.leaked = append(m.leaked, "the call's value")
	}
	if _, ok := ctx.Value(liftedKey{}).(bool); ok {
		m.leaked = append(m.leaked, "the call's lifted limits")
	}
	if m.err != nil {
		return nil, m.err
	}
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(m.text)}, Model: "fake"}, nil
}

// sampleParams is what the servers of these tests ask the client's model.
var sampleParams = mcp.CreateMessageParams{Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("say hi")}}, MaxTokens: 5}

// sampledText is the text of a sampling answer (decoded from JSON, its content is a
// generic map until parsed).
func sampledText(r *mcp.CreateMessageResult) string {
	if c, err := mcp.ParseSamplingContent(r.Content); err == nil {
		r.Content = c
	}
	if tc, ok := r.Content.(mcp.TextContent); ok {
		return tc.Text
	}
	raw, _ := json.Marshal(r.Content)
	return string(raw)
}

// markedCall is a call context with the marks a caller's context may carry.
func markedCall(t *testing.T) context.Context {
	return LiftLimits(context.WithValue(ctxGuard(t), callMark{}, "call"))
}

// TestLegacySamplingThroughHostSampler: a 2025-11-25 server (streamable HTTP on
// loopback, in the test process) whose tool asks the client for sampling gets the host
// sampler's answer when the host has one, and the sampler's error text when it fails;
// the session advertises sampling exactly then. Without a sampler the request is refused
// as it always was, and the host is told. The sampler's context carries nothing of the
// call. Before, every request was refused and sampling was never advertised.
func TestLegacySamplingThroughHostSampler(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		model     *fakeModel // nil: the host has no sampler
		want      string
		advertise bool
		refused   int32
	}{
		{name: "sampler answers", model: &fakeModel{text: "hi from the model"}, want: "sampled: hi from the model", advertise: true},
		{name: "sampler fails", model: &fakeModel{err: errors.New("the client's model is busy")}, want: "the client's model is busy", advertise: true},
		{name: "no sampler", want: "sampling is not supported by this client", refused: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var caps atomic.Pointer[mcp.ClientCapabilities]
			hooks := &server.Hooks{}
			hooks.AddBeforeInitialize(func(_ context.Context, _ any, r *mcp.InitializeRequest) {
				c := r.Params.Capabilities
				caps.Store(&c)
			})
			srv := server.NewMCPServer("sampling", "1.0", server.WithToolCapabilities(false), server.WithHooks(hooks))
			srv.AddTool(mcp.NewTool("sample"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				//lint:ignore SA1019 a 2025-11-25 server asks for sampling with a request of its own
				res, err := srv.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: sampleParams})
				if err != nil {
					return mcp.NewToolResultText("refused: " + err.Error()), nil
				}
				return mcp.NewToolResultText("sampled: " + sampledText(res)), nil
			})
			hs := httptest.NewServer(server.NewStreamableHTTPServer(srv))
			t.Cleanup(hs.Close)
			host := &samplerHost{}
			if tc.model != nil {
				host.sampler = tc.model
			}
			s := newHostedRemote(t, hs.URL, host, map[string]any{"transport": "streamable-http", "protocolVersion": mcp.LATEST_LEGACY_PROTOCOL_VERSION})

			res, err := s.Call(markedCall(t), "sample", map[string]any{}, true)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if got := resultText(res); !strings.Contains(got, tc.want) {
				t.Errorf("the tool said %q, want %q", got, tc.want)
			}
			c := caps.Load()
			if c == nil {
				t.Fatal("the server saw no initialize")
			}
			if got := c.Sampling != nil; got != tc.advertise {
				t.Errorf("sampling advertised: %v, want %v", got, tc.advertise)
			}
			if c.Roots == nil {
				t.Error("the roots capability went missing")
			}
			if got := host.refused.Load(); got != tc.refused {
				t.Errorf("refusals told to the host: %d, want %d", got, tc.refused)
			}
			if m := tc.model; m != nil {
				m.mu.Lock()
				defer m.mu.Unlock()
				if len(m.asked) != 1 || m.asked[0] != "say hi" {
					t.Errorf("the sampler was asked %q, want [say hi]", m.asked)
				}
				if len(m.leaked) > 0 {
					t.Errorf("the sampler's context carried %v", m.leaked)
				}
			}
		})
	}
}

// TestInputRequiredSamplingThroughHostSampler: a 2026-07-28 server whose tool answers
// with an input_required result asking for sampling completes with the host sampler's
// answer, placed under the server's key, when the host has one; a failing sampler fails
// the call with its error; without a sampler the call fails with InputSampling, as it
// always did, and the host is told; the sampler gets the call's context. Before, every
// such call failed with InputSampling.
func TestInputRequiredSamplingThroughHostSampler(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		model   *fakeModel
		want    string               // the result's text
		kind    session.InputErrKind // or the call fails with this kind
		errText string               // saying this
		refused int32
	}{
		{name: "sampler answers", model: &fakeModel{text: "hi from the model"}, want: "sampled: hi from the model"},
		{name: "sampler fails", model: &fakeModel{err: errors.New("the client's model is busy")}, kind: session.InputSamplingFailed, errText: "the client's model is busy"},
		{name: "no sampler", kind: session.InputSampling, errText: "does not offer sampling", refused: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := server.NewMCPServer("sampling", "1.0", server.WithToolCapabilities(false))
			srv.AddTool(mcp.NewTool("sample"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if a := server.SamplingResponse(r.Params.InputResponses, "llm"); a != nil {
					return mcp.NewToolResultText("sampled: " + sampledText(a)), nil
				}
				return server.NewInputRequestBuilder("state").Sample("llm", sampleParams).ToolResult(), nil
			})
			host := &samplerHost{}
			if tc.model != nil {
				host.sampler = tc.model
			}
			home := t.TempDir()
			raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"m": map[string]any{"command": "in-process", "protocolVersion": mcp.LATEST_PROTOCOL_VERSION}}})
			if err := os.WriteFile(filepath.Join(home, "mcp.json"), raw, 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := config.Load(config.Options{ZotHome: home, ProjectDir: t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
			connect := func(ctx context.Context, _ *config.Server, h session.Handlers) (session.Session, error) {
				return session.OpenInProcess(ctx, srv, h)
			}
			s := New(&cfg.Servers[0], &Deps{Clock: clock.NewFake(), Log: zerolog.New(testutil.Log(t)), Connector: ConnectFunc(connect).For, Surface: zotSurface{}, Host: host})
			t.Cleanup(func() { s.Stop(context.Background()) })

			res, err := s.Call(markedCall(t), "sample", map[string]any{}, true)
			if tc.kind == 0 {
				if err != nil {
					t.Fatalf("call: %v", err)
				}
				if got := resultText(res); got != tc.want {
					t.Errorf("the tool said %q, want %q", got, tc.want)
				}
			} else {
				var in *session.InputError
				if !errors.As(err, &in) || in.Kind != tc.kind || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("got %v (%+v), want a %v input error saying %q", err, res, tc.kind, tc.errText)
				}
			}
			if p := s.Info().Protocol; p != mcp.LATEST_PROTOCOL_VERSION {
				t.Errorf("spoke %q, want the 2026-07-28 era", p)
			}
			if got := host.refused.Load(); got != tc.refused {
				t.Errorf("refusals told to the host: %d, want %d", got, tc.refused)
			}
			if m := tc.model; m != nil {
				m.mu.Lock()
				defer m.mu.Unlock()
				if len(m.asked) != 1 || m.asked[0] != "say hi" {
					t.Errorf("the sampler was asked %q, want [say hi]", m.asked)
				}
				// Inside a result the request is the call's: its context reaches the
				// sampler, as a question's does, so a front end finds the call.
				if !slices.Contains(m.leaked, "the call's value") {
					t.Errorf("the sampler's context lacked the call's value (carried %v)", m.leaked)
				}
			}
		})
	}
}

// newHostedRemote is a Server of host for the HTTP server at u, its entry's fields
// merged from extra, on the real clock (a sampling request is answered on mcp-go's
// goroutines); it is stopped when the test ends.
func newHostedRemote(t *testing.T, u string, host Host, extra map[string]any) *Server {
	t.Helper()
	home := t.TempDir()
	entry := map[string]any{"url": u}
	for k, v := range extra {
		entry[k] = v
	}
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"remote": entry}})
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Load(config.Options{ZotHome: home, ProjectDir: t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
	if len(cfg.Servers) != 1 {
		t.Fatalf("servers %+v (problems %v)", cfg.Servers, cfg.Problems)
	}
	log := zerolog.New(testutil.Log(t))
	clk := clock.System{}
	s := New(&cfg.Servers[0], wired(&Deps{Clock: clk, Log: log, Surface: zotSurface{}, Host: host},
		&remote.Deps{Log: log, Clock: clk, Cmd: zotSurface{}.Cmd, ClientName: "test"}))
	t.Cleanup(func() { s.Stop(context.Background()) })
	return s
}
