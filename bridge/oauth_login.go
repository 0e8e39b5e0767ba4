package bridge

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
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
)

// /mcp login and /mcp logout.
//
// Login answers at once with the authorization URL (or "still running" if discovery is
// slow) and continues in the background, reporting with notes: loopback callback server
// on 127.0.0.1:<random>/callback, resource discovery (an unauthenticated GET whose 401
// names the protected-resource metadata), authorization-server metadata, dynamic
// registration of a public client, PKCE (S256) and state, the browser, the code exchange,
// then the credentials are saved and the server restarted with them. Everything must be
// HTTPS, or plain HTTP to a loopback host (oauthEnv.secure). The whole flow ends after
// loginTimeout.

// loginFlow is a login in progress for a server.
type loginFlow struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the flow has ended

	mu        sync.Mutex
	succeeded bool
	err       error // why it failed, when it did
}

// finish records the outcome (the first one counts).
func (f *loginFlow) finish(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.succeeded && f.err == nil {
		f.succeeded, f.err = err == nil, err
	}
}

// beginLogin registers a new login for s, cancelling one still waiting.
func (s *Server) beginLogin(parent context.Context) (context.Context, *loginFlow) {
	ctx, cancel := withClockTimeout(parent, s.d.clock, loginTimeout)
	f := &loginFlow{cancel: cancel, done: make(chan struct{})}
	s.mu.Lock()
	old := s.login
	s.login, s.lastLogin = f, f
	s.mu.Unlock()
	if old != nil {
		old.cancel()
	}
	return ctx, f
}

func (s *Server) endLogin(f *loginFlow) {
	f.cancel()
	close(f.done)
	s.mu.Lock()
	if s.login == f {
		s.login = nil
	}
	s.mu.Unlock()
}

// cancelLogin ends the login in progress, if any.
func (s *Server) cancelLogin() {
	s.mu.Lock()
	f := s.login
	s.login = nil
	s.mu.Unlock()
	if f != nil {
		f.cancel()
	}
}

func (s *Server) loginActive(f *loginFlow) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.login == f
}

// loginCheck says whether s can log in with OAuth.
func (b *Bridge) loginCheck(s *Server) error {
	if s.pending.Load() { // a login contacts the server
		return s.approvalErr()
	}
	c := s.cfg
	if c.Transport != config.TransportStreamableHTTP && c.Transport != config.TransportSSE {
		if c.Err != "" {
			return s.errorf(KindDisabled, nil, "config error: %s", c.Err)
		}
		return s.errorf(KindAuth, nil, "OAuth login requires an HTTP transport (streamable-http or sse); this server runs a command")
	}
	if c.Err != "" {
		return s.errorf(KindDisabled, nil, "config error: %s", c.Err)
	}
	if b.deps == nil || b.deps.oauth == nil || !b.deps.oauth.secureString(c.URL) {
		return s.errorf(KindAuth, nil, "OAuth login requires an HTTPS (or loopback HTTP) resource URL with a host (and no user info); %s is not one", displayURL(c))
	}
	return nil
}

// serverArg resolves the one server name of login/logout.
func (b *Bridge) serverArg(sub string, args []string) (*Server, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("usage: %s <server>; servers: %s", b.opts.Surface.Cmd(sub), b.serverList())
	}
	s, ok := b.servers[args[0]]
	if !ok {
		return nil, fmt.Errorf("unknown server %q.%s Servers: %s", args[0], suggest(args[0], b.names), b.serverList())
	}
	return s, nil
}

// loginStart is what the command waits for: the authorization URL or an early failure.
type loginStart struct {
	url string
	err error
}

// handoff passes the login's start to the command, unless the command already answered.
type handoff struct {
	mu     sync.Mutex
	gaveUp bool
	ch     chan loginStart // buffered; written at most once
}

func (h *handoff) offer(st loginStart) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gaveUp {
		return false
	}
	h.ch <- st
	h.gaveUp = true // one offer only
	return true
}

