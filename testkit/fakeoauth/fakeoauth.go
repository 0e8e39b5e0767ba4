// Package fakeoauth is an MCP resource server and OAuth authorization server for tests,
// shared by the bridge's OAuth tests and the CLI's login tests.
package fakeoauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Server is an MCP resource server and OAuth authorization server on one loopback
// listener: /mcp answers 401 + WWW-Authenticate (resource_metadata) until a bearer token
// it issued is presented; it publishes protected-resource and authorization-server
// metadata, registers clients dynamically, checks PKCE (S256) at the code exchange and
// rotates refresh tokens (a spent one is refused).
type Server struct {
	t   testing.TB
	Srv *httptest.Server // its URL is the base of every endpoint
	mcp http.Handler

	// Set before use.
	FirstExpiresIn int    // lifetime of the token of the code exchange
	AuthEndpoint   string // advertised authorization endpoint ("": its own)
	TokenEndpoint  string // advertised token endpoint ("": its own)
	// Routes answer the requests for their paths instead of the fake (a redirect, an
	// oversize answer...); the fake still counts them.
	Routes map[string]http.Handler
	// Resource is the resource its protected-resource metadata publishes, and the one an
	// authorization request must name ("": its /mcp url).
	Resource string
	// Legacy makes it a 2025-03-26 server: no protected-resource metadata, a 401 that
	// names none, and authorization requests that name no resource.
	Legacy bool
	// Issuer is the issuer its metadata names ("": its own url), AdvertiseIss its
	// authorization_response_iss_parameter_supported, and Iss the iss of its
	// authorization answers ("": none).
	Issuer       string
	AdvertiseIss bool
	Iss          string

	mu sync.Mutex
	// stepUp, when set (StepUp), makes /mcp refuse every valid token with 403
	// insufficient_scope asking for this scope.
	stepUp string
	// movedTo is the authorization server its resource names since MigrateTo (nil: itself).
	movedTo     *Server
	scopes      []string // the scope parameter of every authorization request
	requests    int
	clients     map[string]string // client_id → redirect_uri
	registered  []map[string]any
	authorizes  int
	codes       map[string]fakeGrant
	access      map[string]bool
	refresh     map[string]bool
	grants      []string // grant_type of every token request, refused ones too
	refused     []string
	pkceOK      int
	lastBearer  string
	tokenAuth   string   // the Authorization header of the latest token request
	issued      []string // every access token, refresh token, code and verifier seen
	startedOnce sync.Once
	// refreshGate, if set, holds the first refresh_token grant until it is closed;
	// refreshStarted is closed when that grant arrives (GateRefresh).
	refreshGate    chan struct{}
	refreshStarted chan struct{}
}

// SeedClient registers a client as an earlier login would have and issues it a token
// pair living expiresIn seconds (as the token endpoint's JSON answer).
func (f *Server) SeedClient(id, redirect string, expiresIn int) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.clients[id] = redirect
	return f.issueLocked(expiresIn)
}

// GateRefresh holds the next refresh_token grant until gate is closed; started is closed
// when that grant arrives.
func (f *Server) GateRefresh() (gate chan<- struct{}, started <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g, st := make(chan struct{}), make(chan struct{})
	f.refreshGate, f.refreshStarted = g, st
	return g, st
}

type fakeGrant struct{ client, redirect, challenge string }

// New starts the fake on a loopback listener, closed when the test ends: plain HTTP, or
// HTTPS with httptest's certificate (for a client that must see HTTPS, such as the built
// binary, given the certificate through SSL_CERT_FILE).
func New(t testing.TB, useTLS bool) *Server {
	mcpSrv := server.NewMCPServer("oauth-fake", "1.0.0", server.WithToolCapabilities(true))
	mcpSrv.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(r.GetString("text", "")), nil
	})
	f := &Server{t: t, mcp: server.NewStreamableHTTPServer(mcpSrv), FirstExpiresIn: 3600,
		clients: map[string]string{}, codes: map[string]fakeGrant{}, access: map[string]bool{}, refresh: map[string]bool{}}
	if useTLS {
		f.Srv = httptest.NewTLSServer(f)
	} else {
		f.Srv = httptest.NewServer(f)
	}
	t.Cleanup(f.Srv.Close)
	return f
}

