package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/testkit/fakeoauth"
)

// hugeBytes is the size of the oversize answers: a few times maxAuthBody.
const hugeBytes = 4 << 20

// countingBase is an HTTP transport that counts the bytes its connections read.
func countingBase(n *atomic.Int64) *http.Transport {
	d := &net.Dialer{}
	return &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c, n: n}, nil
	}}
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	k, err := c.Conn.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// streamJSON answers with status and a JSON text that opens with prefix, runs on for
// hugeBytes inside a string and closes it: written as it goes, never held whole.
func streamJSON(status int, prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if _, err := io.WriteString(w, prefix); err != nil {
			return
		}
		chunk := bytes.Repeat([]byte("a"), 32<<10)
		for range hugeBytes / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the client stopped reading
			}
		}
		_, _ = io.WriteString(w, `"}`)
	})
}

// jsonAnswer answers with status and v.
func jsonAnswer(status int, v any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	})
}

// seedPrevious stores credentials as an earlier login would have, and returns the file's
// bytes.
func seedPrevious(t *testing.T, s *Server) []byte {
	t.Helper()
	path := s.d.OAuth.credPath(s.cfg.URL)
	if err := writeCreds(path, &oauthCreds{ClientID: "old-client", Token: &transport.Token{AccessToken: "old-token", TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func checkUnchanged(t *testing.T, s *Server, want []byte) {
	t.Helper()
	got, err := os.ReadFile(s.d.OAuth.credPath(s.cfg.URL))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("the previous credential file changed (%v): %d bytes, was %d", err, len(got), len(want))
	}
}

// TestOAuthAnswersAreBounded: an OAuth answer of a few MiB — protected-resource metadata,
// a registration, a token, or an error from either — fails the login's step with the
// error that names the bound, having read little more than the bound from the network,
// and the credentials stored before are left as they were. Before, each was read whole
// (mcp-go's io.ReadAll and json.Decoder), and a huge token was saved.
func TestOAuthAnswersAreBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, step string
		answer           func(base string) http.Handler
	}{
		{"protected-resource metadata", "/.well-known/oauth-protected-resource/mcp", "OAuth authorization server discovery failed", func(base string) http.Handler {
			return streamJSON(200, fmt.Sprintf(`{"resource": %q, "authorization_servers": [%q], "resource_name": "`, base+"/mcp", base))
		}},
		{"registration", "/register", "OAuth client registration failed", func(string) http.Handler {
			return streamJSON(201, `{"token_endpoint_auth_method": "none", "client_id": "`)
		}},
		{"registration error", "/register", "OAuth client registration failed", func(string) http.Handler {
			return streamJSON(400, `{"error": "invalid_client_metadata", "error_description": "`)
		}},
		{"token", "/token", "OAuth code exchange failed", func(string) http.Handler {
			return streamJSON(200, `{"token_type": "Bearer", "expires_in": 3600, "access_token": "`)
		}},
		{"token error", "/token", "OAuth code exchange failed", func(string) http.Handler {
			return streamJSON(400, `{"error": "invalid_grant", "error_description": "`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.New(t, false)
			f.Routes = map[string]http.Handler{tt.path: tt.answer(f.Srv.URL)}
			var read atomic.Int64
			s := oauthServer(t, f, countingBase(&read))
			before := seedPrevious(t, s)
			err := runLogin(testCtx(t), s, http.DefaultClient)
			if err == nil || !strings.Contains(err.Error(), tt.step) || !strings.Contains(err.Error(), "larger than 1 MiB") {
				t.Fatalf("login: %v, want %q for an answer over 1 MiB", err, tt.step)
			}
			if n := read.Load(); n > maxAuthBody+256<<10 {
				t.Errorf("read %d bytes from the network for a %d-byte answer", n, hugeBytes)
			}
			checkUnchanged(t, s, before)
		})
	}
}

// TestOAuthOversizeTokenIsNotSaved: a token answer within the answer bound but whose
// access or refresh token is over maxTokenBytes fails the code exchange, and the
// credentials stored before are left as they were; a login still replaces a credential
// file the bridge cannot read (too large, here). Before, such a token was saved, sent as
// a header on every request, and, with characters JSON escapes, made a file too large
// to read back.
func TestOAuthOversizeTokenIsNotSaved(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("t", 100<<10)
	tests := []struct {
		name    string
		token   map[string]any // the token endpoint's answer (nil: the fake's own)
		broken  bool           // a credential file the bridge cannot read is there before
		wantErr string         // "": the login succeeds
	}{
		{name: "access token", token: map[string]any{"access_token": big, "token_type": "Bearer"}, wantErr: "token (access_token) of 100 KiB, over the 64 KiB"},
		{name: "refresh token", token: map[string]any{"access_token": "at-1", "refresh_token": big, "token_type": "Bearer"}, wantErr: "token (refresh_token) of 100 KiB"},
		{name: "a broken file is replaced", broken: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.New(t, false)
			if tt.token != nil {
				f.Routes = map[string]http.Handler{"/token": jsonAnswer(200, tt.token)}
			}
			s := oauthServer(t, f, nil)
			path := s.d.OAuth.credPath(s.cfg.URL)
			var before []byte
			if tt.broken {
				before = bytes.Repeat([]byte(" "), maxCredBytes+1)
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, before, 0o600); err != nil {
					t.Fatal(err)
				}
				if _, err := readCreds(path); err == nil {
					t.Fatal("the broken file reads")
				}
			} else {
				before = seedPrevious(t, s)
			}
			err := runLogin(testCtx(t), s, http.DefaultClient)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("login: %v", err)
				}
				if c, err := readCreds(path); err != nil || c == nil || c.Token == nil || c.Token.AccessToken == "" || c.TokenEndpoint != f.Srv.URL+"/token" {
					t.Fatalf("after the login: %+v, %v", c, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "OAuth code exchange failed") || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("login: %v, want %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), big[:64]) {
				t.Error("the error shows the token")
			}
			checkUnchanged(t, s, before)
		})
	}
}

