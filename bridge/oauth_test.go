package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/zot-mcp/mcp-bridge/session"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/remote"
	"github.com/zot-mcp/mcp-bridge/testkit/fakeoauth"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// browserVisit is what the test's "browser" saw.
type browserVisit struct {
	url          string
	final        string
	status       int
	body         string
	cacheControl string
	err          error
}

// fakeBrowser is an opener that follows the authorization URL (and its redirect to our
// callback) like a browser whose user approves at once.
func fakeBrowser(visits chan<- browserVisit) func(ctx context.Context, u string) error {
	return func(ctx context.Context, u string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			visits <- browserVisit{url: u, err: err}
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			visits <- browserVisit{url: u, err: err}
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		visits <- browserVisit{url: u, final: resp.Request.URL.String(), status: resp.StatusCode, body: string(body),
			cacheControl: resp.Header.Get("Cache-Control")}
		return nil
	}
}

func credFile(home, serverURL string) string {
	sum := sha256.Sum256([]byte(serverURL))
	return filepath.Join(home, "mcp-oauth", hex.EncodeToString(sum[:])+".json")
}

// testCreds is the credential file as remote writes it.
type testCreds struct {
	ClientID     string           `json:"client_id"`
	ClientSecret string           `json:"client_secret,omitempty"`
	AuthMethod   string           `json:"token_endpoint_auth_method,omitempty"`
	Token        *transport.Token `json:"token,omitempty"`
}