// giveUp ends the command's wait; it returns a start that arrived meanwhile.
func (h *handoff) giveUp() (loginStart, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gaveUp = true
	select {
	case st := <-h.ch:
		return st, true
	default:
		return loginStart{}, false
	}
}

func (b *Bridge) loginCommand(ctx context.Context, args []string) (string, error) {
	s, err := b.serverArg("login", args)
	if err != nil {
		return "", err
	}
	if err := b.loginCheck(s); err != nil {
		return "", err
	}
	lctx, flow := s.beginLogin(b.bgCtx)
	h := &handoff{ch: make(chan loginStart, 1)}
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		defer s.endLogin(flow)
		b.runLogin(lctx, s, flow, h)
	}()
	// ctx's deadline, when earlier than the wait, ends the select through ctx.Done.
	waited, t := after(b.opts.Clock, b.cmdWait)
	defer t.Stop()
	var st loginStart
	select {
	case st = <-h.ch:
	case <-waited:
	case <-ctx.Done():
	}
	if st.url == "" && st.err == nil {
		var ok bool
		if st, ok = h.giveUp(); !ok {
			return fmt.Sprintf("%s is still running (discovering the server's authorization endpoints); a note will show the URL to open.", b.opts.Surface.Cmd("login", s.cfg.Name)), nil
		}
	}
	if st.err != nil {
		return "", st.err
	}
	if b.opts.Surface == SurfaceCLI {
		return fmt.Sprintf("Log in to MCP server %q: open this URL in your browser (opening it for you):\n  %s\nWaiting up to %s for the authorization.",
			s.cfg.Name, st.url, loginTimeout), nil
	}
	return fmt.Sprintf("Log in to MCP server %q: open this URL in your browser (zot is opening it for you):\n  %s\nWaiting up to %s for the authorization; a note reports the outcome.",
		s.cfg.Name, st.url, loginTimeout), nil
}

// runLogin is the background part of /mcp login.
func (b *Bridge) runLogin(ctx context.Context, s *Server, flow *loginFlow, h *handoff) {
	l := &loginRun{b: b, s: s, flow: flow, h: h, log: s.d.log.With().Str("server", s.cfg.Name).Logger(), red: newRedactor(s.cfg)}
	l.log.Info().Msg("OAuth login started")
	if err := l.listen(); err != nil {
		l.fail(err)
		return
	}
	defer l.cb.close()
	rt := s.newHeaderTransport("")
	defer rt.CloseIdleConnections()
	authURL, err := l.authorizationURL(ctx, s.oauthClient(rt))
	if err != nil {
		l.fail(err)
		return
	}
	l.announce(ctx, authURL)
	code, err := l.awaitCallback(ctx)
	if err != nil {
		l.fail(err)
		return
	}
	if code == "" {
		return // timed out or cancelled; awaitCallback said so
	}
	creds, err := l.exchange(ctx, code)
	if err != nil {
		l.fail(err)
		return
	}
	if !s.loginActive(flow) {
		return // replaced by a newer login, or logged out meanwhile
	}
	if err := saveCreds(ctx, creds.path, creds.creds); err != nil {
		l.fail(l.errf("OAuth login: cannot save the credentials: %s", l.reason(err)))
		return
	}
	l.log.Info().Msg("OAuth login succeeded; credentials saved")
	flow.finish(nil)
	if !s.loginActive(flow) {
		return
	}
	l.restartSharing(ctx)
}

// loginRun is one login's state across its steps (runLogin).
type loginRun struct {
	b    *Bridge
	s    *Server
	flow *loginFlow
	h    *handoff
	log  zerolog.Logger
	red  func(string) string

	state, verifier string
	cb              *callbackServer
	handler         *transport.OAuthHandler
	mem             *transport.MemoryTokenStore
}

// fail ends the login with err: the command waiting for the start gets it, else a note.
func (l *loginRun) fail(err error) {
	l.flow.finish(err)
	if !l.h.offer(loginStart{err: err}) && l.s.loginActive(l.flow) && l.b.bgCtx.Err() == nil {
		l.b.note("warn", err.Error())
	}
	l.log.Warn().Str("error", err.Error()).Msg("OAuth login failed")
}