// TestOAuthRefreshOversizeTokenIsNotSaved: a refresh whose new token is over
// maxTokenBytes fails, and the credential file keeps what it had. Before, the token was
// saved.
func TestOAuthRefreshOversizeTokenIsNotSaved(t *testing.T) {
	t.Parallel()
	f := fakeoauth.New(t, false)
	f.Routes = map[string]http.Handler{"/token": jsonAnswer(200, map[string]any{"access_token": strings.Repeat("t", 100<<10), "token_type": "Bearer", "expires_in": 3600})}
	s := oauthServer(t, f, nil)
	store := seedRefresh(t, s, f)
	before, err := os.ReadFile(store.path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.GetToken(testCtx(t)); err == nil || !strings.Contains(err.Error(), "token (access_token) of 100 KiB") {
		t.Fatalf("refresh: %v", err)
	}
	checkUnchanged(t, s, before)
}

// TestWriteCredsNeverWritesWhatCannotBeRead: credentials whose file would be over the
// size readCreds accepts are refused, and the file keeps what it had. Before, they were
// written, and every use failed until the user logged out and in again.
func TestWriteCredsNeverWritesWhatCannotBeRead(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcp-oauth", "x.json")
	good := &oauthCreds{ClientID: "c", Token: &transport.Token{AccessToken: "at"}}
	if err := writeCreds(path, good); err != nil {
		t.Fatal(err)
	}
	// Within every token bound, but JSON escapes each '<' as six bytes.
	huge := &oauthCreds{ClientID: "c", ClientSecret: strings.Repeat("<", maxCredBytes/6+1), Token: &transport.Token{AccessToken: "at2"}}
	if err := writeCreds(path, huge); err == nil || !strings.Contains(err.Error(), "over the 1024 KiB the bridge reads back") {
		t.Fatalf("writeCreds: %v", err)
	}
	if c, err := readCreds(path); err != nil || c.Token.AccessToken != "at" {
		t.Fatalf("after the refused write: %+v, %v", c, err)
	}
}

// TestOAuthLoginBoundsScopesAndURL: a 401 asking for megabytes of scopes, or a
// registration whose client id makes the authorization URL too long for a browser, fails
// the login at once, saying which bound, before anything is registered or opened; scopes
// within the bound are requested as before. Before, the URL was built and handed to the
// browser (an argument too long to run it), and the login waited out its five minutes.
func TestOAuthLoginBoundsScopesAndURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		scopeLen int    // bytes of scope in the 401 (0: none)
		clientID int    // length of the registered client id (0: the fake's own)
		wantErr  string // "": the login succeeds
	}{
		{name: "huge scope", scopeLen: 1 << 20, wantErr: "asks for 1024 KiB of scopes"},
		{name: "scope within the bound", scopeLen: 3 << 10},
		{name: "huge client id", clientID: 20 << 10, wantErr: "the authorization URL would be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.New(t, false)
			routes := map[string]http.Handler{}
			if tt.scopeLen > 0 {
				// Distinct scopes: the login requests each scope once.
				var sb strings.Builder
				for i := 0; sb.Len() < tt.scopeLen-8; i++ {
					fmt.Fprintf(&sb, "s:%05d ", i)
				}
				scope := strings.TrimSpace(sb.String())
				routes["/mcp"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope="%s"`, f.Srv.URL, scope))
					http.Error(w, "unauthorized", http.StatusUnauthorized)
				})
			}
			if tt.clientID > 0 {
				routes["/register"] = jsonAnswer(201, map[string]any{"client_id": strings.Repeat("c", tt.clientID), "token_endpoint_auth_method": "none"})
			}
			f.Routes = routes
			s := oauthServer(t, f, nil)
			err := runLogin(testCtx(t), s, http.DefaultClient)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("login: %v", err)
				}
				if reg := f.Snapshot().Registered; len(reg) != 1 || len(reg[0]["scope"].(string)) < tt.scopeLen-16 {
					t.Errorf("registered %d clients, not with the scopes asked for", len(reg))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("login: %v, want %q", err, tt.wantErr)
			}
			if len(err.Error()) > 1000 {
				t.Errorf("the error is %d bytes long", len(err.Error()))
			}
			if st := f.Snapshot(); st.Authorizes != 0 || (tt.scopeLen > 0 && len(st.Registered) != 0) {
				t.Errorf("the login went on: %d registrations, %d authorizations", len(st.Registered), st.Authorizes)
			}
		})
	}
}
