package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
	"github.com/zot-mcp/mcp-bridge/redact"
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
func (b host) loginCheck(s Server) error {
	if s.Pending() { // a login contacts the server
		return s.ApprovalErr()
	}
	c := s.Config()
	if c.Transport != config.TransportStreamableHTTP && c.Transport != config.TransportSSE {
		if c.Err != "" {
			return s.ConfigError("config error: %s", c.Err)
		}
		return s.AuthError("OAuth login requires an HTTP transport (streamable-http or sse); this server runs a command")
	}
	if c.Err != "" {
		return s.ConfigError("config error: %s", c.Err)
	}
	if o := b.OAuth(); o == nil || !o.SecureURL(c.URL) {
		return s.AuthError("OAuth login requires an HTTPS (or loopback HTTP) resource URL with a host (and no user info); %s is not one", redact.DisplayURL(c))
	}
	return nil
}

// serverArg resolves the one server name of login/logout.
func (b host) serverArg(sub string, args []string) (Server, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("usage: %s <server>; servers: %s", b.Surface().Cmd(sub), b.serverList())
	}
	s, ok := b.Server(args[0])
	if !ok {
		return nil, fmt.Errorf("unknown server %q.%s Servers: %s", args[0], textdist.Suggest(args[0], b.Names()), b.serverList())
	}
	return s, nil
}

