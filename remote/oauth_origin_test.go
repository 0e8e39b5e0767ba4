package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/testkit/fakeoauth"
)

// oauthServer is a Server for the fake's /mcp with OAuth under a fresh ZOT_HOME; its
// connections trust the fake's certificate when it has one, and go through base when it
// is set.
func oauthServer(t *testing.T, f *fakeoauth.Server, base *http.Transport) *Server {
	t.Helper()
	d := testDeps()
	d.OAuth = NewOAuth(t.TempDir(), OAuthHooks{})
	d.base = base
	if d.base == nil && strings.HasPrefix(f.Srv.URL, "https:") {
		d.base = f.Srv.Client().Transport.(*http.Transport).Clone()
	}
	u := f.Srv.URL + "/mcp"
	cfg := &config.Server{Name: "r", Source: "mcp.json", URL: u, Transport: config.TransportStreamableHTTP,
		Headers: map[string]string{"X-Api-Key": testAPIKey}, ConnectTimeout: 30 * time.Second, RequestTimeout: 30 * time.Second,
		Raw: config.Raw{URL: u, Headers: map[string]string{"X-Api-Key": "${API_KEY}"}}}
	return NewServer(cfg, d)
}

// runLogin runs a whole login of s the way the bridge does, the browser being browser
// (it follows the authorization URL to the callback). It returns the first step's error.
func runLogin(ctx context.Context, s *Server, browser *http.Client) error {
	l := s.NewLogin()
	defer l.Close()
	if err := l.Listen(); err != nil {
		return err
	}
	authURL, err := l.AuthorizationURL(ctx)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := browser.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	// A callback refused with 400 (declined, or not from the expected issuer) still
	// hands the login its result.
	if resp.StatusCode != http.StatusOK && (resp.StatusCode != http.StatusBadRequest || resp.Request.URL.Path != "/callback") {
		return fmt.Errorf("the browser got HTTP %d from %s", resp.StatusCode, resp.Request.URL.Path)
	}
	var res CallbackResult
	select {
	case res = <-l.Callback():
	case <-ctx.Done():
		return ctx.Err()
	}
	if res.Err != nil {
		return res.Err
	}
	creds, err := l.Exchange(ctx, res.Code)
	if err != nil {
		return err
	}
	return l.Save(ctx, creds)
}

// seedRefresh stores an expired token of a confidential client, whose credentials go by
// HTTP Basic, and returns s's token store wired to refresh it as the bridge's connection
// does.
func seedRefresh(t *testing.T, s *Server, f *fakeoauth.Server) *tokenStore {
	t.Helper()
	tok := f.SeedClient("client-1", "http://127.0.0.1:1/callback", 3600)
	creds := &oauthCreds{ClientID: "client-1", ClientSecret: "secret-0123456789", AuthMethod: "client_secret_basic",
		TokenEndpoint: f.Srv.URL + "/token", Token: &transport.Token{AccessToken: tok["access_token"].(string), RefreshToken: tok["refresh_token"].(string), TokenType: "Bearer",
			ExpiresIn: 60, ExpiresAt: s.d.Clock.Now().Add(-time.Minute)}}
	store := s.newTokenStore()
	if err := writeCreds(store.path, creds); err != nil {
		t.Fatal(err)
	}
	rt := s.newHeaderTransport(s.cfg.Transport, nil)
	t.Cleanup(rt.CloseIdleConnections)
	h := transport.NewOAuthHandler(s.oauthConfig(creds, rt, store))
	h.SetBaseURL(resourceBase(s.cfg.URL))
	store.handler = h
	return store
}

