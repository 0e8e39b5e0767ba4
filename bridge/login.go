package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/redact"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/remote"
)

// /mcp login and /mcp logout.
//
// Login answers at once with the authorization URL (or "still running" if discovery is
// slow) and continues in the background, reporting with notes; the flow's steps are
// remote.Login's (callback server, discovery, registration, PKCE, code exchange). Once
// the credentials are saved, every server with the same url is restarted with them. The
// whole flow ends after remote.LoginTimeout.

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
	if b.deps == nil || b.deps.remote.OAuth == nil || !b.deps.remote.OAuth.SecureURL(c.URL) {
		return s.errorf(KindAuth, nil, "OAuth login requires an HTTPS (or loopback HTTP) resource URL with a host (and no user info); %s is not one", redact.DisplayURL(c))
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
	lctx, flow := s.remote.BeginLogin(b.bgCtx)
	h := &handoff{ch: make(chan loginStart, 1)}
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		defer s.remote.EndLogin(flow)
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
			s.cfg.Name, st.url, remote.LoginTimeout), nil
	}
	return fmt.Sprintf("Log in to MCP server %q: open this URL in your browser (zot is opening it for you):\n  %s\nWaiting up to %s for the authorization; a note reports the outcome.",
		s.cfg.Name, st.url, remote.LoginTimeout), nil
}

// runLogin is the background part of /mcp login.
func (b *Bridge) runLogin(ctx context.Context, s *Server, flow *remote.LoginFlow, h *handoff) {
	l := &loginRun{b: b, s: s, flow: flow, h: h, log: s.d.log.With().Str("server", s.cfg.Name).Logger(), red: redact.New(s.cfg), rl: s.remote.NewLogin()}
	l.log.Info().Msg("OAuth login started")
	defer l.rl.Close()
	if err := l.rl.Listen(); err != nil {
		l.fail(s.remoteErr(err))
		return
	}
	authURL, err := l.rl.AuthorizationURL(ctx)
	if err != nil {
		l.fail(s.remoteErr(err))
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
	creds, err := l.rl.Exchange(ctx, code)
	if err != nil {
		l.fail(s.remoteErr(err))
		return
	}
	if !s.remote.LoginActive(flow) {
		return // replaced by a newer login, or logged out meanwhile
	}
	if err := l.rl.Save(ctx, creds); err != nil {
		l.fail(l.errf("OAuth login: cannot save the credentials: %s", l.rl.Reason(err)))
		return
	}
	l.log.Info().Msg("OAuth login succeeded; credentials saved")
	flow.Finish(nil)
	if !s.remote.LoginActive(flow) {
		return
	}
	l.restartSharing(ctx)
}

// loginRun is one login's state across its steps (runLogin).
type loginRun struct {
	b    *Bridge
	s    *Server
	flow *remote.LoginFlow
	h    *handoff
	log  zerolog.Logger
	red  func(string) string
	rl   *remote.Login // the flow's steps
}

// fail ends the login with err: the command waiting for the start gets it, else a note.
func (l *loginRun) fail(err error) {
	l.flow.Finish(err)
	if !l.h.offer(loginStart{err: err}) && l.s.remote.LoginActive(l.flow) && l.b.bgCtx.Err() == nil {
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

// announce hands the URL to the waiting command (or says it in a note) and opens the
// browser in the background.
func (l *loginRun) announce(ctx context.Context, authURL string) {
	b, name := l.b, l.s.cfg.Name
	if l.h.offer(loginStart{url: authURL}) {
		b.note("info", fmt.Sprintf("MCP login for %q: waiting for the authorization in your browser (up to %s).", name, remote.LoginTimeout))
	} else {
		b.note("info", fmt.Sprintf("MCP login for %q: open this URL in your browser to authorize zot (waiting up to %s):\n  %s", name, remote.LoginTimeout, authURL))
	}
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		if err := l.s.d.remote.OAuth.OpenBrowser(ctx, authURL); err != nil && ctx.Err() == nil {
			l.log.Info().Str("error", l.red(err.Error())).Msg("could not open a browser")
			b.note("warn", fmt.Sprintf("MCP login for %q: could not open a browser (%s); open the URL from %s yourself.", name, l.red(textcut.Truncate(err.Error(), 200)), b.opts.Surface.Cmd("login")))
		}
	}()
}

// awaitCallback waits for the browser's redirect within the login window. It returns ""
// without an error when the window closed first (having ended the flow and said so).
func (l *loginRun) awaitCallback(ctx context.Context) (string, error) {
	name := l.s.cfg.Name
	select {
	case res := <-l.rl.Callback():
		if res.Err != nil {
			return "", l.errf("OAuth login: %v; run %s to try again", res.Err, l.b.opts.Surface.Cmd("login", name))
		}
		return res.Code, nil
	case <-ctx.Done():
		l.flow.Finish(fmt.Errorf("no authorization arrived within %s", remote.LoginTimeout))
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			l.b.note("warn", fmt.Sprintf("MCP login for %q timed out after %s without an authorization; run %s to try again.", name, remote.LoginTimeout, l.b.opts.Surface.Cmd("login", name)))
			l.log.Warn().Msg("OAuth login timed out")
		}
		return "", nil
	}
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

// logoutCommand forgets a server's OAuth credentials.
func (b *Bridge) logoutCommand(ctx context.Context, args []string) (string, error) {
	s, err := b.serverArg("logout", args)
	if err != nil {
		return "", err
	}
	if s.cfg.URL == "" || b.deps == nil || b.deps.remote.OAuth == nil {
		return "", s.errorf(KindAuth, nil, "OAuth login requires an HTTP transport; there is nothing to log out of")
	}
	s.remote.CancelLogin()
	wctx, cancel := context.WithTimeout(ctx, b.cmdWait)
	defer cancel()
	removed, err := b.deps.remote.OAuth.RemoveCreds(wctx, s.cfg.URL)
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

// WaitLogin waits until the latest login of the named server has ended (the CLI's
// `login` runs the flow in the foreground) and returns why it failed, or nil when the
// credentials were saved. Its messages have already gone out as notes.
func (b *Bridge) WaitLogin(ctx context.Context, name string) error {
	s, ok := b.servers[name]
	if !ok {
		return fmt.Errorf("unknown server %q", name)
	}
	f := s.remote.LastLogin()
	if f == nil {
		return errors.New("no login was started")
	}
	return f.Wait(ctx)
}