// seedCreds stores a client and a token as an earlier login would have, its expiry
// computed on e's clock.
func seedCreds(t *testing.T, e *testEnv, path, clientID string, tok transport.Token) {
	t.Helper()
	if tok.ExpiresIn > 0 {
		tok.ExpiresAt = e.clock.Now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
	data, err := json.Marshal(testCreds{ClientID: clientID, Token: &tok})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readCredFile(t *testing.T, path string) testCreds {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c testCreds
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func recvVisit(t *testing.T, ch <-chan browserVisit) browserVisit {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctxGuard(t).Done():
		t.Fatal("the browser was never opened")
	}
	return browserVisit{}
}

// The whole flow against a local authorization server: needs login without any login
// attempt in the background, discovery, dynamic registration, PKCE code exchange, token
// storage with private permissions, a call with the token, refresh on expiry, logout.
func TestOAuthLoginFlow(t *testing.T) {
	t.Parallel()
	f := fakeoauth.New(t, false)
	f.FirstExpiresIn = 60 // short-lived: refreshed once the clock passes half of it
	e := newTestEnv(t)
	srvURL := f.Srv.URL + "/mcp"
	e.write(map[string]any{"secure": map[string]any{"url": srvURL, "transport": "streamable-http"}}, nil)
	logs := &testutil.SyncBuffer{}
	visits := make(chan browserVisit, 4)
	he := e.startHost(func(b *Bridge) {
		b.opts.Log = zerolog.New(logs)
		b.opts.OAuthHooks = remote.OAuthHooks{Open: fakeBrowser(visits)}
	})
	var texts []string // everything shown to the user or the model
	keep := func(s string) string { texts = append(texts, s); return s }
	srv := he.server("secure")

	// Background discovery meets the 401: needs login, and no login is attempted.
	n, err := he.h.WaitNotify(ctxGuard(t), "could not list tools of")
	if err != nil {
		t.Fatal(err)
	}
	keep(n.Message)
	has(t, "startup note", n.Message, "requires an OAuth login", "/mcp login secure")
	if !srv.Status().NeedsLogin {
		t.Fatal("a 401 with resource_metadata did not mark the server as needing login")
	}
	has(t, "dashboard", keep(he.ok("")), "needs login", "— run /mcp login secure", "login|logout <server>")
	has(t, "detail", keep(he.ok("secure")), "oauth:      needs login: run /mcp login secure", "next:       run /mcp login secure")
	if s := f.Snapshot(); len(s.Registered) != 0 || s.Authorizes != 0 || len(s.Grants) != 0 {
		t.Fatalf("background work started a login: %+v", s)
	}
	select {
	case v := <-visits:
		t.Fatalf("browser opened without /mcp login: %+v", v)
	default:
	}

	// Login: the command answers with the authorization URL; the browser follows it.
	out := keep(he.ok("login secure"))
	has(t, "login answer", out, `Log in to MCP server "secure"`, f.Srv.URL+"/authorize?", "code_challenge_method=S256", "a note reports the outcome")
	v := recvVisit(t, visits)
	if v.err != nil || v.status != http.StatusOK || v.body != "Authorization received. Return to zot.\n" || v.cacheControl != "no-store" {
		t.Fatalf("callback answered %+v", v)
	}
	if !strings.Contains(out, v.url) || !strings.HasPrefix(v.final, "http://127.0.0.1:") || !strings.Contains(v.final, "/callback?") {
		t.Errorf("opened %q (final %q); answer:\n%s", v.url, v.final, out)
	}
	n, err = he.h.WaitNotify(ctxGuard(t), `Logged in to MCP server "secure"`)
	if err != nil {
		t.Fatal(err)
	}
	keep(n.Message)
	if n.Level != "success" {
		t.Errorf("login note %q: %s", n.Level, n.Message)
	}
	has(t, "login note", n.Message, "Tools listed for secure", "/reload-ext")
	s := f.Snapshot()
	if len(s.Registered) != 1 || s.Registered[0]["client_name"] != lifecycle.ClientName || s.PkceOK != 1 || len(s.Refused) != 0 {
		t.Fatalf("fake server saw: registered %v, pkce ok %d, refused %v", s.Registered, s.PkceOK, s.Refused)
	}
	if strings.Join(s.Grants, ",") != "authorization_code" {
		t.Fatalf("grants %v", s.Grants)
	}
	if srv.Status().NeedsLogin {
		t.Error("still needs login after the login")
	}

	// Stored privately, keyed by the url.
	path := credFile(e.home, srvURL)
	if fi, err := os.Stat(path); err != nil {
		t.Fatal(err)
	} else if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("credential file mode %v, want 0600", fi.Mode().Perm())
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	} else if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("credential dir mode %v, want 0700", fi.Mode().Perm())
	}
	creds := readCredFile(t, path)
	first := creds.Token
	if creds.ClientID == "" || first == nil || first.AccessToken != s.Issued[len(s.Issued)-2] || first.RefreshToken == "" {
		t.Fatalf("stored credentials: client %q token %+v", creds.ClientID, first)
	}

	// A call with the token.
	if got := mustCall(t, srv, "echo", map[string]any{"text": "hi"}); got != "hi" {
		t.Fatalf("echo = %q", got)
	}
	if f.Snapshot().LastBearer != first.AccessToken {
		t.Error("the call did not carry the stored token")
	}
	has(t, "detail after login", keep(he.ok("secure")), "oauth:      logged in")

	// Expiry (on the bridge's clock): the next call refreshes first.
	e.clock.Advance(2 * time.Minute)
	if got := mustCall(t, srv, "echo", map[string]any{"text": "again"}); got != "again" {
		t.Fatalf("echo after expiry = %q", got)
	}
	s = f.Snapshot()
	if strings.Join(s.Grants, ",") != "authorization_code,refresh_token" || len(s.Refused) != 0 {
		t.Fatalf("grants %v, refused %v", s.Grants, s.Refused)
	}
	second := readCredFile(t, path).Token
	if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken || s.LastBearer != second.AccessToken {
		t.Fatal("the refreshed token was not stored and used")
	}

	// Logout removes the file; the next call needs login again.
	has(t, "logout", keep(he.ok("logout secure")), "Logged out of secure")
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("credential file still there: %v", err)
	}
	_, err = srv.Call(ctxGuard(t), "echo", map[string]any{"text": "x"}, true)
	if kindOf(err) != session.KindAuth || !strings.Contains(err.Error(), "/mcp login secure") || !srv.Status().NeedsLogin {
		t.Fatalf("call after logout: %v (kind %d, needs login %v)", err, kindOf(err), srv.Status().NeedsLogin)
	}
	keep(err.Error())
	has(t, "dashboard after logout", keep(he.ok("")), "needs login")
	has(t, "second logout", keep(he.ok("logout secure")), "No stored OAuth credentials for secure")

	// No secret anywhere: texts, notes, logs, the tool cache.
	for _, fr := range he.h.Pending() {
		texts = append(texts, string(fr.Raw))
	}
	texts = append(texts, logs.String())
	if data, err := os.ReadFile(he.b.opts.CachePath); err == nil {
		texts = append(texts, string(data))
	}
	for _, secret := range f.Snapshot().Issued {
		for _, text := range texts {
			if strings.Contains(text, secret) {
				t.Errorf("secret %q leaked into: %s", secret, textcut.Truncate(text, 400))
			}
		}
	}
}