// loginStart is what the command waits for: the authorization URL or an early failure.
type loginStart struct {
	url string
	err error
	// done is the answer of a login that needed no browser (client credentials).
	done string
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

// loginCommand serves /mcp login <server>.
func (b host) loginCommand(ctx context.Context, args []string) (string, error) {
	s, err := b.serverArg("login", args)
	if err != nil {
		return "", err
	}
	if err := b.loginCheck(s); err != nil {
		return "", err
	}
	lctx, flow := s.Remote().BeginLogin(b.BackgroundContext())
	h := &handoff{ch: make(chan loginStart, 1)}
	b.Background(func(bgCtx context.Context) {
		defer s.Remote().EndLogin(flow)
		b.runLogin(lctx, bgCtx, s, flow, h)
	})
	// ctx's deadline, when earlier than the wait, ends the select through ctx.Done.
	waited, stop := b.CommandWait()
	defer stop()
	var st loginStart
	select {
	case st = <-h.ch:
	case <-waited:
	case <-ctx.Done():
	}
	if st.done != "" {
		return st.done, nil
	}
	if st.url == "" && st.err == nil {
		var ok bool
		if st, ok = h.giveUp(); !ok {
			return fmt.Sprintf("%s is still running (discovering the server's authorization endpoints); a note will show the URL to open.", b.Surface().Cmd("login", s.Config().Name)), nil
		}
	}
	if st.err != nil {
		return "", st.err
	}
	if b.Surface().Terminal() {
		return fmt.Sprintf("Log in to MCP server %q: open this URL in your browser (opening it for you):\n  %s\nWaiting up to %s for the authorization.",
			s.Config().Name, st.url, remote.LoginTimeout), nil
	}
	return fmt.Sprintf("Log in to MCP server %q: open this URL in your browser (zot is opening it for you):\n  %s\nWaiting up to %s for the authorization; a note reports the outcome.",
		s.Config().Name, st.url, remote.LoginTimeout), nil
}

// runLogin is the background part of /mcp login; bgCtx ends when the host closes.
func (b host) runLogin(ctx, bgCtx context.Context, s Server, flow *remote.LoginFlow, h *handoff) {
	l := &loginRun{b: b, bgCtx: bgCtx, s: s, flow: flow, h: h, log: s.Log().With().Str("server", s.Config().Name).Logger(), red: redact.New(s.Config()), rl: s.Remote().NewLogin()}
	l.log.Info().Msg("OAuth login started")
	defer l.rl.Close()
	if s.Config().OAuth.ClientCredentials() {
		l.clientCredentials(ctx)
		return
	}
	if err := l.rl.Listen(); err != nil {
		l.fail(s.RemoteErr(err))
		return
	}
	authURL, err := l.rl.AuthorizationURL(ctx)
	if err != nil {
		l.fail(s.RemoteErr(err))
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
		l.fail(s.RemoteErr(err))
		return
	}
	if !s.Remote().LoginActive(flow) {
		return // replaced by a newer login, or logged out meanwhile
	}
	if err := l.rl.Save(ctx, creds); err != nil {
		l.fail(l.errf("OAuth login: cannot save the credentials: %s", l.rl.Reason(err)))
		return
	}
	l.log.Info().Msg("OAuth login succeeded; credentials saved")
	flow.Finish(nil)
	if !s.Remote().LoginActive(flow) {
		return
	}
	l.restartSharing(ctx)
}

// clientCredentials is the login of a machine-to-machine server: a token for the entry's
// client credentials, no browser.
func (l *loginRun) clientCredentials(ctx context.Context) {
	creds, err := l.rl.ClientCredentials(ctx)
	if err != nil {
		l.fail(l.s.RemoteErr(err))
		return
	}
	if !l.s.Remote().LoginActive(l.flow) {
		return
	}
	if err := l.rl.Save(ctx, creds); err != nil {
		l.fail(l.errf("OAuth login: cannot save the credentials: %s", l.rl.Reason(err)))
		return
	}
	l.log.Info().Msg("OAuth client-credentials token received; credentials saved")
	l.flow.Finish(nil)
	l.h.offer(loginStart{done: fmt.Sprintf("Got an OAuth token for MCP server %q with its client credentials (oauth in %s); it is renewed the same way when it expires.",
		l.s.Config().Name, l.s.Config().Source)})
	if l.s.Remote().LoginActive(l.flow) {
		l.restartSharing(ctx)
	}
}

// loginRun is one login's state across its steps (runLogin).
type loginRun struct {
	b     host
	bgCtx context.Context // ends when the host closes
	s     Server
	flow  *remote.LoginFlow
	h     *handoff
	log   zerolog.Logger
	red   func(string) string
	rl    *remote.Login // the flow's steps
}

// fail ends the login with err: the command waiting for the start gets it, else a note.
func (l *loginRun) fail(err error) {
	l.flow.Finish(err)
	if !l.h.offer(loginStart{err: err}) && l.s.Remote().LoginActive(l.flow) && l.bgCtx.Err() == nil {
		l.b.Note("warn", err.Error())
	}
	l.log.Warn().Str("error", err.Error()).Msg("OAuth login failed")
}

// errf is a login failure, redacted.
func (l *loginRun) errf(format string, args ...any) error {
	return l.s.AuthError("%s", l.red(fmt.Sprintf(format, args...)))
}

// announce hands the URL to the waiting command (or says it in a note) and opens the
// browser in the background.
func (l *loginRun) announce(ctx context.Context, authURL string) {
	b, name := l.b, l.s.Config().Name
	if l.h.offer(loginStart{url: authURL}) {
		b.Note("info", fmt.Sprintf("MCP login for %q: waiting for the authorization in your browser (up to %s).", name, remote.LoginTimeout))
	} else {
		b.Note("info", fmt.Sprintf("MCP login for %q: open this URL in your browser to authorize zot (waiting up to %s):\n  %s", name, remote.LoginTimeout, authURL))
	}
	b.Background(func(context.Context) {
		if err := l.b.OAuth().OpenBrowser(ctx, authURL); err != nil && ctx.Err() == nil {
			l.log.Info().Str("error", l.red(err.Error())).Msg("could not open a browser")
			b.Note("warn", fmt.Sprintf("MCP login for %q: could not open a browser (%s); open the URL from %s yourself.", name, l.red(textcut.Truncate(err.Error(), 200)), b.Surface().Cmd("login")))
		}
	})
}

// awaitCallback waits for the browser's redirect within the login window. It returns ""
// without an error when the window closed first (having ended the flow and said so).
func (l *loginRun) awaitCallback(ctx context.Context) (string, error) {
	name := l.s.Config().Name
	select {
	case res := <-l.rl.Callback():
		if res.Err != nil {
			return "", l.errf("OAuth login: %v; run %s to try again", res.Err, l.b.Surface().Cmd("login", name))
		}
		return res.Code, nil
	case <-ctx.Done():
		l.flow.Finish(fmt.Errorf("no authorization arrived within %s", remote.LoginTimeout))
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			l.b.Note("warn", fmt.Sprintf("MCP login for %q timed out after %s without an authorization; run %s to try again.", name, remote.LoginTimeout, l.b.Surface().Cmd("login", name)))
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
	for _, n := range b.Names() {
		o, _ := b.Server(n)
		if o.Config().URL != s.Config().URL || (o.Config().Transport != config.TransportStreamableHTTP && o.Config().Transport != config.TransportSSE) {
			continue
		}
		o.Stop(ctx)
		o.LoggedIn()
		if o.Config().Usable() {
			names = append(names, n)
		}
	}
	msg := fmt.Sprintf("Logged in to MCP server %q; the OAuth credentials are saved.", s.Config().Name)
	level := "success"
	if len(names) > 0 {
		r := b.Refresh(ctx, names)
		switch {
		case len(r.Failed) > 0:
			level = "warn"
			msg += " Listing its tools failed: " + strings.Join(r.Failed, "; ")
		case r.SaveErr != "":
			level = "warn"
			msg += " Its tools were listed, but " + r.SaveErr + "."
		case len(r.Changed) > 0:
			msg += fmt.Sprintf(" Tools listed for %s: %s.", strings.Join(r.Changed, ", "), b.Surface().ToolsChanged(b.proxy()))
		default:
			msg += " Its tools are unchanged."
		}
	}
	b.Note(level, msg)
}

// logoutCommand forgets a server's OAuth credentials.
func (b host) logoutCommand(ctx context.Context, args []string) (string, error) {
	s, err := b.serverArg("logout", args)
	if err != nil {
		return "", err
	}
	if s.Config().URL == "" || b.OAuth() == nil {
		return "", s.AuthError("OAuth login requires an HTTP transport; there is nothing to log out of")
	}
	s.Remote().CancelLogin()
	wctx, cancel := b.CommandContext(ctx)
	defer cancel()
	removed, err := b.OAuth().RemoveCreds(wctx, s.Config().URL)
	if err != nil {
		return "", s.AuthError("logout failed: %v", err)
	}
	var shared []string
	for _, n := range b.Names() {
		if o, _ := b.Server(n); o.Config().URL == s.Config().URL {
			o.Stop(wctx)
			if n != s.Config().Name {
				shared = append(shared, n)
			}
		}
	}
	if !removed {
		return fmt.Sprintf("No stored OAuth credentials for %s.", s.Config().Name), nil
	}
	text := fmt.Sprintf("Logged out of %s: its stored OAuth credentials are removed (the tokens are not revoked at the server).", s.Config().Name)
	if len(shared) > 0 {
		text += " They were shared with " + strings.Join(shared, ", ") + " (same url)."
	}
	return text, nil
}

// WaitLogin waits until the latest login of the named server has ended (the CLI's
// `login` runs the flow in the foreground) and returns why it failed, or nil when the
// credentials were saved. Its messages have already gone out as notes.
func WaitLogin(ctx context.Context, b Host, name string) error {
	s, ok := b.Server(name)
	if !ok {
		return fmt.Errorf("unknown server %q", name)
	}
	f := s.Remote().LastLogin()
	if f == nil {
		return errors.New("no login was started")
	}
	return f.Wait(ctx)
}