// errf is a login failure, redacted.
func (l *loginRun) errf(format string, args ...any) *Error {
	e := l.s.errorf(KindAuth, nil, format, args...)
	e.Msg = l.red(e.Msg)
	return e
}

// reason words err for a failure message without secrets (the server's, and the
// login's own: code, verifier, client secret).
func (l *loginRun) reason(err error, secrets ...string) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return newRedactor(l.s.cfg, secrets...)(Truncate(err.Error(), 300))
}

// listen makes the state, the PKCE verifier and the loopback callback server.
func (l *loginRun) listen() error {
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

// authorizationURL discovers the resource and its authorization server, checks that
// every endpoint is secure, registers a public client and builds the URL to open.
func (l *loginRun) authorizationURL(ctx context.Context, hc *http.Client) (string, error) {
	env := l.s.d.oauth
	// Resource discovery: an unauthenticated request whose 401 names the metadata and
	// the scope to ask for.
	unauthorized, err := discoverResource(ctx, hc, l.s.cfg)
	if err != nil {
		return "", l.errf("OAuth resource discovery failed: %s", l.reason(err))
	}
	l.mem = transport.NewMemoryTokenStore()
	l.handler = transport.NewOAuthHandler(transport.OAuthConfig{RedirectURI: l.cb.redirectURI(), PKCEEnabled: true,
		TokenStore: l.mem, HTTPClient: hc, Scopes: challengeScopes(unauthorized)})
	l.handler.SetBaseURL(resourceBase(l.s.cfg.URL))
	if unauthorized != nil {
		l.handler.HandleUnauthorizedResponse(&http.Response{StatusCode: http.StatusUnauthorized, Header: unauthorized})
	}
	md, err := l.handler.GetServerMetadata(ctx)
	if err != nil {
		return "", l.errf("OAuth authorization server discovery failed: %s", l.reason(err))
	}
	for _, ep := range []struct{ name, url string }{{"authorization", md.AuthorizationEndpoint}, {"token", md.TokenEndpoint}, {"registration", md.RegistrationEndpoint}} {
		if ep.url != "" && !env.secureString(ep.url) {
			return "", l.errf("OAuth %s endpoint must use HTTPS (plain HTTP only to a loopback host)", ep.name)
		}
	}
	if err := l.handler.RegisterClient(ctx, ClientName); err != nil {
		return "", l.errf("OAuth client registration failed; the server must support dynamic public-client registration (%s)", l.reason(err))
	}
	authURL, err := l.handler.GetAuthorizationURL(ctx, l.state, transport.GenerateCodeChallenge(l.verifier))
	if err != nil {
		return "", l.errf("OAuth authorization URL discovery failed: %s", l.reason(err, l.handler.GetClientSecret()))
	}
	if !env.secureString(authURL) {
		return "", l.errf("OAuth authorization endpoint must use HTTPS (plain HTTP only to a loopback host)")
	}
	return authURL, nil
}

// announce hands the URL to the waiting command (or says it in a note) and opens the
// browser in the background.
func (l *loginRun) announce(ctx context.Context, authURL string) {
	b, name := l.b, l.s.cfg.Name
	if l.h.offer(loginStart{url: authURL}) {
		b.note("info", fmt.Sprintf("MCP login for %q: waiting for the authorization in your browser (up to %s).", name, loginTimeout))
	} else {
		b.note("info", fmt.Sprintf("MCP login for %q: open this URL in your browser to authorize zot (waiting up to %s):\n  %s", name, loginTimeout, authURL))
	}
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		// Bounds a browser opener process that does not return (real time: it is a
		// process of its own).
		octx, cancel := context.WithTimeout(ctx, openTimeout)
		defer cancel()
		if err := l.s.d.oauth.openBrowser(octx, authURL); err != nil && ctx.Err() == nil {
			l.log.Info().Str("error", l.red(err.Error())).Msg("could not open a browser")
			b.note("warn", fmt.Sprintf("MCP login for %q: could not open a browser (%s); open the URL from %s yourself.", name, l.red(Truncate(err.Error(), 200)), b.opts.Surface.Cmd("login")))
		}
	}()
}

