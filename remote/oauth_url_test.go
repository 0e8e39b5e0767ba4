package remote

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestOAuthURLRule: the one URL rule of OAuth (endpoints, the login's browser URL, and
// elicitation URLs through CheckElicitURL): https with a host and no user info, or plain
// http only when the host is loopback (localhost, 127.0.0.0/8, ::1) — never a name that
// merely looks local, never user info, never another scheme.
func TestOAuthURLRule(t *testing.T) {
	t.Parallel()
	env := NewOAuth(t.TempDir(), OAuthHooks{})
	tests := []struct {
		url string
		ok  bool
	}{
		{"https://as.example/authorize?x=1", true},
		{"HTTPS://as.example/token", true},
		{"https://127.0.0.1:8443/token", true},
		{"http://localhost:3000/.well-known/oauth-authorization-server", true},
		{"http://LOCALHOST/authorize", true},
		{"http://127.0.0.1:4000/token", true},
		{"http://127.1.2.3/register", true},
		{"http://[::1]:9000/authorize", true},
		{"HTTP://127.0.0.1/token", true},
		{"http://[::ffff:127.0.0.1]/token", true},
		{"http://as.example/authorize", false},
		{"http://10.0.0.1/token", false},
		{"http://192.168.1.10/token", false},
		{"http://0.0.0.0/token", false},
		{"http://[::]/token", false},
		{"http://localhost.as.example/token", false},
		{"http://127.0.0.1.nip.io/token", false},
		{"http://localhost@as.example/token", false},
		{"http://user:pw@127.0.0.1/token", false},
		{"http://user@localhost/token", false},
		{"https://user:pw@as.example/authorize", false},
		{"https://user@as.example/authorize", false},
		{"https:///authorize", false},
		{"http:///authorize", false},
		{"http://[fe80::1%25lo]/token", false},
		{"ftp://127.0.0.1/token", false},
		{"ws://localhost/token", false},
		{"javascript:alert(1)", false},
		{"file:///etc/passwd", false},
		{"//as.example/authorize", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := env.SecureURL(tt.url); got != tt.ok {
			t.Errorf("secureString(%q) = %v, want %v", tt.url, got, tt.ok)
		}
		if err := env.checkBrowserURL(tt.url); (err == nil) != tt.ok {
			t.Errorf("checkBrowserURL(%q) = %v, want ok=%v", tt.url, err, tt.ok)
		}
		if err := env.CheckElicitURL(tt.url); (err == nil) != tt.ok {
			t.Errorf("checkElicitURL(%q) = %v, want ok=%v", tt.url, err, tt.ok)
		}
	}
}

// TestOAuthTransportRefusesNonLoopbackHTTP: the HTTP layer of OAuth requests applies the
// same rule, so a metadata document that points the token endpoint at plain http on
// another host cannot get a request sent there, while loopback http goes through.
func TestOAuthTransportRefusesNonLoopbackHTTP(t *testing.T) {
	t.Parallel()
	env := NewOAuth(t.TempDir(), OAuthHooks{})
	// Every request that gets past the rule is dialled; the dial is recorded and fails, so
	// nothing leaves the test.
	var sent []string
	base := &http.Transport{DialContext: func(_ context.Context, _, addr string) (net.Conn, error) {
		sent = append(sent, addr)
		return nil, errors.New("test: no network")
	}}
	ot := &oauthTransport{t: NewTransport(Options{Base: base}), env: env}
	for _, tt := range []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:4000/token", true},
		{"http://localhost:4000/.well-known/oauth-authorization-server", true},
		{"https://as.example/token", true},
		{"http://as.example/token", false},
		{"http://user:pw@127.0.0.1/token", false},
	} {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, tt.url, strings.NewReader("grant_type=x"))
		if err != nil {
			t.Fatal(err)
		}
		n := len(sent)
		resp, err := ot.RoundTrip(req)
		if resp != nil {
			_ = resp.Body.Close()
		}
		if tt.ok && len(sent) != n+1 {
			t.Errorf("%s: refused (%v), want it sent", tt.url, err)
		}
		if !tt.ok && (err == nil || len(sent) != n || !strings.Contains(err.Error(), "must use HTTPS")) {
			t.Errorf("%s: err %v, sent %d, want it refused before sending", tt.url, err, len(sent)-n)
		}
	}
}
