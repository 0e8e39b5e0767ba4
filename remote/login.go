package remote

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/session"
)

// The OAuth login's steps (the bridge runs them for /mcp login and says how they went).
//
// A login makes a loopback callback server on 127.0.0.1:<random>/callback, discovers the
// resource (an unauthenticated GET whose 401 names the protected-resource metadata) and
// the authorization-server metadata, registers a public client dynamically, builds the
// authorization URL with PKCE (S256) and state, waits for the browser's redirect and
// exchanges the code; the credentials are then saved. Everything must be HTTPS, or plain
// HTTP to a loopback host (OAuth.secure). The whole flow ends after LoginTimeout.

// LoginFlow is a login in progress for a server, and how it ended.
type LoginFlow struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the flow has ended

	mu        sync.Mutex
	succeeded bool
	err       error // why it failed, when it did
}

// Finish records the outcome (the first one counts).
func (f *LoginFlow) Finish(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.succeeded && f.err == nil {
		f.succeeded, f.err = err == nil, err
	}
}

// Wait waits until the flow has ended and returns why it failed, or nil when the
// credentials were saved.
func (f *LoginFlow) Wait(ctx context.Context) error {
	select {
	case <-f.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.succeeded {
		return nil
	}
	if f.err == nil {
		return errors.New("the login was cancelled")
	}
	return f.err
}

// BeginLogin registers a new login for s, cancelling one still waiting.
func (s *Server) BeginLogin(parent context.Context) (context.Context, *LoginFlow) {
	ctx, cancel := clock.WithTimeout(parent, s.d.Clock, LoginTimeout)
	f := &LoginFlow{cancel: cancel, done: make(chan struct{})}
	s.mu.Lock()
	old := s.login
	s.login, s.lastLogin = f, f
	s.mu.Unlock()
	if old != nil {
		old.cancel()
	}
	return ctx, f
}

// EndLogin marks f ended (and no longer the login in progress).
func (s *Server) EndLogin(f *LoginFlow) {
	f.cancel()
	close(f.done)
	s.mu.Lock()
	if s.login == f {
		s.login = nil
	}
	s.mu.Unlock()
}

// CancelLogin ends the login in progress, if any.
func (s *Server) CancelLogin() {
	s.mu.Lock()
	f := s.login
	s.login = nil
	s.mu.Unlock()
	if f != nil {
		f.cancel()
	}
}

// LoginActive says whether f is still the login in progress (not replaced or cancelled).
func (s *Server) LoginActive(f *LoginFlow) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.login == f
}

// LastLogin is the latest login, running or ended (nil: none was started).
func (s *Server) LastLogin() *LoginFlow {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastLogin
}

// Login is one login's state across its steps: PKCE, the callback server and the OAuth
// handler that registered the client.
type Login struct {
	s   *Server
	red func(string) string
	rt  *Transport

	state, verifier string
	cb              *callbackServer
	handler         *transport.OAuthHandler
	mem             *transport.MemoryTokenStore
	// disc is what the login's discovery found.
	disc *authDiscovery
	// client is the client the login authorizes as, and scopes what it requests.
	client loginClient
	scopes []string
}

// NewLogin starts a login's state (nothing is contacted yet); Close ends it.
func (s *Server) NewLogin() *Login { return &Login{s: s, red: s.redactor()} }

// Close stops the callback server and drops the login's connections.
func (l *Login) Close() {
	if l.cb != nil {
		l.cb.close()
	}
	if l.rt != nil {
		l.rt.CloseIdleConnections()
	}
}

// errf is a login failure, redacted.
func (l *Login) errf(format string, args ...any) *session.Error {
	e := errorf(session.KindAuth, nil, format, args...)
	e.Msg = l.red(e.Msg)
	return e
}

// Reason words err for a failure message without secrets (the server's, and the
// login's own: code, verifier, client secret).
func (l *Login) Reason(err error, secrets ...string) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return l.s.redactor(secrets...)(textcut.Truncate(err.Error(), 300))
}

// Listen makes the state, the PKCE verifier and the loopback callback server.
func (l *Login) Listen() error {
	var err error
	if l.state, err = transport.GenerateState(); err != nil {
		return l.errf("OAuth login: cannot generate a random state: %v", err)
	}
	if l.verifier, err = transport.GenerateCodeVerifier(); err != nil {
		return l.errf("OAuth login: cannot generate a PKCE verifier: %v", err)
	}
	if l.cb, err = newCallbackServer(l.state); err != nil {
		return l.errf("OAuth login: cannot listen for the callback on 127.0.0.1: %v", err)
	}
	return nil
}