// awaitCallback waits for the browser's redirect within the login window. It returns ""
// without an error when the window closed first (having ended the flow and said so).
func (l *loginRun) awaitCallback(ctx context.Context) (string, error) {
	name := l.s.cfg.Name
	select {
	case res := <-l.cb.result:
		if res.err != nil {
			return "", l.errf("OAuth login: %v; run %s to try again", res.err, l.b.opts.Surface.Cmd("login", name))
		}
		return res.code, nil
	case <-ctx.Done():
		l.flow.finish(fmt.Errorf("no authorization arrived within %s", loginTimeout))
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			l.b.note("warn", fmt.Sprintf("MCP login for %q timed out after %s without an authorization; run %s to try again.", name, loginTimeout, l.b.opts.Surface.Cmd("login", name)))
			l.log.Warn().Msg("OAuth login timed out")
		}
		return "", nil
	}
}

// exchangedCreds are the credentials a code exchange produced and where they go.
type exchangedCreds struct {
	path  string
	creds *oauthCreds
}

// exchange trades the authorization code for a token.
func (l *loginRun) exchange(ctx context.Context, code string) (exchangedCreds, error) {
	if err := l.handler.ProcessAuthorizationResponse(ctx, code, l.state, l.verifier); err != nil {
		return exchangedCreds{}, l.errf("OAuth code exchange failed: %s", l.reason(err, code, l.verifier, l.handler.GetClientSecret()))
	}
	tok, err := l.mem.GetToken(ctx)
	if err != nil || tok.AccessToken == "" {
		return exchangedCreds{}, l.errf("OAuth code exchange failed: the authorization server sent no access token")
	}
	store := l.s.newTokenStore()
	return exchangedCreds{path: store.path, creds: &oauthCreds{ClientID: l.handler.GetClientID(), ClientSecret: l.handler.GetClientSecret(),
		AuthMethod: l.handler.GetTokenEndpointAuthMethod(), Token: store.stamp(tok)}}, nil
}

// restartSharing restarts every server with the same url (they share the credentials)
// and re-lists their tools, then says how the login ended.
func (l *loginRun) restartSharing(ctx context.Context) {
	b, s := l.b, l.s
	var names []string
	for _, n := range b.names {
		o := b.servers[n]
		if o.cfg.URL != s.cfg.URL || (o.cfg.Transport != config.TransportStreamableHTTP && o.cfg.Transport != config.TransportSSE) {
			continue
		}
		o.Stop(ctx)
		o.loggedIn()
		if o.cfg.Usable() {
			names = append(names, n)
		}
	}
	msg := fmt.Sprintf("Logged in to MCP server %q; the OAuth credentials are saved.", s.cfg.Name)
	level := "success"
	if len(names) > 0 {
		r := b.RefreshEach(ctx, names, nil)
		switch {
		case len(r.Failed) > 0:
			level = "warn"
			msg += " Listing its tools failed: " + strings.Join(r.Failed, "; ")
		case r.CacheErr != nil:
			level = "warn"
			msg += " Its tools were listed, but " + r.SaveText() + "."
		case len(r.Changed) > 0:
			msg += fmt.Sprintf(" Tools listed for %s: %s to load them.", strings.Join(r.Changed, ", "), b.opts.Surface.Reload())
		default:
			msg += " Its tools are unchanged."
		}
	}
	b.note(level, msg)
}

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
func (e *oauthEnv) checkBrowserURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !e.secure(u) || strings.ContainsAny(raw, " \t\r\n\"'`") {
		return errors.New("the authorization URL is not a plain HTTPS (or loopback HTTP) URL")
	}
	return nil
}

// openBrowser opens a validated URL with the injected or the platform's opener.
func (e *oauthEnv) openBrowser(ctx context.Context, raw string) error {
	if err := e.checkBrowserURL(raw); err != nil {
		return err
	}
	return e.openURL(ctx, raw)
}