// TestOAuthTokenRequestRedirect: a token request (here a refresh by a confidential
// client, whose credentials go in Authorization and whose refresh token goes in the body)
// that the token endpoint redirects with 307 or 308 to another port is not sent there:
// the refresh fails saying it is refused for safety and naming where the redirect
// pointed, and the credential file is left as it was; a 303 there (a GET without the
// body) reaches it without the client credentials or any configured header; from https
// to http nothing is sent; a redirect within the token endpoint's origin still carries
// the credentials and the refresh works. Before, the body (the refresh token) was re-sent
// to the other origin, and Go's client kept Authorization for the same host name.
func TestOAuthTokenRequestRedirect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		tls, elTLS bool
		code       int // 0: 307
		sameOrigin bool
		wantErr    string
		wantOther  int
	}{
		{name: "another port", wantErr: "refused for safety"},
		{name: "another port, 308", code: http.StatusPermanentRedirect, wantErr: "refused for safety"},
		{name: "https, another port", tls: true, elTLS: true, wantErr: "refused for safety"},
		{name: "another port, 303", code: http.StatusSeeOther, wantErr: "status 404", wantOther: 1},
		{name: "https to http", tls: true, wantErr: "never follows https to plain http"},
		{name: "same origin", sameOrigin: true},
		{name: "https, same origin", tls: true, sameOrigin: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.New(t, tt.tls)
			other := newRecorder(t, tt.elTLS)
			code := tt.code
			if code == 0 {
				code = http.StatusTemporaryRedirect
			}
			if tt.sameOrigin {
				f.TokenEndpoint = f.Srv.URL + "/old/token"
				f.Routes = map[string]http.Handler{"/old/token": http.RedirectHandler(f.Srv.URL+"/token", code)}
			} else {
				f.Routes = map[string]http.Handler{"/token": http.RedirectHandler(other.srv.URL+"/token", code)}
			}
			s := oauthServer(t, f, nil)
			store := seedRefresh(t, s, f)
			before, err := os.ReadFile(store.path)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := store.GetToken(testCtx(t))
			switch {
			case tt.wantErr == "" && (err != nil || tok == nil || tok.AccessToken == ""):
				t.Fatalf("refresh: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("refresh: %v, want an error saying %q", err, tt.wantErr)
			case tt.wantErr == "refused for safety" && !strings.Contains(err.Error(), other.srv.URL+"/token"):
				t.Errorf("refresh: %v, want an error naming %s", err, other.srv.URL+"/token")
			}
			if err != nil && strings.Contains(err.Error(), "secret-0123456789") {
				t.Errorf("the error shows the client secret: %v", err)
			}
			if tt.wantErr != "" {
				checkUnchanged(t, s, before)
			}
			got := other.requests()
			if len(got) != tt.wantOther {
				t.Errorf("the other origin got %d requests, want %d", len(got), tt.wantOther)
			}
			checkNothingLeaked(t, got)
			for _, b := range other.received() {
				if b != "" {
					t.Errorf("the other origin got a body: %q", b)
				}
			}
			if auth := f.Snapshot().TokenAuth; tt.sameOrigin && !strings.HasPrefix(auth, "Basic ") {
				t.Errorf("the token endpoint got Authorization %q after a same-origin redirect, want the client's Basic credentials", auth)
			}
		})
	}
}

// TestOAuthLoginKeepsBodiesOnTheirOrigin: a 307 or 308 of the login's registration or
// code exchange to another origin is not followed: the other origin gets nothing (not the
// client metadata, not the code or the PKCE verifier), the login fails saying which step,
// that the redirect is refused for safety and where it pointed, and nothing is saved; a
// 307 to another path of the same origin still works. Before, the body was re-sent there.
func TestOAuthLoginKeepsBodiesOnTheirOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		path       string
		code       int
		sameOrigin bool
		wantErr    string // "": the login succeeds
	}{
		{name: "registration 307", path: "/register", code: http.StatusTemporaryRedirect, wantErr: "OAuth client registration failed"},
		{name: "registration 308", path: "/register", code: http.StatusPermanentRedirect, wantErr: "OAuth client registration failed"},
		{name: "code exchange 307", path: "/token", code: http.StatusTemporaryRedirect, wantErr: "OAuth code exchange failed"},
		{name: "code exchange 308", path: "/token", code: http.StatusPermanentRedirect, wantErr: "OAuth code exchange failed"},
		{name: "code exchange, same origin", path: "/token", code: http.StatusTemporaryRedirect, sameOrigin: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.New(t, false)
			other := newRecorder(t, false)
			target := other.srv.URL + tt.path
			if tt.sameOrigin {
				f.TokenEndpoint = f.Srv.URL + "/old" + tt.path
				f.Routes = map[string]http.Handler{"/old" + tt.path: http.RedirectHandler(f.Srv.URL+tt.path, tt.code)}
			} else {
				f.Routes = map[string]http.Handler{tt.path: http.RedirectHandler(target, tt.code)}
			}
			s := oauthServer(t, f, nil)
			err := runLogin(testCtx(t), s, f.Srv.Client())
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("login: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "refused for safety") || !strings.Contains(err.Error(), target) {
				t.Errorf("login: %v, want %q, refused for safety, naming %s", err, tt.wantErr, target)
			}
			if _, serr := os.Stat(s.d.OAuth.credPath(s.cfg.URL)); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("a failed login saved credentials (%v)", serr)
			}
			if got := other.received(); len(got) != 0 {
				t.Errorf("the other origin got %d requests: %q", len(got), got)
			}
		})
	}
}