// AuthorizationURL discovers the resource and its authorization server, checks that
// every endpoint is secure, registers a public client and builds the URL to open.
func (l *Login) AuthorizationURL(ctx context.Context) (string, error) {
	l.rt = l.s.newHeaderTransport("", nil)
	hc := l.s.oauthClient(l.rt)
	env := l.s.d.OAuth
	// Resource discovery: an unauthenticated request whose 401 names the metadata and
	// the scope to ask for.
	unauthorized, err := discoverResource(ctx, l.s.probeClient(l.rt), l.s.cfg)
	if err != nil {
		return "", l.errf("OAuth resource discovery failed: %s", l.Reason(err))
	}
	challenge := challengeScopes(unauthorized)
	if err := checkScopes(challenge); err != nil {
		return "", l.errf("OAuth login: %v", err)
	}
	// The previous login's scopes and the step-up ones asked for since (an unreadable
	// file has none: the login replaces it).
	var earlier [][]string
	if prev, _ := l.s.storedCreds(); prev != nil {
		earlier = [][]string{prev.Scopes, prev.StepUpScopes}
	}
	disc, err := discover(ctx, hc, env.SecureURL, l.s.cfg.URL, unauthorized)
	if err != nil {
		return "", l.errf("OAuth authorization server discovery failed: %s", l.Reason(err))
	}
	l.disc = disc
	md := &disc.Meta.AuthServerMetadata
	for _, ep := range []struct{ name, url string }{{"authorization", md.AuthorizationEndpoint}, {"token", md.TokenEndpoint}, {"registration", md.RegistrationEndpoint}} {
		if ep.url != "" && !env.SecureURL(ep.url) {
			return "", l.errf("OAuth %s endpoint must use HTTPS (plain HTTP only to a loopback host)", ep.name)
		}
	}
	lm := disc.loginMetadata()
	scopes := loginScopes(challenge, lm.prmScopes, md.ScopesSupported, earlier...)
	if err := checkScopes(scopes); err != nil {
		return "", l.errf("OAuth login: %v", err)
	}
	client, err := l.s.chooseClient(ctx, hc, lm, l.cb.redirectURI(), scopes)
	if err != nil {
		return "", l.errf("OAuth client registration failed: %s", l.Reason(err))
	}
	if client.method == config.AuthMethodPrivateKey {
		return "", l.errf("OAuth login: \"private_key_jwt\" in oauth.tokenEndpointAuthMethod of %s is for \"grantType\": %q (machine to machine); a browser login needs a client secret or none",
			l.s.cfg.Source, config.GrantClientCredentials)
	}
	l.client, l.scopes = client, scopes
	// mcp-go's handler builds the URL and exchanges the code as that client; its own
	// discovery is answered from what discover read (no request leaves).
	l.mem = transport.NewMemoryTokenStore()
	l.handler = transport.NewOAuthHandler(transport.OAuthConfig{ClientID: client.id, ClientSecret: client.secret, TokenEndpointAuthMethod: client.method,
		RedirectURI: l.cb.redirectURI(), PKCEEnabled: true, TokenStore: l.mem, HTTPClient: disc.handlerClient(hc), Scopes: scopes})
	disc.setUp(l.handler)
	hmd, err := l.handler.GetServerMetadata(ctx)
	if err != nil {
		return "", l.errf("OAuth authorization server discovery failed: %s", l.Reason(err))
	}
	if !disc.sameMetadata(hmd) {
		return "", l.errf("OAuth authorization server discovery failed: mcp-go's OAuth handler found other metadata than the bridge's discovery; report it to the bridge's maintainers")
	}
	// The authorization answer must name this issuer (RFC 9207) when it names one, and
	// must when the metadata says it does.
	l.cb.expectIssuer(disc.checkIss)
	authURL, err := l.handler.GetAuthorizationURL(ctx, l.state, transport.GenerateCodeChallenge(l.verifier))
	if err != nil {
		return "", l.errf("OAuth authorization URL discovery failed: %s", l.Reason(err, l.handler.GetClientSecret()))
	}
	if !env.SecureURL(authURL) {
		return "", l.errf("OAuth authorization endpoint must use HTTPS (plain HTTP only to a loopback host)")
	}
	if err := checkAuthURL(authURL); err != nil {
		return "", l.errf("OAuth login: %v", err)
	}
	return authURL, nil
}

