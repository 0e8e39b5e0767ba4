package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/testkit/fakeoauth"
)

// TestChallengeScopes: the scope of a Bearer challenge, quoted or not, among other
// parameters and challenges; none when it is absent.
func TestChallengeScopes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		headers []string
		want    []string
	}{
		{"quoted", []string{`Bearer resource_metadata="http://x/.well-known/oauth-protected-resource", scope="mcp:basic mcp:write"`}, []string{"mcp:basic", "mcp:write"}},
		{"first param", []string{`Bearer scope="files:read"`}, []string{"files:read"}},
		{"token form", []string{`Bearer error=insufficient_scope, scope=admin`}, []string{"admin"}},
		{"escaped quote and comma inside", []string{`Bearer realm="a \"b\", c", scope="s1"`}, []string{"s1"}},
		{"case", []string{`Bearer SCOPE="up"`}, []string{"up"}},
		{"second challenge", []string{`Basic realm="x"`, `Bearer scope="two"`}, []string{"two"}},
		{"not a suffix match", []string{`Bearer xscope="no", resource_metadata="http://x/m"`}, nil},
		{"scope inside a quoted value", []string{`Bearer realm="scope=evil"`}, nil},
		{"none", []string{`Bearer resource_metadata="http://x/m"`}, nil},
		{"no header", nil, nil},
		{"unterminated", []string{`Bearer scope="abc`}, []string{"abc"}},
	}
	for _, tt := range tests {
		h := http.Header{}
		for _, v := range tt.headers {
			h.Add("WWW-Authenticate", v)
		}
		if got := challengeScopes(h); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestDiscoverResourceProbes: the 401 challenge is found whether the server refuses the
// GET or, like servers that do not serve GET on the MCP endpoint, only the POST; a legacy
// SSE server gets only the GET, and a server that refuses nothing gives no challenge.
func TestDiscoverResourceProbes(t *testing.T) {
	t.Parallel()
	const chal = `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp", scope="s"`
	tests := []struct {
		name      string
		transport config.Transport
		status    map[string]int // by method
		want      bool
		methods   string
	}{
		{"get refused", config.TransportStreamableHTTP, map[string]int{"GET": 401, "POST": 401}, true, "GET"},
		{"only post refused", config.TransportStreamableHTTP, map[string]int{"GET": 404, "POST": 401}, true, "GET POST"},
		{"get 405, post refused", config.TransportStreamableHTTP, map[string]int{"GET": 405, "POST": 401}, true, "GET POST"},
		{"nothing refused", config.TransportStreamableHTTP, map[string]int{"GET": 405, "POST": 400}, false, "GET POST"},
		{"sse: get only", config.TransportSSE, map[string]int{"GET": 404, "POST": 401}, false, "GET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var methods []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				methods = append(methods, r.Method)
				mu.Unlock()
				st := tt.status[r.Method]
				if st == http.StatusUnauthorized {
					w.Header().Set("WWW-Authenticate", chal)
				}
				w.WriteHeader(st)
			}))
			defer srv.Close()
			h, err := discoverResource(context.Background(), srv.Client(), &config.Server{URL: srv.URL + "/mcp", Transport: tt.transport})
			if err != nil {
				t.Fatal(err)
			}
			if got := h.Get("WWW-Authenticate") == chal; got != tt.want {
				t.Errorf("challenge found %v, want %v (headers %v)", got, tt.want, h)
			}
			mu.Lock()
			defer mu.Unlock()
			if got := strings.Join(methods, " "); got != tt.methods {
				t.Errorf("requests %q, want %q", got, tt.methods)
			}
		})
	}
}

// unauthorizedPlain is a 401 whose challenge names no protected-resource metadata.
var unauthorizedPlain = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("WWW-Authenticate", "Bearer")
	http.Error(w, "unauthorized", http.StatusUnauthorized)
})

