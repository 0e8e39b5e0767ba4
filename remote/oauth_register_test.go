package remote

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/fakeoauth"
)

// TestOAuthRegistrationIsNative: the dynamic registration says the bridge is a native
// application (SEP-837: its redirect is a loopback URL) and asks for refresh tokens
// (SEP-2207). mcp-go's RegisterClient sent no application_type.
func TestOAuthRegistrationIsNative(t *testing.T) {
	t.Parallel()
	f := fakeoauth.New(t, false)
	s := oauthServer(t, f, nil)
	if err := runLogin(testCtx(t), s, http.DefaultClient); err != nil {
		t.Fatalf("login: %v", err)
	}
	reg := f.Snapshot().Registered
	if len(reg) != 1 {
		t.Fatalf("%d registrations", len(reg))
	}
	if reg[0]["application_type"] != "native" {
		t.Errorf("application_type = %v, want native", reg[0]["application_type"])
	}
	if gt, _ := reg[0]["grant_types"].([]any); !slices.Contains(gt, any("refresh_token")) {
		t.Errorf("grant_types = %v, want refresh_token among them", reg[0]["grant_types"])
	}
	c, err := s.storedCreds()
	if err != nil || c == nil || c.Registration != regDynamic {
		t.Fatalf("stored %+v (%v), want a dynamic registration recorded", c, err)
	}
}

// TestOAuthLoginScopeSelection: a login requests the scopes of the 401's challenge, else
// all of the protected-resource metadata's scopes_supported, else none; plus what the
// previous login requested and what a 403 insufficient_scope asked for since (the union);
// plus offline_access only when the authorization server lists it.
func TestOAuthLoginScopeSelection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		challenge string   // scope of the 401 ("": none)
		prm       []string // PRM scopes_supported
		as        []string // AS scopes_supported
		earlier   *oauthCreds
		want      string // the registration's scope ("": none sent)
	}{
		{name: "challenge wins", challenge: "mcp:basic", prm: []string{"mcp:profile"}, want: "mcp:basic"},
		{name: "scopes_supported", prm: []string{"mcp:basic", "mcp:read", "mcp:write"}, want: "mcp:basic mcp:read mcp:write"},
		{name: "none", want: ""},
		{name: "offline_access when listed", prm: []string{"mcp:basic"}, as: []string{"mcp:basic", "offline_access"}, want: "mcp:basic offline_access"},
		{name: "no offline_access when not listed", prm: []string{"mcp:basic", "mcp:read"}, as: []string{"mcp:basic", "mcp:read"}, want: "mcp:basic mcp:read"},
		{name: "union on step-up", challenge: "mcp:basic", earlier: &oauthCreds{ClientID: "old", Scopes: []string{"mcp:basic", "mcp:extra"}, StepUpScopes: []string{"mcp:write"}},
			want: "mcp:basic mcp:extra mcp:write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.New(t, false)
			base := f.Srv.URL
			routes := map[string]http.Handler{}
			routes["/mcp"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				chal := fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, base)
				if tt.challenge != "" {
					chal += fmt.Sprintf(`, scope="%s"`, tt.challenge)
				}
				w.Header().Set("WWW-Authenticate", chal)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
			})
			prm := map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}}
			if tt.prm != nil {
				prm["scopes_supported"] = tt.prm
			}
			routes["/.well-known/oauth-protected-resource/mcp"] = jsonAnswer(200, prm)
			md := map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
				"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
				"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"}}
			if tt.as != nil {
				md["scopes_supported"] = tt.as
			}
			routes["/.well-known/oauth-authorization-server"] = jsonAnswer(200, md)
			f.Routes = routes
			s := oauthServer(t, f, nil)
			if tt.earlier != nil {
				if err := writeCreds(s.d.OAuth.credPath(s.cfg.URL), tt.earlier); err != nil {
					t.Fatal(err)
				}
			}
			l := s.NewLogin()
			defer l.Close()
			if err := l.Listen(); err != nil {
				t.Fatal(err)
			}
			authURL, err := l.AuthorizationURL(testCtx(t))
			if err != nil {
				t.Fatalf("login: %v", err)
			}
			reg := f.Snapshot().Registered
			if len(reg) != 1 {
				t.Fatalf("%d registrations", len(reg))
			}
			got, _ := reg[0]["scope"].(string)
			if got != tt.want {
				t.Errorf("registered scope %q, want %q", got, tt.want)
			}
			hasScope := strings.Contains(authURL, "scope=")
			if hasScope != (tt.want != "") {
				t.Errorf("authorization URL %s: scope parameter present %v, want %v", authURL, hasScope, tt.want != "")
			}
		})
	}
}