// Callback is where the browser's redirect arrives (once).
func (l *Login) Callback() <-chan CallbackResult { return l.cb.result }

// Creds are the credentials a code exchange produced and where they go.
type Creds struct {
	path  string
	creds *oauthCreds
}

// Exchange trades the authorization code for a token.
func (l *Login) Exchange(ctx context.Context, code string) (Creds, error) {
	if err := l.handler.ProcessAuthorizationResponse(ctx, code, l.state, l.verifier); err != nil {
		return Creds{}, l.errf("OAuth code exchange failed: %s", l.Reason(err, code, l.verifier, l.handler.GetClientSecret()))
	}
	tok, err := l.mem.GetToken(ctx)
	if err != nil || tok.AccessToken == "" {
		return Creds{}, l.errf("OAuth code exchange failed: the authorization server sent no access token")
	}
	if err := checkTokenSize(tok); err != nil {
		return Creds{}, l.errf("OAuth code exchange failed: %v; the stored credentials, if any, are unchanged", err)
	}
	// The metadata the exchange used (cached by the handler): its token endpoint is the
	// one later refreshes may go to.
	md, err := l.handler.GetServerMetadata(ctx)
	if err != nil {
		return Creds{}, l.errf("OAuth code exchange failed: %s", l.Reason(err, code, l.verifier, l.handler.GetClientSecret()))
	}
	store := l.s.newTokenStore()
	c := &oauthCreds{ClientID: l.client.id, ClientSecret: l.client.secret, AuthMethod: l.client.method, TokenEndpoint: md.TokenEndpoint,
		Registration: l.client.how, Scopes: l.scopes, Issuer: md.Issuer, Resource: l.disc.Resource, ResourceMetadata: l.disc.PRMURL,
		Token: store.stamp(tok)}
	if l.client.how == regPreRegistered {
		// The entry's secret stays in the entry (a ${VAR}): it is read from there at each use.
		c.ClientSecret, c.ConfigSecret = "", true
	}
	return Creds{path: store.path, creds: c}, nil
}

// Save writes the credentials of a finished exchange (saveCreds).
func (l *Login) Save(ctx context.Context, c Creds) error { return saveCreds(ctx, c.path, c.creds) }

// saveCreds writes a new login's credentials under the file lock, unless ctx ended (a
// logout cancels the login before it removes the file under the same lock).
func saveCreds(ctx context.Context, path string, c *oauthCreds) error {
	unlock, err := lockCreds(ctx, path)
	if err != nil {
		return err
	}
	defer unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	return writeCreds(path, c)
}

// resourceBase is the server url as mcp-go's transports give it to the OAuth handler.
func resourceBase(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// checkBrowserURL validates a URL before it goes to the platform's opener: HTTPS (or
// plain HTTP to a loopback host), a host, no user info, no quoting characters.
func (e *OAuth) checkBrowserURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !e.secure(u) || strings.ContainsAny(raw, " \t\r\n\"'`") {
		return errors.New("the authorization URL is not a plain HTTPS (or loopback HTTP) URL")
	}
	return nil
}

// OpenBrowser opens a URL, once it is validated, with the injected or the platform's
// opener. A real-time bound ends an opener process that does not return (no fake clock
// makes a process exit).
func (e *OAuth) OpenBrowser(ctx context.Context, raw string) error {
	if err := e.checkBrowserURL(raw); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	return e.OpenURL(ctx, raw)
}

// OpenURL opens a URL its caller has validated with the injected or the platform's opener.
func (e *OAuth) OpenURL(ctx context.Context, raw string) error {
	if e.hooks.Open != nil {
		return e.hooks.Open(ctx, raw)
	}
	if cmds := browserCommands(e.Browser, raw); len(cmds) > 0 {
		var err error
		for _, c := range cmds {
			if err = exec.CommandContext(ctx, c[0], c[1:]...).Run(); err == nil {
				return nil
			}
		}
		return fmt.Errorf("$BROWSER: %w", err)
	}
	name, args := openerCommand(runtime.GOOS, raw)
	return exec.CommandContext(ctx, name, args...).Run()
}

// browserCommands reads $BROWSER as the convention has it: a list of commands separated
// by the path list separator, tried in order; "%s" in a command stands for the URL, which
// is otherwise appended. No shell runs them.
func browserCommands(browser, u string) [][]string {
	var out [][]string
	for _, entry := range filepath.SplitList(browser) {
		f := strings.Fields(entry)
		if len(f) == 0 {
			continue
		}
		placed := false
		for i, a := range f {
			if strings.Contains(a, "%s") {
				f[i], placed = strings.ReplaceAll(a, "%s", u), true
			}
		}
		if !placed {
			f = append(f, u)
		}
		out = append(out, f)
	}
	return out
}