// TestOAuthLoginDiscovery: the login finds the protected-resource metadata at the path
// well-known URL, or only at the root one (a server whose 401 names none), and sends the
// resource exactly as published; a 2025-03-26 server (no protected-resource metadata)
// has its authorization-server metadata read at its origin, and its endpoints used, or
// the default endpoints there; the credential file records the issuer, the resource and
// where the metadata was; a resource naming another server or metadata naming another
// issuer stops the login before anything is registered. Before, the root metadata and
// the 2025-03-26 origin metadata were never asked for.
func TestOAuthLoginDiscovery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(f *fakeoauth.Server, base string)
		// want* are the credential file's, with BASE for the fake's url.
		wantResource, wantPRM string
		wantIssuer            string // "": BASE
		wantVia               bool   // the authorization went to the metadata's /oauth/authorize
		wantErr               string // "": the login succeeds
	}{
		{name: "path well-known", wantResource: "BASE/mcp", wantPRM: "BASE/.well-known/oauth-protected-resource/mcp"},
		{name: "root well-known only", setup: func(f *fakeoauth.Server, base string) {
			f.Resource = base
			f.Routes["/mcp"] = unauthorizedPlain
			f.Routes["/.well-known/oauth-protected-resource/mcp"] = http.NotFoundHandler()
		}, wantResource: "BASE", wantPRM: "BASE/.well-known/oauth-protected-resource"},
		{name: "a web page at the path well-known URL, the metadata at the root", setup: func(f *fakeoauth.Server, base string) {
			f.Resource = base
			f.Routes["/mcp"] = unauthorizedPlain
			f.Routes["/.well-known/oauth-protected-resource/mcp"] = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte("<!doctype html><p>app</p>"))
			})
		}, wantResource: "BASE", wantPRM: "BASE/.well-known/oauth-protected-resource"},
		{name: "origin published as the resource of /mcp", setup: func(f *fakeoauth.Server, base string) { f.Resource = base },
			wantResource: "BASE", wantPRM: "BASE/.well-known/oauth-protected-resource/mcp"},
		{name: "2025-03-26: metadata at the origin", setup: func(f *fakeoauth.Server, base string) {
			f.Legacy = true
			f.AuthEndpoint = base + "/oauth/authorize"
		}, wantVia: true},
		{name: "2025-03-26: an issuer with a path on the server's origin", setup: func(f *fakeoauth.Server, base string) {
			f.Legacy = true
			f.Issuer = base + "/oauth"
		}, wantIssuer: "BASE/oauth"},
		{name: "2025-03-26: an issuer on another origin", setup: func(f *fakeoauth.Server, _ string) {
			f.Legacy = true
			f.Issuer = "https://attacker.example.com"
		}, wantErr: "names the issuer https://attacker.example.com, not BASE"},
		{name: "2025-03-26: default endpoints", setup: func(f *fakeoauth.Server, _ string) {
			f.Legacy = true
			f.Routes["/.well-known/oauth-authorization-server"] = http.NotFoundHandler()
		}},
		{name: "resource of another server", setup: func(f *fakeoauth.Server, _ string) { f.Resource = "https://evil.example.com/mcp" },
			wantErr: "is for the resource https://evil.example.com/mcp, not for this server's url"},
		{name: "resource on another port", setup: func(f *fakeoauth.Server, _ string) { f.Resource = "http://127.0.0.1:1/mcp" },
			wantErr: "is for the resource http://127.0.0.1:1/mcp"},
		{name: "issuer of another server", setup: func(f *fakeoauth.Server, _ string) { f.Issuer = "https://attacker.example.com" },
			wantErr: "names the issuer https://attacker.example.com, not BASE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.New(t, false)
			base := f.Srv.URL
			var via atomic.Int32
			f.Routes = map[string]http.Handler{"/oauth/authorize": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				via.Add(1)
				r2 := r.Clone(r.Context())
				r2.URL.Path = "/authorize"
				f.ServeHTTP(w, r2)
			})}
			if tt.setup != nil {
				tt.setup(f, base)
			}
			s := oauthServer(t, f, nil)
			err := runLogin(testCtx(t), s, http.DefaultClient)
			expand := func(v string) string { return strings.ReplaceAll(v, "BASE", base) }
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), expand(tt.wantErr)) {
					t.Fatalf("login: %v, want %q", err, expand(tt.wantErr))
				}
				if st := f.Snapshot(); len(st.Registered) != 0 || st.Authorizes != 0 {
					t.Errorf("the login went on: %d registrations, %d authorizations", len(st.Registered), st.Authorizes)
				}
				return
			}
			if err != nil {
				t.Fatalf("login: %v (the fake refused %q)", err, f.Snapshot().Refused)
			}
			c, err := readCreds(s.d.OAuth.credPath(s.cfg.URL))
			if err != nil || c == nil {
				t.Fatalf("credentials: %+v, %v", c, err)
			}
			wantIssuer := base
			if tt.wantIssuer != "" {
				wantIssuer = expand(tt.wantIssuer)
			}
			if c.Issuer != wantIssuer || c.Resource != expand(tt.wantResource) || c.ResourceMetadata != expand(tt.wantPRM) {
				t.Errorf("credentials: issuer %q resource %q metadata %q, want %q %q %q", c.Issuer, c.Resource, c.ResourceMetadata, wantIssuer, expand(tt.wantResource), expand(tt.wantPRM))
			}
			if got := via.Load() > 0; got != tt.wantVia {
				t.Errorf("authorization through the metadata's endpoint: %v, want %v", got, tt.wantVia)
			}
		})
	}
}