// TestOAuthChooseClient: a configured client first, then a client ID metadata document
// where the authorization server accepts one (the entry's URL, else the default; "" turns
// it off), then dynamic registration; none of them is an error that says what to set.
func TestOAuthChooseClient(t *testing.T) {
	t.Parallel()
	const cimdURL = "https://example.com/zot/client.json"
	tests := []struct {
		name       string
		oauth      *config.OAuth
		cimd       bool
		noDCR      bool
		methods    []string
		wantID     string
		wantHow    string
		wantMethod string
		wantErr    string
	}{
		{name: "pre-registered with secret", oauth: &config.OAuth{ClientID: "pre", ClientSecret: "s3cret"}, cimd: true, methods: []string{"client_secret_basic"},
			wantID: "pre", wantHow: regPreRegistered, wantMethod: "client_secret_basic"},
		{name: "pre-registered post only", oauth: &config.OAuth{ClientID: "pre", ClientSecret: "s3cret"}, methods: []string{"client_secret_post"},
			wantID: "pre", wantHow: regPreRegistered, wantMethod: "client_secret_post"},
		{name: "pre-registered method configured", oauth: &config.OAuth{ClientID: "pre", ClientSecret: "s", TokenEndpointAuthMethod: "client_secret_post"},
			wantID: "pre", wantHow: regPreRegistered, wantMethod: "client_secret_post"},
		{name: "pre-registered public", oauth: &config.OAuth{ClientID: "pre"}, wantID: "pre", wantHow: regPreRegistered, wantMethod: "none"},
		{name: "cimd default", cimd: true, wantID: DefaultClientMetadataURL, wantHow: regMetadataDoc, wantMethod: "none"},
		{name: "cimd configured", oauth: &config.OAuth{ClientMetadataURL: cimdURL, ClientMetadataURLSet: true}, cimd: true, wantID: cimdURL, wantHow: regMetadataDoc, wantMethod: "none"},
		{name: "cimd turned off", oauth: &config.OAuth{ClientMetadataURLSet: true}, cimd: true, wantHow: regDynamic, wantMethod: "none"},
		{name: "cimd not supported", wantHow: regDynamic, wantMethod: "none"},
		{name: "dynamic basic", methods: []string{"client_secret_basic"}, wantHow: regDynamic, wantMethod: "client_secret_basic"},
		{name: "dynamic post", methods: []string{"client_secret_post"}, wantHow: regDynamic, wantMethod: "client_secret_post"},
		{name: "nothing", noDCR: true, wantErr: `set "oauth": {"clientId"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got map[string]any
			reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_ = json.NewDecoder(r.Body).Decode(&got)
				ans := map[string]any{"client_id": "dyn", "token_endpoint_auth_method": got["token_endpoint_auth_method"]}
				if got["token_endpoint_auth_method"] != "none" {
					ans["client_secret"] = "dyn-secret"
				}
				w.WriteHeader(201)
				_ = json.NewEncoder(w).Encode(ans)
			}))
			t.Cleanup(reg.Close)
			md := &transport.AuthServerMetadata{Issuer: reg.URL, TokenEndpoint: reg.URL + "/token", RegistrationEndpoint: reg.URL + "/register",
				TokenEndpointAuthMethodsSupported: tt.methods}
			if tt.noDCR {
				md.RegistrationEndpoint = ""
			}
			s := NewServer(&config.Server{Name: "r", Source: "mcp.json", URL: reg.URL + "/mcp", OAuth: tt.oauth}, testDeps())
			c, err := s.chooseClient(testCtx(t), reg.Client(), loginMetadata{md: md, cimd: tt.cimd}, "http://127.0.0.1:1/callback", nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantHow == regDynamic {
				tt.wantID = "dyn"
				if got["token_endpoint_auth_method"] != tt.wantMethod {
					t.Errorf("registration asked for %v, want %s", got["token_endpoint_auth_method"], tt.wantMethod)
				}
			}
			if c.id != tt.wantID || c.how != tt.wantHow || c.method != tt.wantMethod {
				t.Errorf("client %q %s %s, want %q %s %s", c.id, c.how, c.method, tt.wantID, tt.wantHow, tt.wantMethod)
			}
		})
	}
}

// TestInsufficientScopeIsStepUp: a 403 whose Bearer challenge says insufficient_scope
// marks an OAuth server "needs login" with the scopes it asked for, which are recorded
// for the next login; without an OAuth login it stays a plain refusal.
func TestInsufficientScopeIsStepUp(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="https://x/.well-known/oauth-protected-resource"`)
	scopes, ok := insufficientScope(h)
	if !ok || !slices.Equal(scopes, []string{"mcp:write"}) {
		t.Fatalf("insufficientScope = %v %v", scopes, ok)
	}
	p := ProbeInfo{Status: http.StatusForbidden, InsufficientScope: true, ChallengedScopes: scopes}
	f := Classify(config.TransportStreamableHTTP, p, fmt.Errorf("forbidden"), Where{LoginCmd: "/mcp login r", OAuth: true})
	if f.Kind != session.KindAuth || !f.NeedsLogin || !slices.Equal(f.StepUp, scopes) || !strings.Contains(f.Msg, "/mcp login r") || !strings.Contains(f.Msg, "mcp:write") {
		t.Errorf("with a login: %+v", f)
	}
	f = Classify(config.TransportStreamableHTTP, p, fmt.Errorf("forbidden"), Where{LoginCmd: "/mcp login r", AuthHint: "hint"})
	if f.NeedsLogin || f.StepUp != nil {
		t.Errorf("without a login: %+v", f)
	}

	s := oauthServer(t, fakeoauth.New(t, false), nil)
	path := s.d.OAuth.credPath(s.cfg.URL)
	if err := writeCreds(path, &oauthCreds{ClientID: "c", Scopes: []string{"mcp:basic"}, Token: &transport.Token{AccessToken: "a"}}); err != nil {
		t.Fatal(err)
	}
	s.noteStepUp([]string{"mcp:write"})
	s.noteStepUp([]string{"mcp:write", "mcp:admin"})
	c, err := readCreds(path)
	if err != nil || !slices.Equal(c.StepUpScopes, []string{"mcp:write", "mcp:admin"}) {
		t.Fatalf("recorded %v (%v)", c, err)
	}
}

// TestClientCredentialsToken: the client-credentials grant authenticates as the entry
// says (HTTP Basic, the body, or a private_key_jwt assertion for the issuer, signed
// ES256), and sends the scope and resource.
func TestClientCredentialsToken(t *testing.T) {
	t.Parallel()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	tests := []struct {
		name   string
		oauth  *config.OAuth
		method string
	}{
		{name: "basic", oauth: &config.OAuth{ClientID: "m2m", ClientSecret: "s3cret", GrantType: config.GrantClientCredentials}, method: "client_secret_basic"},
		{name: "post", oauth: &config.OAuth{ClientID: "m2m", ClientSecret: "s3cret", GrantType: config.GrantClientCredentials}, method: "client_secret_post"},
		{name: "jwt", oauth: &config.OAuth{ClientID: "m2m", PrivateKey: pemKey, GrantType: config.GrantClientCredentials}, method: "private_key_jwt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var issuer string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_ = r.ParseForm()
				fail := func(why string) { t.Error(why); http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized) }
				if r.Form.Get("grant_type") != "client_credentials" || r.Form.Get("scope") != "mcp:a" || r.Form.Get("resource") != "https://r/mcp" {
					fail("form " + r.Form.Encode())
					return
				}
				switch tt.method {
				case "client_secret_basic":
					if u, p, ok := r.BasicAuth(); !ok || u != "m2m" || p != "s3cret" || r.Form.Has("client_secret") {
						fail("basic auth")
						return
					}
				case "client_secret_post":
					if _, _, ok := r.BasicAuth(); ok || r.Form.Get("client_id") != "m2m" || r.Form.Get("client_secret") != "s3cret" {
						fail("post auth")
						return
					}
				case "private_key_jwt":
					if r.Form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
						fail("assertion type")
						return
					}
					if why := checkAssertion(r.Form.Get("client_assertion"), &key.PublicKey, issuer); why != "" {
						fail(why)
						return
					}
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"access_token":"cc-token","token_type":"Bearer","expires_in":60}`))
			}))
			t.Cleanup(srv.Close)
			issuer = srv.URL
			s := NewServer(&config.Server{Name: "r", Source: "mcp.json", URL: srv.URL + "/mcp", OAuth: tt.oauth}, testDeps())
			c := &oauthCreds{ClientID: "m2m", AuthMethod: tt.method, TokenEndpoint: srv.URL + "/token", Issuer: issuer, Resource: "https://r/mcp", Scopes: []string{"mcp:a"}}
			tok, err := s.clientCredentialsToken(testCtx(t), srv.Client(), c)
			if err != nil || tok.AccessToken != "cc-token" {
				t.Fatalf("token %+v: %v", tok, err)
			}
		})
	}
}

// checkAssertion verifies an ES256 client assertion and its claims ("" when it is good).
func checkAssertion(jwt string, pub *ecdsa.PublicKey, aud string) string {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return "not a JWS"
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return "bad signature encoding"
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return "signature does not verify"
	}
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var cl struct {
		Iss, Sub, Aud, Jti string
		Exp, Iat           int64
	}
	if json.Unmarshal(raw, &cl) != nil || cl.Iss != "m2m" || cl.Sub != "m2m" || cl.Aud != aud || cl.Jti == "" || cl.Exp <= cl.Iat {
		return "claims " + string(raw)
	}
	if time.Unix(cl.Exp, 0).Before(time.Now()) {
		return "expired"
	}
	return ""
}

// TestDefaultClientMetadataDocument: the document the repository serves (GitHub Pages of
// docs/) at DefaultClientMetadataURL names itself as the client_id, as CIMD requires, and
// describes the client the login is: public, native, a loopback /callback redirect (any
// port), authorization codes and refresh tokens.
func TestDefaultClientMetadataDocument(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "docs", "oauth", "client-metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ClientID        string   `json:"client_id"`
		ClientName      string   `json:"client_name"`
		RedirectURIs    []string `json:"redirect_uris"`
		GrantTypes      []string `json:"grant_types"`
		ResponseTypes   []string `json:"response_types"`
		AuthMethod      string   `json:"token_endpoint_auth_method"`
		ApplicationType string   `json:"application_type"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("docs/oauth/client-metadata.json: %v", err)
	}
	if doc.ClientID != DefaultClientMetadataURL || !config.ValidClientMetadataURL(doc.ClientID) {
		t.Errorf("client_id %q, want %q (a CIMD's client_id is its own URL)", doc.ClientID, DefaultClientMetadataURL)
	}
	if doc.ClientName == "" || doc.AuthMethod != config.AuthMethodNone || doc.ApplicationType != "native" ||
		!slices.Equal(doc.ResponseTypes, []string{"code"}) ||
		!slices.Contains(doc.GrantTypes, "authorization_code") || !slices.Contains(doc.GrantTypes, "refresh_token") {
		t.Errorf("the document does not describe a public native client with codes and refresh tokens: %s", data)
	}
	cb, err := newCallbackServer("state")
	if err != nil {
		t.Fatal(err)
	}
	defer cb.close()
	u, err := url.Parse(cb.redirectURI())
	if err != nil {
		t.Fatal(err)
	}
	u.Host = u.Hostname() // loopback redirects match on any port (RFC 8252 section 7.3)
	if !slices.Contains(doc.RedirectURIs, u.String()) {
		t.Errorf("redirect_uris %q do not hold the login's redirect %s (without its port)", doc.RedirectURIs, u)
	}
}