// openerCommand is the platform's command that opens a URL in the browser.
func openerCommand(goos, u string) (string, []string) {
	switch goos {
	case "darwin":
		return "open", []string{u}
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler", u}
	}
	return "xdg-open", []string{u}
}

// CallbackResult is what the authorization server sent to the callback.
type CallbackResult struct {
	Code string
	Err  error
}

// callbackServer is the loopback redirect target of a login.
type callbackServer struct {
	state  string
	ln     net.Listener
	srv    *http.Server
	result chan CallbackResult // buffered; written once

	mu  sync.Mutex
	got bool
	// checkIss checks an answer's iss (RFC 9207; present: it has one), once discovery
	// has found the authorization server (nil before: no answer is expected yet).
	checkIss func(iss string, present bool) error
}

// expectIssuer sets how the answer's iss is checked.
func (c *callbackServer) expectIssuer(check func(iss string, present bool) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checkIss = check
}

func newCallbackServer(state string) (*callbackServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &callbackServer{state: state, ln: ln, result: make(chan CallbackResult, 1)}
	c.srv = &http.Server{Handler: c, ReadHeaderTimeout: callbackReadTimeout, ReadTimeout: callbackReadTimeout,
		WriteTimeout: callbackReadTimeout, IdleTimeout: callbackReadTimeout, MaxHeaderBytes: 16 << 10}
	go func() { _ = c.srv.Serve(ln) }()
	return c, nil
}

func (c *callbackServer) redirectURI() string {
	return "http://" + c.ln.Addr().String() + "/callback"
}

func (c *callbackServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if c.srv.Shutdown(ctx) != nil {
		_ = c.srv.Close()
	}
}

func (c *callbackServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	reply := func(status int, msg string) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(msg + "\n"))
	}
	if r.URL.Path != "/callback" {
		reply(http.StatusNotFound, "Not found")
		return
	}
	if r.Method != http.MethodGet {
		h.Set("Allow", http.MethodGet)
		reply(http.StatusMethodNotAllowed, "Method not allowed")
		return
	}
	q := r.URL.Query()
	if st := q.Get("state"); st == "" || subtle.ConstantTimeCompare([]byte(st), []byte(c.state)) != 1 {
		reply(http.StatusBadRequest, "Invalid OAuth callback")
		return
	}
	c.mu.Lock()
	dup := c.got
	c.got = true
	checkIss := c.checkIss
	c.mu.Unlock()
	if dup {
		reply(http.StatusConflict, "Callback already received")
		return
	}
	if checkIss == nil {
		checkIss = func(string, bool) error {
			return errors.New("the authorization answer came before the login asked for one")
		}
	}
	if err := checkIss(q.Get("iss"), q.Has("iss")); err != nil {
		// A mix-up attack's code is never exchanged (RFC 9207 section 2.4).
		reply(http.StatusBadRequest, "Authorization refused: it does not come from the expected authorization server")
		c.result <- CallbackResult{Err: err}
		return
	}
	code := q.Get("code")
	if e := q.Get("error"); e != "" || code == "" {
		reply(http.StatusBadRequest, "Authorization declined or missing code")
		msg := "the authorization server sent no code"
		if e != "" {
			msg = fmt.Sprintf("authorization declined (%s)", safeCode(e))
		}
		c.result <- CallbackResult{Err: errors.New(msg)}
		return
	}
	reply(http.StatusOK, "Authorization received. Return to zot.")
	c.result <- CallbackResult{Code: code}
}

// OAuthDetail is the "oauth:" line of /mcp <server> ("" when there is nothing to say);
// needsLogin: the server answered that it wants a login.
func (s *Server) OAuthDetail(needsLogin bool) string {
	c, err := s.storedCreds()
	switch {
	case err != nil:
		return fmt.Sprintf("%s: run %s, then %s", errBadCredFile, s.d.Cmd("logout", s.cfg.Name), s.d.Cmd("login", s.cfg.Name))
	case c != nil && c.Token != nil:
		return fmt.Sprintf("logged in (credentials stored; %s forgets them)", s.d.Cmd("logout", s.cfg.Name))
	case c != nil || needsLogin:
		return fmt.Sprintf("needs login: run %s", s.d.Cmd("login", s.cfg.Name))
	}
	return ""
}
