package commands

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/remote"
)

// TestLoginChecksOnFakeHost: /mcp login and logout refuse what cannot log in before
// they touch the server's HTTP side, over Host alone (the flow itself is tested through
// the bridge, against an OAuth test server).
func TestLoginChecksOnFakeHost(t *testing.T) {
	t.Parallel()
	web := &fakeServer{cfg: &config.Server{Name: "web", Enabled: true, Transport: config.TransportStreamableHTTP, URL: "https://example.com/mcp", Raw: config.Raw{URL: "https://example.com/mcp?key=k"}}}
	proj := &fakeServer{cfg: stdio("proj"), pending: true}
	h := newFakeHost(&fakeServer{cfg: stdio("fs")}, proj, web)
	for _, tc := range []struct{ line, want string }{
		{"login", "usage: /mcp login <server>; servers: fs, proj, web"},
		{"logout fs web", "usage: /mcp logout <server>; servers: fs, proj, web"},
		{"login fz", `unknown server "fz". Did you mean "fs"? Servers: fs, proj, web`},
		{"login proj", "proj needs approval"},
		{"login fs", "auth: OAuth login requires an HTTP transport (streamable-http or sse); this server runs a command"},
		{"login web", "auth: OAuth login requires an HTTPS (or loopback HTTP) resource URL with a host (and no user info); https://example.com/mcp?… is not one"},
		{"logout fs", "auth: OAuth login requires an HTTP transport; there is nothing to log out of"},
		{"logout web", "auth: OAuth login requires an HTTP transport; there is nothing to log out of"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			out, err := Line(context.Background(), h, tc.line)
			if err == nil {
				t.Fatalf("no error; answer %q", out)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want %q", err, tc.want)
			}
		})
	}
}

// What /mcp login and logout need of the fakes: no OAuth store and no HTTP side.

func (h *fakeHost) BackgroundContext() context.Context { return context.Background() }
func (h *fakeHost) CommandContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}
func (h *fakeHost) OAuth() *remote.OAuth { return nil }

func (s *fakeServer) Remote() *remote.Server    { return nil }
func (s *fakeServer) Log() zerolog.Logger       { return zerolog.Nop() }
func (s *fakeServer) RemoteErr(err error) error { return err }
func (s *fakeServer) LoggedIn()                 { s.event("logged in") }

func (s *fakeServer) AuthError(format string, args ...any) error {
	return fmt.Errorf("auth: "+format, args...)
}

func (s *fakeServer) ConfigError(format string, args ...any) error {
	return fmt.Errorf("config: "+format, args...)
}