func randHex(prefix string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *Server) refuse(w http.ResponseWriter, status int, why string) {
	f.refused = append(f.refused, why)
	writeJSON(w, status, map[string]string{"error": "invalid_request", "error_description": why})
}

// issueLocked issues a token pair.
func (f *Server) issueLocked(expiresIn int) map[string]any {
	at, rt := randHex("at-"), randHex("rt-")
	f.access[at], f.refresh[rt] = true, true
	f.issued = append(f.issued, at, rt)
	return map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": expiresIn, "refresh_token": rt}
}

func (f *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	base := f.Srv.URL
	f.mu.Lock()
	f.requests++
	if h := f.Routes[r.URL.Path]; h != nil {
		f.mu.Unlock()
		h.ServeHTTP(w, r)
		return
	}
	if r.URL.Path == "/mcp" {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		valid := ok && (f.access[tok] || f.movedTo != nil && f.movedTo.issuedAccess(tok))
		if valid {
			f.lastBearer = tok
		}
		stepUp := f.stepUp
		f.mu.Unlock()
		if valid && stepUp != "" {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s", resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, stepUp, base))
			http.Error(w, "insufficient scope", http.StatusForbidden)
			return
		}
		if !valid {
			chal := fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, base)
			if f.Legacy {
				chal = "Bearer"
			}
			w.Header().Set("WWW-Authenticate", chal)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		f.mcp.ServeHTTP(w, r)
		return
	}
	if r.URL.Path == "/token" && r.FormValue("grant_type") == "refresh_token" && f.refreshGate != nil {
		gate := f.refreshGate
		f.refreshGate = nil
		f.mu.Unlock()
		f.startedOnce.Do(func() { close(f.refreshStarted) })
		<-gate
		f.mu.Lock()
	}
	defer f.mu.Unlock()
	resource := f.Resource
	if resource == "" {
		resource = base + "/mcp"
	}
	if f.Legacy {
		resource = ""
	}
	issuer := f.Issuer
	if issuer == "" {
		issuer = base
	}
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource":
		if f.Legacy {
			http.NotFound(w, r)
			return
		}
		as := base
		if f.movedTo != nil {
			as = f.movedTo.Srv.URL
		}
		writeJSON(w, 200, map[string]any{"resource": resource, "authorization_servers": []string{as}})
	case "/.well-known/oauth-authorization-server":
		auth := base + "/authorize"
		if f.AuthEndpoint != "" {
			auth = f.AuthEndpoint
		}
		token := base + "/token"
		if f.TokenEndpoint != "" {
			token = f.TokenEndpoint
		}
		md := map[string]any{"issuer": issuer, "authorization_endpoint": auth, "token_endpoint": token,
			"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported": []string{"authorization_code", "refresh_token"}, "code_challenge_methods_supported": []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"}}
		if f.AdvertiseIss {
			md["authorization_response_iss_parameter_supported"] = true
		}
		writeJSON(w, 200, md)
	case "/register":
		var req map[string]any
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			f.refuse(w, 400, "bad registration")
			return
		}
		f.registered = append(f.registered, req)
		uris, _ := req["redirect_uris"].([]any)
		if len(uris) != 1 || req["token_endpoint_auth_method"] != "none" {
			f.refuse(w, 400, "registration: want one redirect uri and a public client")
			return
		}
		redirect, _ := uris[0].(string)
		if !strings.HasPrefix(redirect, "http://127.0.0.1:") || !strings.HasSuffix(redirect, "/callback") {
			f.refuse(w, 400, "registration: redirect uri "+redirect+" is not a loopback /callback")
			return
		}
		id := randHex("client-")
		f.clients[id] = redirect
		writeJSON(w, 201, map[string]any{"client_id": id, "redirect_uris": uris, "token_endpoint_auth_method": "none"})
	case "/authorize":
		q := r.URL.Query()
		f.authorizes++
		f.scopes = append(f.scopes, q.Get("scope"))
		switch {
		case r.Method != http.MethodGet, q.Get("response_type") != "code":
			f.refuse(w, 400, "authorize: not a code request")
		case f.clients[q.Get("client_id")] == "" || f.clients[q.Get("client_id")] != q.Get("redirect_uri"):
			f.refuse(w, 400, "authorize: unknown client or redirect uri")
		case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("state") == "":
			f.refuse(w, 400, "authorize: PKCE S256 challenge and state required")
		case q.Get("resource") != resource:
			f.refuse(w, 400, "authorize: resource "+q.Get("resource"))
		default:
			code := randHex("code-")
			f.issued = append(f.issued, code)
			f.codes[code] = fakeGrant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge")}
			answer := url.Values{"code": {code}, "state": {q.Get("state")}}
			if f.Iss != "" {
				answer.Set("iss", f.Iss)
			}
			http.Redirect(w, r, q.Get("redirect_uri")+"?"+answer.Encode(), http.StatusFound)
		}
	case "/token":
		if r.Method != http.MethodPost {
			f.refuse(w, 405, "token: not a POST")
			return
		}
		gt := r.FormValue("grant_type")
		f.grants = append(f.grants, gt)
		f.tokenAuth = r.Header.Get("Authorization")
		switch gt {
		case "authorization_code":
			code, verifier := r.FormValue("code"), r.FormValue("code_verifier")
			f.issued = append(f.issued, verifier)
			g, ok := f.codes[code]
			delete(f.codes, code)
			sum := sha256.Sum256([]byte(verifier))
			switch {
			case !ok:
				f.refuse(w, 400, "token: unknown code")
			case r.FormValue("client_id") != g.client || r.FormValue("redirect_uri") != g.redirect:
				f.refuse(w, 400, "token: client or redirect uri differ")
			case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
				f.refuse(w, 400, "token: PKCE verifier does not match the challenge")
			default:
				f.pkceOK++
				writeJSON(w, 200, f.issueLocked(f.FirstExpiresIn))
			}
		case "refresh_token":
			rt := r.FormValue("refresh_token")
			if !f.refresh[rt] {
				f.refused = append(f.refused, "token: spent or unknown refresh token")
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			delete(f.refresh, rt) // rotation: a refresh token is good once
			writeJSON(w, 200, f.issueLocked(3600))
		default:
			f.refuse(w, 400, "token: grant type "+gt)
		}
	default:
		http.NotFound(w, r)
	}
}