// TestOAuthLoginIss: the authorization answer's iss (RFC 9207) is checked against the
// metadata's issuer by plain string comparison: required when the metadata advertises
// it, refused when it differs (even by a final slash, even when not advertised); a
// refused answer's code is never exchanged and nothing is saved. Before, iss was not
// read at all.
func TestOAuthLoginIss(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		advertise bool
		iss       string // BASE: the fake's url
		wantErr   string
	}{
		{name: "advertised, the issuer", advertise: true, iss: "BASE"},
		{name: "not advertised, none"},
		{name: "not advertised, the issuer", iss: "BASE"},
		{name: "advertised, missing", advertise: true, wantErr: "this answer has no iss; it was refused"},
		{name: "advertised, another issuer", advertise: true, iss: "https://evil.example.com", wantErr: "names the issuer https://evil.example.com, not BASE"},
		{name: "not advertised, another issuer", iss: "https://evil.example.com", wantErr: "names the issuer https://evil.example.com, not BASE"},
		{name: "advertised, a final slash", advertise: true, iss: "BASE/", wantErr: "names the issuer BASE/, not BASE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.New(t, false)
			expand := func(v string) string { return strings.ReplaceAll(v, "BASE", f.Srv.URL) }
			f.AdvertiseIss, f.Iss = tt.advertise, expand(tt.iss)
			s := oauthServer(t, f, nil)
			err := runLogin(testCtx(t), s, http.DefaultClient)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("login: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), expand(tt.wantErr)) {
				t.Fatalf("login: %v, want %q", err, expand(tt.wantErr))
			}
			if g := f.Snapshot().Grants; len(g) != 0 {
				t.Errorf("the code was exchanged anyway (grants %q)", g)
			}
		})
	}
}

