package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// The loopback callback accepts one GET to /callback with the right state and a code.
func TestOAuthCallbackServer(t *testing.T) {
	t.Parallel()
	get := func(t *testing.T, method, u string) (int, string, http.Header) {
		t.Helper()
		req, err := http.NewRequestWithContext(context.Background(), method, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode, strings.TrimSpace(string(body)), resp.Header
	}
	noResult := func(t *testing.T, cb *callbackServer) {
		t.Helper()
		select {
		case r := <-cb.result:
			t.Fatalf("unexpected callback result %+v", r)
		default:
		}
	}
	result := func(t *testing.T, cb *callbackServer) CallbackResult {
		t.Helper()
		select {
		case r := <-cb.result:
			return r
		case <-context.Background().Done():
			t.Fatal("no callback result")
		}
		return CallbackResult{}
	}

	cb, err := newCallbackServer("the-state")
	if err != nil {
		t.Fatal(err)
	}
	defer cb.close()
	anyIss := func(string, bool) error { return nil }
	cb.expectIssuer(anyIss)
	uri := cb.redirectURI()
	if !strings.HasPrefix(uri, "http://127.0.0.1:") || !strings.HasSuffix(uri, "/callback") {
		t.Fatalf("redirect uri %q", uri)
	}
	if cb.srv.ReadHeaderTimeout <= 0 || cb.srv.ReadHeaderTimeout > 10*time.Second {
		t.Errorf("header read timeout %s", cb.srv.ReadHeaderTimeout)
	}
	for _, tc := range []struct {
		name, method, url string
		status            int
		body              string
	}{
		{"wrong state", "GET", uri + "?state=other&code=c1", 400, "Invalid OAuth callback"},
		{"no state", "GET", uri + "?code=c1", 400, "Invalid OAuth callback"},
		{"POST", "POST", uri + "?state=the-state&code=c1", 405, "Method not allowed"},
		{"PUT", "PUT", uri + "?state=the-state&code=c1", 405, "Method not allowed"},
		{"other path", "GET", strings.TrimSuffix(uri, "/callback") + "/other?state=the-state&code=c1", 404, "Not found"},
	} {
		status, body, h := get(t, tc.method, tc.url)
		if status != tc.status || body != tc.body || h.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d %q (Cache-Control %q), want %d %q", tc.name, status, body, h.Get("Cache-Control"), tc.status, tc.body)
		}
		if tc.method != "GET" && h.Get("Allow") != "GET" {
			t.Errorf("%s: Allow %q", tc.name, h.Get("Allow"))
		}
	}
	noResult(t, cb)
	// The right state without a code ends the flow; later callbacks are refused.
	if status, body, _ := get(t, "GET", uri+"?state=the-state"); status != 400 || body != "Authorization declined or missing code" {
		t.Errorf("missing code: %d %q", status, body)
	}
	if r := result(t, cb); r.Err == nil || r.Code != "" || !strings.Contains(r.Err.Error(), "no code") {
		t.Errorf("missing code result %+v", r)
	}
	if status, body, _ := get(t, "GET", uri+"?state=the-state&code=c1"); status != 409 || body != "Callback already received" {
		t.Errorf("second callback: %d %q", status, body)
	}
	noResult(t, cb)

	// Declined.
	cb2, err := newCallbackServer("s2")
	if err != nil {
		t.Fatal(err)
	}
	defer cb2.close()
	cb2.expectIssuer(anyIss)
	if status, _, _ := get(t, "GET", cb2.redirectURI()+"?state=s2&error=access_denied&error_description=<script>"); status != 400 {
		t.Errorf("declined: %d", status)
	}
	if r := result(t, cb2); r.Err == nil || r.Err.Error() != "authorization declined (access_denied)" {
		t.Errorf("declined result %+v", r)
	}

	// Accepted.
	cb3, err := newCallbackServer("s3")
	if err != nil {
		t.Fatal(err)
	}
	defer cb3.close()
	cb3.expectIssuer(anyIss)
	if status, body, _ := get(t, "GET", cb3.redirectURI()+"?state=s3&code=the-code"); status != 200 || body != "Authorization received. Return to zot." {
		t.Errorf("accepted: %d %q", status, body)
	}
	if r := result(t, cb3); r.Err != nil || r.Code != "the-code" {
		t.Errorf("accepted result %+v", r)
	}
}

func TestOAuthBrowserOpener(t *testing.T) {
	t.Parallel()
	for goos, want := range map[string]string{
		"darwin":  "open https://as.example/authorize?x=1",
		"windows": "rundll32 url.dll,FileProtocolHandler https://as.example/authorize?x=1",
		"linux":   "xdg-open https://as.example/authorize?x=1",
		"freebsd": "xdg-open https://as.example/authorize?x=1",
	} {
		name, args := openerCommand(goos, "https://as.example/authorize?x=1")
		if got := strings.Join(append([]string{name}, args...), " "); got != want {
			t.Errorf("%s: %q, want %q", goos, got, want)
		}
	}
	var opened []string
	env := NewOAuth(t.TempDir(), OAuthHooks{Open: func(_ context.Context, u string) error { opened = append(opened, u); return nil }})
	for _, bad := range []string{
		"http://as.example/authorize", "https://user:pw@as.example/authorize", "https:///authorize",
		"javascript:alert(1)", "file:///etc/passwd", "https://as.example/a b", "-https://as.example/",
	} {
		if err := env.OpenBrowser(context.Background(), bad); err == nil {
			t.Errorf("opened %q", bad)
		}
	}
	if err := env.OpenBrowser(context.Background(), "https://as.example/authorize?x=1"); err != nil || len(opened) != 1 {
		t.Errorf("good url: %v, opened %v", err, opened)
	}
}

func TestBrowserCommands(t *testing.T) {
	t.Parallel()
	const u = "https://auth.example/authorize?x=1"
	for _, tc := range []struct {
		browser string
		want    [][]string
	}{
		{"", nil},
		{"firefox", [][]string{{"firefox", u}}},
		{"firefox --new-tab", [][]string{{"firefox", "--new-tab", u}}},
		{"open -a Safari %s --bg", [][]string{{"open", "-a", "Safari", u, "--bg"}}},
		{"w3m" + string(os.PathListSeparator) + "lynx", [][]string{{"w3m", u}, {"lynx", u}}},
		{" " + string(os.PathListSeparator) + "x", [][]string{{"x", u}}},
	} {
		got := browserCommands(tc.browser, u)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("browserCommands(%q) = %q, want %q", tc.browser, got, tc.want)
		}
	}
}

// A credential file that cannot be parsed gives mcp-go a generic error, never its
// contents (the bridge's side: TestOAuthCorruptCredentialFile).
func TestTokenStoreCorruptFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcp-oauth", "x.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"client_id": "x", "token": {"access_token": "SECRET-GARBAGE-7`), 0o600); err != nil {
		t.Fatal(err)
	}
	st := &tokenStore{path: path, clock: clock.NewFake()}
	if _, err := st.GetToken(context.Background()); !errors.Is(err, errBadCredFile) || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("GetToken: %v", err)
	}
}