// TestOAuthLoginRefusesDowngrade: over https, a redirect to plain http of any OAuth
// request of the login (protected-resource metadata, authorization-server metadata,
// registration, code exchange) is not followed: the http server gets nothing, and the
// login either fails saying why or, for the authorization-server metadata, which mcp-go
// falls back from, goes on with the default endpoints on the https origin. Nothing is
// saved by a login that failed. Before, each of these was sent in clear text.
func TestOAuthLoginRefusesDowngrade(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path    string
		wantErr string // "": the login succeeds anyway
	}{
		{"/.well-known/oauth-protected-resource/mcp", "OAuth authorization server discovery failed"},
		{"/.well-known/oauth-authorization-server", ""},
		{"/register", "OAuth client registration failed"},
		{"/token", "OAuth code exchange failed"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.New(t, true)
			other := newRecorder(t, false)
			f.Routes = map[string]http.Handler{tt.path: http.RedirectHandler(other.srv.URL+tt.path, http.StatusTemporaryRedirect)}
			s := oauthServer(t, f, nil)
			err := runLogin(testCtx(t), s, f.Srv.Client())
			if tt.wantErr == "" && err != nil {
				t.Fatalf("login: %v", err)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "never follows https to plain http") {
					t.Fatalf("login: %v, want %q because of the redirect to http", err, tt.wantErr)
				}
				if _, serr := os.Stat(s.d.OAuth.credPath(s.cfg.URL)); !errors.Is(serr, os.ErrNotExist) {
					t.Errorf("a failed login saved credentials (%v)", serr)
				}
			}
			if got := other.requests(); len(got) != 0 {
				t.Errorf("the plain-http origin got %d requests", len(got))
			}
		})
	}
}

// TestOAuthRefreshStaysWithItsTokenEndpoint: when the metadata found through the server
// names a token endpoint on another origin than the one the login used, the refresh token
// and the client's credentials are not sent there: the server needs a login, and the
// credential file is left as it was; another path on the same origin is fine. Before,
// the refresh went wherever the metadata said.
func TestOAuthRefreshStaysWithItsTokenEndpoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		elsewhere bool // the token endpoint moved to another origin
	}{
		{name: "another origin", elsewhere: true},
		{name: "another path, same origin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.New(t, false)
			other := newRecorder(t, false)
			if tt.elsewhere {
				f.TokenEndpoint = other.srv.URL + "/token"
			} else {
				f.TokenEndpoint = f.Srv.URL + "/v2/token"
				f.Routes = map[string]http.Handler{"/v2/token": http.RedirectHandler(f.Srv.URL+"/token", http.StatusTemporaryRedirect)}
			}
			s := oauthServer(t, f, nil)
			store := seedRefresh(t, s, f)
			before, err := os.ReadFile(store.path)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := store.GetToken(testCtx(t))
			if !tt.elsewhere {
				if err != nil || tok.AccessToken == "" {
					t.Fatalf("refresh: %v", err)
				}
				return
			}
			if !errors.Is(err, transport.ErrNoToken) || !strings.Contains(err.Error(), "the refresh token is not sent there") || !strings.Contains(err.Error(), other.srv.URL) {
				t.Fatalf("refresh: %v, want a refusal that means needs login", err)
			}
			if got := other.requests(); len(got) != 0 {
				t.Errorf("the other origin got %d requests", len(got))
			}
			if g := f.Snapshot().Grants; len(g) != 0 {
				t.Errorf("token requests %v", g)
			}
			checkUnchanged(t, s, before)
		})
	}
}