// Insecure URLs are refused before anything listens for a callback or opens a browser.
// Plain http is insecure unless the host is loopback (the fake server's own URL is, and
// is allowed: see TestOAuthLogin).
func TestOAuthLoginRejectsInsecure(t *testing.T) {
	t.Parallel()
	t.Run("http resource url", func(t *testing.T) {
		f := fakeoauth.New(t, false)
		e := newTestEnv(t)
		e.write(map[string]any{
			"plain": map[string]any{"url": "http://mcp.example.invalid/mcp", "transport": "streamable-http"},
			"local": e.server(),
		}, nil)
		opened := 0
		he := e.startHost(func(b *Bridge) {
			b.opts.OAuthHooks = remote.OAuthHooks{Open: func(context.Context, string) error { opened++; return nil }}
		})
		has(t, "login plain", he.fail("login plain").Error, "OAuth login requires an HTTPS (or loopback HTTP) resource URL", "http://mcp.example.invalid/mcp")
		has(t, "login local", he.fail("login local").Error, "OAuth login requires an HTTP transport")
		has(t, "login", he.fail("login").Error, "usage: /mcp login <server>")
		has(t, "login nope", he.fail("login nope").Error, `unknown server "nope"`)
		if s := f.Snapshot(); len(s.Registered) != 0 || s.Authorizes != 0 || opened != 0 {
			t.Fatalf("an insecure login went ahead: %+v, opened %d", s, opened)
		}
	})
	t.Run("http authorization endpoint", func(t *testing.T) {
		f := fakeoauth.New(t, false)
		f.AuthEndpoint = "http://auth.example.invalid/authorize"
		e := newTestEnv(t)
		e.write(map[string]any{"secure": map[string]any{"url": f.Srv.URL + "/mcp"}}, nil)
		opened := 0
		he := e.startHost(func(b *Bridge) {
			b.opts.OAuthHooks = remote.OAuthHooks{Open: func(context.Context, string) error { opened++; return nil }}
		})
		has(t, "login", he.fail("login secure").Error, "OAuth authorization endpoint must use HTTPS")
		if s := f.Snapshot(); len(s.Registered) != 0 || s.Authorizes != 0 || opened != 0 {
			t.Fatalf("login went ahead with an http authorization endpoint: %+v, opened %d", s, opened)
		}
	})
}