// TestResourceBinds: a published resource binds to the server's url when it is that url
// or a prefix of its path at a segment boundary, on the same scheme, host and port.
func TestResourceBinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		resource, base string
		want           bool
	}{
		{"https://h/mcp", "https://h/mcp", true},
		{"https://h/mcp/", "https://h/mcp", true},
		{"https://h", "https://h/mcp", true},
		{"https://H:443/", "https://h/mcp", true},
		{"https://h/a", "https://h/a/mcp", true},
		{"https://h/a", "https://h/ab", false},
		{"https://h/mcp/x", "https://h/mcp", false},
		{"http://h/mcp", "https://h/mcp", false},
		{"https://h:8443/mcp", "https://h/mcp", false},
		{"https://evil/mcp", "https://h/mcp", false},
		{"https://u@h/mcp", "https://h/mcp", false},
		{"https://h/mcp?x=1", "https://h/mcp", false},
		{"/mcp", "https://h/mcp", false},
	}
	for _, tt := range tests {
		if got := resourceBinds(tt.resource, tt.base); got != tt.want {
			t.Errorf("resourceBinds(%q, %q) = %v, want %v", tt.resource, tt.base, got, tt.want)
		}
	}
}

// TestReplayRefusesWhatDiscoveryDidNotRead: mcp-go's handler gets only the documents
// the bridge's discovery read; a GET for anything else fails, and other requests go on.
func TestReplayRefusesWhatDiscoveryDidNotRead(t *testing.T) {
	t.Parallel()
	d := &authDiscovery{replay: map[string]recordedAnswer{"https://h/doc": {status: 200, contentType: "application/json", body: []byte(`{"a":1}`)}}}
	var passed []string
	rt := &replayTransport{d: d, next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		passed = append(passed, r.Method+" "+r.URL.String())
		return &http.Response{StatusCode: 201, Body: http.NoBody, Request: r}, nil
	})}
	do := func(method, u string) (*http.Response, error) {
		req, _ := http.NewRequest(method, u, nil)
		return rt.RoundTrip(req)
	}
	if resp, err := do("GET", "https://h/doc"); err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("recorded: %v %v", resp, err)
	}
	var de *DiscoveryError
	if _, err := do("GET", "https://h/other"); !errors.As(err, &de) {
		t.Fatalf("not recorded: %v", err)
	}
	if resp, err := do("POST", "https://h/register"); err != nil || resp.StatusCode != 201 {
		t.Fatalf("POST: %v %v", resp, err)
	}
	if !reflect.DeepEqual(passed, []string{"POST https://h/register"}) {
		t.Errorf("passed on: %q", passed)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestOAuthRefreshKeyedByIssuer: a stored token is refreshed only while the server's
// metadata names the authorization server its login registered with; when it names
// another, the refresh token is not sent, the server needs a login and the file is left
// as it was. Before, only the token endpoint's origin was compared, and an authorization
// server that changed on the same origin got the other one's refresh token.
func TestOAuthRefreshKeyedByIssuer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		issuer  string // the stored issuer; BASE: the fake's
		wantErr string
	}{
		{name: "same issuer", issuer: "BASE"},
		{name: "not recorded", issuer: ""},
		{name: "another issuer", issuer: "BASE/tenant-old", wantErr: "names the authorization server BASE, not BASE/tenant-old"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.New(t, false)
			s := oauthServer(t, f, nil)
			store := seedRefresh(t, s, f)
			expand := func(v string) string { return strings.ReplaceAll(v, "BASE", f.Srv.URL) }
			c, err := readCreds(store.path)
			if err != nil {
				t.Fatal(err)
			}
			c.Issuer = expand(tt.issuer)
			if err := writeCreds(store.path, c); err != nil {
				t.Fatal(err)
			}
			before, err := os.ReadFile(store.path)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := store.GetToken(testCtx(t))
			if tt.wantErr == "" {
				if err != nil || tok == nil || tok.AccessToken == "" {
					t.Fatalf("refresh: %v", err)
				}
				return
			}
			if !errors.Is(err, transport.ErrNoToken) || !strings.Contains(err.Error(), expand(tt.wantErr)) {
				t.Fatalf("refresh: %v, want needs-login saying %q", err, expand(tt.wantErr))
			}
			if g := f.Snapshot().Grants; len(g) != 0 {
				t.Errorf("the refresh token was sent (grants %q)", g)
			}
			checkUnchanged(t, s, before)
		})
	}
}
