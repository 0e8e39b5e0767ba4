package lifecycle

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/remote"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/capserver"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestRemoteOversizeReplyWithIDInTheMiddleFailsAtOnce: an HTTP server's over-size reply
// that names its id only in its middle, on a stream where no request is there to fall
// back on (the legacy SSE stream, or a streamable-HTTP server's own GET stream), fails
// the call waiting for it at once with the cap's error and what to do, while
// requestTimeout (on the fake clock, never advanced) is far off; the call is not sent
// again though it is safe to repeat, and the next call reconnects and works.
// Before, the reply was dropped and the call waited for requestTimeout.
func TestRemoteOversizeReplyWithIDInTheMiddleFailsAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		srv       *capserver.Server
		transport string
		// over runs the call whose over-size reply cannot be matched and returns its error.
		over func(ctx context.Context, t *testing.T, s *Server, c *capserver.Server) error
	}{
		{name: "legacy SSE stream", srv: &capserver.Server{Mode: "legacy", IDMiddle: true}, transport: "sse",
			over: func(ctx context.Context, _ *testing.T, s *Server, _ *capserver.Server) error {
				_, err := s.Call(ctx, "big", map[string]any{"bytes": 3 << 20}, true)
				return err
			}},
		{name: "streamable-HTTP GET stream", srv: &capserver.Server{Mode: "json", Listen: true}, transport: "streamable-http",
			over: func(ctx context.Context, t *testing.T, s *Server, c *capserver.Server) error {
				calls := make(chan error, 1)
				go func() {
					_, err := s.Call(ctx, "hold", map[string]any{}, true)
					calls <- err
				}()
				select {
				case id := <-c.Held():
					if err := c.Push(ctx, capserver.ReplyIDMiddle, id, 3<<20); err != nil {
						t.Fatalf("push: %v", err)
					}
				case <-ctx.Done():
					t.Fatal("the call never reached the server")
				}
				select {
				case err := <-calls:
					return err
				case <-ctx.Done():
					t.Fatal("the waiting call never failed")
					return nil
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u, _ := tc.srv.Start(t)
			fake := clock.NewFake()
			start := fake.Now()
			s := newRemoteServer(t, u, tc.transport, fake, 1<<20)
			ctx, cancel := context.WithTimeout(context.Background(), testGuard)
			defer cancel()

			err := tc.over(ctx, t, s, tc.srv)
			if err == nil || !strings.Contains(err.Error(), "larger than the bridge accepts (1 MiB)") || !strings.Contains(err.Error(), session.MaxReplyEnv) ||
				!strings.Contains(err.Error(), "The next call reconnects") {
				t.Fatalf("over-size reply with its id in the middle: %v", err)
			}
			if !fake.Now().Equal(start) {
				t.Fatalf("the clock moved %v", fake.Now().Sub(start))
			}
			if _, err := s.Call(ctx, "small", map[string]any{}, true); err != nil {
				t.Fatalf("the next call: %v", err)
			}
		})
	}
}

// newRemoteServer is a Server for the HTTP server at u, configured from an mcp.json
// under a fresh ZOT_HOME with the given transport, on clk, its replies capped at maxReply
// (0: the default); it is stopped when the test ends.
func newRemoteServer(t *testing.T, u, transport string, clk clock.Clock, maxReply int) *Server {
	t.Helper()
	home := t.TempDir()
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"remote": map[string]any{"url": u, "transport": transport}}})
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Load(config.Options{ZotHome: home, ProjectDir: t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
	log := zerolog.New(testutil.Log(t))
	s := New(&cfg.Servers[0], wired(&Deps{Clock: clk, Log: log, Surface: zotSurface{}},
		&remote.Deps{Log: log, Clock: clk, Cmd: zotSurface{}.Cmd, ClientName: "test", MaxReply: maxReply}))
	t.Cleanup(func() { s.Stop(context.Background()) })
	return s
}