// A credential file that cannot be parsed gives a generic error, never its contents.
func TestOAuthCorruptCredentialFile(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	const u = "https://mcp.example.invalid/mcp"
	e.write(map[string]any{"r": map[string]any{"url": u}}, nil)
	path := credFile(e.home, u)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"client_id": "x", "token": {"access_token": "SECRET-GARBAGE-7`), 0o600); err != nil {
		t.Fatal(err)
	}
	b := e.bridge(extension.GenNew)
	s := e.srv(b, "r")
	_, err := s.Call(ctxGuard(t), "echo", nil, true)
	if kindOf(err) != session.KindAuth || !strings.Contains(err.Error(), "invalid OAuth credential file") || strings.Contains(err.Error(), "SECRET-GARBAGE") {
		t.Fatalf("call with a corrupt credential file: %v", err)
	}
	detail, _ := b.Command(ctxGuard(t), "r")
	has(t, "detail", detail, "oauth:      invalid OAuth credential file")
	hasNot(t, "detail", detail, "SECRET-GARBAGE")
	status, _ := b.Command(ctxGuard(t), "")
	hasNot(t, "status", status, "SECRET-GARBAGE")
	// The store says the same to mcp-go: TestTokenStoreCorruptFile (remote).
	// Logout clears it.
	if out, err := b.Command(ctxGuard(t), "logout r"); err != nil || !strings.Contains(out, "Logged out of r") {
		t.Fatalf("logout: %q %v", out, err)
	}
}

// Two sessions (here: two servers with the same url, so two stores on one file) whose
// token expired at once refresh it once: the second waits for the lock and finds the new
// token. The fake rotates refresh tokens, so a second refresh would be refused.
func TestOAuthConcurrentRefreshRefreshesOnce(t *testing.T) {
	t.Parallel()
	f := fakeoauth.New(t, false)
	e := newTestEnv(t)
	srvURL := f.Srv.URL + "/mcp"
	e.write(map[string]any{
		"a": map[string]any{"url": srvURL, "transport": "streamable-http"},
		"b": map[string]any{"url": srvURL, "transport": "streamable-http"},
	}, nil)
	// A client and a token from an earlier login, about to expire.
	tok := f.SeedClient("client-seeded", "http://127.0.0.1:1/callback", 60)
	seedCreds(t, e, credFile(e.home, srvURL), "client-seeded", transport.Token{
		AccessToken: tok["access_token"].(string), RefreshToken: tok["refresh_token"].(string), TokenType: "Bearer", ExpiresIn: 60})
	b := e.bridge(extension.GenNew)
	e.clock.Advance(time.Hour)

	gate, started := f.GateRefresh()
	errs := make(chan error, 2)
	for _, name := range []string{"a", "b"} {
		s := e.srv(b, name)
		go func() {
			_, err := s.Call(ctxGuard(t), "echo", map[string]any{"text": name}, true)
			errs <- err
		}()
	}
	select {
	case <-started: // one refresh is at the authorization server, holding the lock
	case <-ctxGuard(t).Done():
		t.Fatal("no refresh arrived")
	}
	close(gate)
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	s := f.Snapshot()
	if strings.Join(s.Grants, ",") != "refresh_token" || len(s.Refused) != 0 {
		t.Fatalf("grants %v, refused %v", s.Grants, s.Refused)
	}
}

// A refresh the authorization server refuses means "needs login", not a retry loop.
func TestOAuthRefusedRefreshNeedsLogin(t *testing.T) {
	t.Parallel()
	f, e, credPath := seedUnknownToken(t)
	b := e.bridge(extension.GenNew)
	e.clock.Advance(time.Hour)
	s := e.srv(b, "r")
	_, err := s.Call(ctxGuard(t), "echo", nil, true)
	if kindOf(err) != session.KindAuth || !strings.Contains(err.Error(), "/mcp login r") || !s.Status().NeedsLogin {
		t.Fatalf("refused refresh: %v", err)
	}
	hasNot(t, "error", err.Error(), "rt-unknown-1", "at-unknown-1")
	c := readCredFile(t, credPath)
	if c.ClientID != "client-x" || c.Token != nil {
		t.Errorf("after a refused refresh the file holds %+v", c)
	}
	if g := f.Snapshot().Grants; len(g) != 1 {
		t.Errorf("grants %v", g)
	}
}