// openURL opens a URL its caller has validated with the injected or the platform's opener.
func (e *oauthEnv) openURL(ctx context.Context, raw string) error {
	if e.hooks.open != nil {
		return e.hooks.open(ctx, raw)
	}
	if cmds := browserCommands(e.browser, raw); len(cmds) > 0 {
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

// callbackResult is what the authorization server sent to the callback.
type callbackResult struct {
	code string
	err  error
}

// callbackServer is the loopback redirect target of a login.
type callbackServer struct {
	state  string
	ln     net.Listener
	srv    *http.Server
	result chan callbackResult // buffered; written once

	mu  sync.Mutex
	got bool
}

func newCallbackServer(state string) (*callbackServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &callbackServer{state: state, ln: ln, result: make(chan callbackResult, 1)}
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
	c.mu.Unlock()
	if dup {
		reply(http.StatusConflict, "Callback already received")
		return
	}
	code := q.Get("code")
	if e := q.Get("error"); e != "" || code == "" {
		reply(http.StatusBadRequest, "Authorization declined or missing code")
		msg := "the authorization server sent no code"
		if e != "" {
			msg = fmt.Sprintf("authorization declined (%s)", safeCode(e))
		}
		c.result <- callbackResult{err: errors.New(msg)}
		return
	}
	reply(http.StatusOK, "Authorization received. Return to zot.")
	c.result <- callbackResult{code: code}
}

// logoutCommand forgets a server's OAuth credentials.
func (b *Bridge) logoutCommand(ctx context.Context, args []string) (string, error) {
	s, err := b.serverArg("logout", args)
	if err != nil {
		return "", err
	}
	if s.cfg.URL == "" || b.deps == nil || b.deps.oauth == nil {
		return "", s.errorf(KindAuth, nil, "OAuth login requires an HTTP transport; there is nothing to log out of")
	}
	s.cancelLogin()
	wctx, cancel := context.WithTimeout(ctx, b.cmdWait)
	defer cancel()
	removed, err := b.deps.oauth.removeCreds(wctx, s.cfg.URL)
	if err != nil {
		return "", s.errorf(KindAuth, nil, "logout failed: %v", err)
	}
	var shared []string
	for _, n := range b.names {
		if o := b.servers[n]; o.cfg.URL == s.cfg.URL {
			o.Stop(wctx)
			if n != s.cfg.Name {
				shared = append(shared, n)
			}
		}
	}
	if !removed {
		return fmt.Sprintf("No stored OAuth credentials for %s.", s.cfg.Name), nil
	}
	text := fmt.Sprintf("Logged out of %s: its stored OAuth credentials are removed (the tokens are not revoked at the server).", s.cfg.Name)
	if len(shared) > 0 {
		text += " They were shared with " + strings.Join(shared, ", ") + " (same url)."
	}
	return text, nil
}

// oauthDetail is the "oauth:" line of /mcp <server> ("" when there is nothing to say).
func (s *Server) oauthDetail(st Status) string {
	c, err := s.storedCreds()
	switch {
	case err != nil:
		return fmt.Sprintf("%s: run %s, then %s", errBadCredFile, s.d.surface.Cmd("logout", s.cfg.Name), s.d.surface.Cmd("login", s.cfg.Name))
	case c != nil && c.Token != nil:
		return fmt.Sprintf("logged in (credentials stored; %s forgets them)", s.d.surface.Cmd("logout", s.cfg.Name))
	case c != nil || st.NeedsLogin:
		return fmt.Sprintf("needs login: run %s", s.d.surface.Cmd("login", s.cfg.Name))
	}
	return ""
}

// WaitLogin waits until the latest login of the named server has ended (the CLI's
// `login` runs the flow in the foreground) and returns why it failed, or nil when the
// credentials were saved. Its messages have already gone out as notes.
func (b *Bridge) WaitLogin(ctx context.Context, name string) error {
	s, ok := b.servers[name]
	if !ok {
		return fmt.Errorf("unknown server %q", name)
	}
	s.mu.Lock()
	f := s.lastLogin
	s.mu.Unlock()
	if f == nil {
		return errors.New("no login was started")
	}
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
