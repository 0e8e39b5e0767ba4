package bridge

import (
	"github.com/zot-mcp/mcp-bridge/session"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/testkit/fakeoauth"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// seedUnknownToken configures server "r" at a fake authorization server and stores a
// client and a token pair about to expire that the server does not know, so that its
// refresh is refused.
func seedUnknownToken(t *testing.T) (*fakeoauth.Server, *testEnv, string) {
	t.Helper()
	f := fakeoauth.New(t, false)
	e := newTestEnv(t)
	srvURL := f.Srv.URL + "/mcp"
	e.write(map[string]any{"r": map[string]any{"url": srvURL, "transport": "streamable-http"}}, nil)
	path := credFile(e.home, srvURL)
	seedCreds(t, e, path, "client-x", transport.Token{AccessToken: "at-unknown-1", RefreshToken: "rt-unknown-1", ExpiresIn: 60})
	return f, e, path
}

// TestOAuthRefusedRefreshUnwritableFile checks the spent-refresh-token guard when the
// credential file cannot be rewritten after the authorization server refused a refresh:
// the failure is reported (naming what to run, not the token), and the refused refresh
// token is not sent again although the file still holds it.
func TestOAuthRefusedRefreshUnwritableFile(t *testing.T) {
	t.Parallel()
	f, e, credPath := seedUnknownToken(t)
	seeded, err := os.ReadFile(credPath)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testutil.SyncBuffer{}
	b := e.bridgeWith(func(o *Options) { o.Log = zerolog.New(io.MultiWriter(logs, testutil.Log(t))) })
	e.clock.Advance(time.Hour)
	s := e.srv(b, "r")

	gate, started := f.GateRefresh()
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(ctxGuard(t), "echo", nil, true)
		errc <- err
	}()
	select {
	case <-started:
	case <-ctxGuard(t).Done():
		t.Fatal("no refresh arrived")
	}
	// While the refresh is at the authorization server, make the credential file
	// impossible to replace: a non-empty directory takes its place.
	if err := os.Remove(credPath); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(credPath, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if err := <-errc; kindOf(err) != session.KindAuth {
		t.Fatalf("refused refresh: %v (kind %d)", err, kindOf(err))
	}
	log := logs.String()
	if !strings.Contains(log, "could not be removed from the credential file") || !strings.Contains(log, "/mcp logout r then /mcp login r") {
		t.Fatalf("the failed write was not reported; log:\n%s", log)
	}
	hasNot(t, "log", log, "rt-unknown-1", "at-unknown-1")

	// As if the write had failed in place: the file still holds the spent token.
	if err := os.RemoveAll(credPath); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(credPath, seeded, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Call(ctxGuard(t), "echo", nil, true); kindOf(err) != session.KindAuth || !s.Status().NeedsLogin {
		t.Fatalf("call after the refused refresh: %v (kind %d)", err, kindOf(err))
	}
	if g := f.Snapshot().Grants; len(g) != 1 {
		t.Fatalf("grants %v: the refused refresh token was sent again", g)
	}
}