// MigrateTo makes as the authorization server f's resource names (its protected-resource
// metadata), as when a server moves to another one: the access tokens f issued are
// refused from then on (401) and those as issues accepted. as must publish f's resource
// (as.Resource = f.Srv.URL + "/mcp") and be another fake.
func (f *Server) MigrateTo(as *Server) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.movedTo = as
	f.access = map[string]bool{}
}

// StepUp makes /mcp refuse every valid token from now on with 403 insufficient_scope
// asking for scope (a server that keeps asking for more, whatever the login grants).
func (f *Server) StepUp(scope string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stepUp = scope
}

// issuedAccess says whether f issued the access token tok.
func (f *Server) issuedAccess(tok string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.access[tok]
}

// State is a copy of what the fake saw.
type State struct {
	Requests   int
	Registered []map[string]any
	Authorizes int
	// Scopes is the scope parameter of every authorization request ("": none).
	Scopes     []string
	Grants     []string
	Refused    []string
	PkceOK     int
	LastBearer string
	TokenAuth  string // the Authorization header of the latest token request
	Issued     []string
}

// Snapshot returns what the fake has seen so far.
func (f *Server) Snapshot() State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return State{Requests: f.requests, Registered: append([]map[string]any(nil), f.registered...), Authorizes: f.authorizes,
		Scopes: append([]string(nil), f.scopes...),
		Grants: append([]string(nil), f.grants...), Refused: append([]string(nil), f.refused...), PkceOK: f.pkceOK,
		LastBearer: f.lastBearer, TokenAuth: f.tokenAuth, Issued: append([]string(nil), f.issued...)}
}
