package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/fsutil"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/redact"
	"github.com/zot-mcp/mcp-bridge/session"
)

// OAuth for HTTP MCP servers, built on mcp-go's OAuthHandler.
//
//   - Credentials live in <zotHome>/mcp-oauth/<sha256 hex of the exact url>.json (directory
//     0700, file 0600, replaced atomically): the dynamically registered client (id, secret,
//     token endpoint auth method), the token endpoint of the login and the token. Servers
//     with the same url share them.
//   - Connecting: when a client is stored, the transport gets an OAuth config whose token
//     store is that file. OAuth requests (discovery, refresh) go through our HTTP layer too
//     (configured headers for the server's own origin, never an Authorization header), and
//     only over HTTPS, or plain HTTP to a loopback host (see secure).
//   - Refresh: the store refreshes a token that is about to expire itself, holding a
//     cross-process file lock around read-refresh-write, so two zot sessions never spend
//     the same refresh token. mcp-go only ever sees a valid token or none ("needs login").
//     Expiry is judged on the bridge's clock. A refresh only goes to the origin of the
//     token endpoint the login used (recorded in the file), whatever the metadata found
//     through the server says later.
//   - Bounds (oauth_bounds.go): every OAuth answer is read within 1 MiB, a token is kept
//     only up to 64 KiB and the file only when readCreds would read it back.
//   - Nothing in the background starts a login: a 401 that announces OAuth (RFC 9728
//     resource_metadata) or a missing/refused token marks the server "needs login".
//   - /mcp login runs the authorization code flow with PKCE (login.go).
//   - No token, refresh token, client secret, code or verifier is ever put in a log line,
//     an error, a note or the status output; a corrupt credential file gives a generic
//     error without its contents.

const (
	oauthDirName = "mcp-oauth"
	// LoginTimeout bounds a whole login, on the bridge's clock.
	LoginTimeout        = 5 * time.Minute
	openTimeout         = 10 * time.Second
	oauthRequestTimeout = 30 * time.Second
	callbackReadTimeout = 5 * time.Second
	// refreshSkew is how long before its expiry a token is refreshed (at most half its
	// lifetime).
	refreshSkew  = 30 * time.Second
	maxCredBytes = 1 << 20
)

// errBadCredFile is the only thing said about a credential file that cannot be read.
var errBadCredFile = errors.New("invalid OAuth credential file")

// OAuthHooks are the test seams of OAuth. Zero values mean production behaviour.
type OAuthHooks struct {
	// Open opens the authorization URL (nil: the platform's opener). It is only called
	// with a URL that passed checkBrowserURL.
	Open func(ctx context.Context, url string) error
}

// OAuth is what every server shares for OAuth: the credential store's directory, the
// browser opener and the refresh tokens this process saw refused.
type OAuth struct {
	dir   string
	hooks OAuthHooks
	// Browser is $BROWSER: the user's choice of opener, used before the platform's.
	Browser string

	spentMu sync.Mutex
	// spent is, per credential file, the refresh token the authorization server last
	// refused. It is never sent again by this process, even when removing it from the
	// file failed (the file is the guard across processes; this one is ours).
	spent map[string]string
}

// markSpent records that the authorization server refused refreshToken of credPath.
func (e *OAuth) markSpent(credPath, refreshToken string) {
	if e == nil {
		return
	}
	e.spentMu.Lock()
	defer e.spentMu.Unlock()
	if e.spent == nil {
		e.spent = map[string]string{}
	}
	e.spent[credPath] = refreshToken
}

// isSpent says whether refreshToken of credPath was refused before.
func (e *OAuth) isSpent(credPath, refreshToken string) bool {
	if e == nil {
		return false
	}
	e.spentMu.Lock()
	defer e.spentMu.Unlock()
	return refreshToken != "" && e.spent[credPath] == refreshToken
}

// NewOAuth is the OAuth state of a bridge whose credentials live under zotHome.
func NewOAuth(zotHome string, hooks OAuthHooks) *OAuth {
	return &OAuth{dir: filepath.Join(zotHome, oauthDirName), hooks: hooks}
}

// credPath is the credential file of a server url.
func (e *OAuth) credPath(serverURL string) string {
	sum := sha256.Sum256([]byte(serverURL))
	return filepath.Join(e.dir, hex.EncodeToString(sum[:])+".json")
}

func lockPathOf(credPath string) string { return strings.TrimSuffix(credPath, ".json") + ".lock" }

// secure says whether u may carry OAuth traffic: HTTPS with a host and no user info, or
// plain HTTP to a loopback host (OAuth 2.1 and the MCP authorization spec allow it: the
// traffic never leaves the machine, and local servers and test suites use it). It is the
// one URL rule of OAuth endpoints, the login's browser URL and elicitation URLs.
func (e *OAuth) secure(u *url.URL) bool {
	if u == nil || u.Host == "" || u.Hostname() == "" || u.User != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return true
	case "http":
		return isLoopbackHost(u.Hostname())
	}
	return false
}

// SecureURL says whether raw is a URL that may carry OAuth traffic (secure).
func (e *OAuth) SecureURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && e.secure(u)
}

// isLoopbackHost says whether a URL's host name is the loopback interface: localhost, or
// a literal address in 127.0.0.0/8 or ::1 (no DNS lookup: a name that merely resolves
// to a loopback address is not trusted).
func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}

// oauthCreds is the credential file.
type oauthCreds struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthMethod   string `json:"token_endpoint_auth_method,omitempty"`
	// TokenEndpoint is where the login exchanged its code: refreshes go to its origin
	// only ("": a file saved before it was recorded, not checked).
	TokenEndpoint string `json:"token_endpoint,omitempty"`
	// Registration is how the client came to be (regPreRegistered, regMetadataDoc,
	// regDynamic; "": a dynamic registration saved before it was recorded).
	Registration string `json:"registration,omitempty"`
	// ConfigSecret: the client's secret is the entry's oauth.clientSecret, read from the
	// config at each use and never written here.
	ConfigSecret bool `json:"config_secret,omitempty"`
	// Grant is config.GrantClientCredentials for a machine-to-machine token (renewed
	// with the client's credentials, never with a refresh token); "": a login's.
	Grant string `json:"grant,omitempty"`
	// Scopes are what the login requested, and StepUpScopes what the server asked for
	// since in a 403 insufficient_scope: the next login requests their union.
	Scopes       []string `json:"scopes,omitempty"`
	StepUpScopes []string `json:"step_up_scopes,omitempty"`
	// Issuer is the authorization server the client and the token belong to (""
	// before it was recorded): a refresh is refused when the metadata now names another,
	// and a client-credentials assertion is addressed to it.
	Issuer string `json:"issuer,omitempty"`
	// Resource is the resource indicator the token was requested for, exactly as the
	// protected-resource metadata published it, and ResourceMetadata where that was
	// found ("": none, a 2025-03-26 server).
	Resource         string           `json:"resource,omitempty"`
	ResourceMetadata string           `json:"resource_metadata,omitempty"`
	Token            *transport.Token `json:"token,omitempty"`
}

// readCreds reads a credential file: nil without error when there is none, errBadCredFile
// (and nothing of the contents) when it cannot be used.
func readCreds(path string) (*oauthCreds, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w (cannot read it: %v)", errBadCredFile, pathErrReason(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCredBytes+1))
	if err != nil || len(data) > maxCredBytes {
		return nil, errBadCredFile
	}
	var c oauthCreds
	if json.Unmarshal(data, &c) != nil || c.ClientID == "" {
		return nil, errBadCredFile
	}
	return &c, nil
}

// pathErrReason is the reason of a file error without the path (which is safe, but long).
func pathErrReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeCreds replaces a credential file, never with one readCreds would refuse (the old
// file is then left as it is).
func writeCreds(path string, c *oauthCreds) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if len(data)+1 > maxCredBytes {
		return fmt.Errorf("the OAuth credentials would take %d KiB, over the %d KiB the bridge reads back, so they were not saved; report it to the server's operator",
			(len(data)+1+1023)>>10, maxCredBytes>>10)
	}
	if err := ensurePrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, append(data, '\n'))
}

func ensurePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(dir, 0o700)
}

// lockCreds takes the cross-process lock of a credential file, waiting until it is
// acquired or ctx ends, and returns the function that releases it.
func lockCreds(ctx context.Context, credPath string) (func(), error) {
	if err := ensurePrivateDir(filepath.Dir(credPath)); err != nil {
		return nil, err
	}
	unlock, err := fsutil.Lock(ctx, lockPathOf(credPath))
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("locking the OAuth credential file: %w", pathErrReason(err))
	}
	return unlock, nil
}

// RemoveCreds deletes a url's credentials; removed says whether there were any.
func (e *OAuth) RemoveCreds(ctx context.Context, serverURL string) (removed bool, err error) {
	path := e.credPath(serverURL)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	unlock, err := lockCreds(ctx, path)
	if err != nil {
		return false, err
	}
	err = os.Remove(path)
	unlock()
	_ = os.Remove(lockPathOf(path))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("removing the OAuth credential file: %w", pathErrReason(err))
	}
	return true, nil
}

// lockHeldKey marks a context whose caller holds the lock of the credential file named
// by the value (so SaveToken, called back by mcp-go during our refresh, does not wait
// for it).
type lockHeldKey struct{}

func holdsLock(ctx context.Context, path string) bool {
	p, _ := ctx.Value(lockHeldKey{}).(string)
	return p == path
}

// tokenStore is mcp-go's TokenStore over a credential file.
type tokenStore struct {
	path  string
	clock clock.Clock
	log   func(msg string)
	// warn reports a problem the user must act on (nil: none is reported).
	warn func(msg string)
	// relogin is what to run to start over (logout, then login).
	relogin string
	// env remembers refused refresh tokens across connections (nil: nothing remembered).
	env *OAuth
	// handler refreshes tokens; set once after the transport is built, before any
	// request.
	handler *transport.OAuthHandler
	// renew gets a new client-credentials token for c (nil: the entry does not use the
	// client-credentials grant).
	renew func(ctx context.Context, c *oauthCreds) (*transport.Token, error)
	mu    sync.Mutex // one refresh at a time through this store
}

func (s *Server) newTokenStore() *tokenStore {
	st := s.newFileStore()
	if s.cfg.OAuth.ClientCredentials() {
		st.renew = func(ctx context.Context, c *oauthCreds) (*transport.Token, error) {
			rt := s.newHeaderTransport("", nil)
			defer rt.CloseIdleConnections()
			return s.clientCredentialsToken(ctx, s.oauthClient(rt), c)
		}
	}
	return st
}

func (s *Server) newFileStore() *tokenStore {
	return &tokenStore{path: s.d.OAuth.credPath(s.cfg.URL), clock: s.d.Clock, log: func(msg string) {
		s.d.Log.Info().Str("server", s.cfg.Name).Msg(msg)
	}, warn: func(msg string) {
		s.d.Log.Warn().Str("server", s.cfg.Name).Msg(msg)
	}, relogin: s.d.Cmd("logout", s.cfg.Name) + " then " + s.d.Cmd("login", s.cfg.Name), env: s.d.OAuth}
}

// stamp returns a copy of t whose expiry is computed on the bridge's clock.
func (st *tokenStore) stamp(t *transport.Token) *transport.Token {
	c := *t
	if c.ExpiresIn > 0 {
		c.ExpiresAt = st.clock.Now().Add(time.Duration(c.ExpiresIn) * time.Second)
	}
	return &c
}

// expiring says whether t must be refreshed before use.
func (st *tokenStore) expiring(t *transport.Token) bool {
	if t.ExpiresAt.IsZero() {
		return false
	}
	skew := refreshSkew
	if life := time.Duration(t.ExpiresIn) * time.Second; life > 0 && life/2 < skew {
		skew = life / 2
	}
	return !st.clock.Now().Add(skew).Before(t.ExpiresAt)
}

// forHandler is the copy of a valid token mcp-go gets: without an expiry, since we judge
// expiry (on our clock) and refresh ourselves.
func forHandler(t *transport.Token) *transport.Token {
	c := *t
	c.ExpiresAt = time.Time{}
	return &c
}

// GetToken implements transport.TokenStore: a valid token, refreshed first when it is
// about to expire; transport.ErrNoToken (so: "needs login") when there is none or the
// authorization server refused the refresh.
func (st *tokenStore) GetToken(ctx context.Context) (*transport.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := readCreds(st.path)
	if err != nil {
		return nil, err
	}
	if c != nil && c.Grant == config.GrantClientCredentials && st.renew != nil && !holdsLock(ctx, st.path) &&
		(c.Token == nil || st.expiring(c.Token)) {
		return st.renewClientCredentials(ctx)
	}
	if c == nil || c.Token == nil || c.Token.AccessToken == "" {
		return nil, transport.ErrNoToken
	}
	if !st.expiring(c.Token) {
		return forHandler(c.Token), nil
	}
	if c.Token.RefreshToken == "" || st.handler == nil || holdsLock(ctx, st.path) {
		return nil, fmt.Errorf("%w: the OAuth token expired", transport.ErrNoToken)
	}
	return st.refresh(ctx)
}

// renewClientCredentials gets a new client-credentials token under the file lock, unless
// another session did it meanwhile.
func (st *tokenStore) renewClientCredentials(ctx context.Context) (*transport.Token, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	unlock, err := lockCreds(ctx, st.path)
	if err != nil {
		return nil, fmt.Errorf("OAuth client-credentials token: %w", err)
	}
	defer unlock()
	c, err := readCreds(st.path)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, transport.ErrNoToken
	}
	if c.Token != nil && c.Token.AccessToken != "" && !st.expiring(c.Token) {
		return forHandler(c.Token), nil
	}
	rctx, cancel := clock.WithTimeout(ctx, st.clock, oauthRequestTimeout)
	defer cancel()
	tok, err := st.renew(rctx, c)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var oe transport.OAuthError
		if errors.As(err, &oe) {
			return nil, fmt.Errorf("%w: the authorization server refused the client credentials (%s)", transport.ErrNoToken, safeCode(oe.ErrorCode))
		}
		return nil, fmt.Errorf("OAuth client-credentials token request failed: %s", textcut.Truncate(err.Error(), 300))
	}
	c.Token = st.stamp(tok)
	if err := writeCreds(st.path, c); err != nil {
		return nil, err
	}
	st.log("OAuth client-credentials token renewed")
	return forHandler(c.Token), nil
}

// refresh refreshes the stored token under the file lock, unless another session did it
// meanwhile.
func (st *tokenStore) refresh(ctx context.Context) (*transport.Token, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	unlock, err := lockCreds(ctx, st.path)
	if err != nil {
		return nil, fmt.Errorf("OAuth token refresh: %w", err)
	}
	defer unlock()
	c, err := readCreds(st.path)
	if err != nil {
		return nil, err
	}
	if c == nil || c.Token == nil || c.Token.AccessToken == "" {
		return nil, transport.ErrNoToken
	}
	if !st.expiring(c.Token) {
		return forHandler(c.Token), nil // refreshed by someone else meanwhile
	}
	old := c.Token
	if st.env.isSpent(st.path, old.RefreshToken) {
		// Refused before, and still in the file because forgetting it failed.
		return nil, fmt.Errorf("%w: the authorization server refused this token's refresh earlier", transport.ErrNoToken)
	}
	rctx, cancel := clock.WithTimeout(context.WithValue(ctx, lockHeldKey{}, st.path), st.clock, oauthRequestTimeout)
	defer cancel()
	if err := st.checkTokenEndpoint(rctx, c); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	// The check above reads the metadata mcp-go has now; the refresh reads it again, and a
	// 401 on another request may have had it fetched anew meanwhile, or the token endpoint
	// may answer with a 307 elsewhere: the token request itself is held to the origin too.
	if was, ok := endpointOrigin(c.TokenEndpoint); ok {
		rctx = context.WithValue(rctx, tokenOriginKey{}, was)
	}
	tok, err := st.handler.RefreshToken(rctx, old.RefreshToken)
	if err == nil {
		st.log("OAuth token refreshed")
		return forHandler(tok), nil
	}
	var moved *tokenOriginError
	if errors.As(err, &moved) {
		return nil, st.endpointMoved(moved.was, moved.now)
	}
	red := redact.New(nil, old.AccessToken, old.RefreshToken, c.ClientSecret)
	var oe transport.OAuthError
	if errors.As(err, &oe) {
		// The authorization server refused: the login is over. Forget the token (keep
		// the client) so later requests do not send the spent refresh token again.
		st.env.markSpent(st.path, old.RefreshToken)
		c.Token = nil
		if werr := writeCreds(st.path, c); werr != nil && st.warn != nil {
			st.warn(fmt.Sprintf("OAuth token refresh refused, and the refused token could not be removed from the credential file %s (%v): "+
				"this session will not send it again, but another zot session may; run %s", st.path, pathErrReason(werr), st.relogin))
		}
		st.log("OAuth token refresh refused; login needed")
		return nil, fmt.Errorf("%w: the authorization server refused the token refresh (%s)", transport.ErrNoToken, safeCode(oe.ErrorCode))
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("OAuth token refresh failed: %s", red(textcut.Truncate(err.Error(), 300)))
}

// checkTokenEndpoint refuses a refresh when the token endpoint the server's metadata names
// now is on another origin than the one the login exchanged its code at: the refresh
// token and the client's credentials belong to that authorization server, and the
// metadata is found through the MCP server, which must not be able to have them sent
// elsewhere. The refusal means "needs login": a new login shows the user the new
// authorization server.
func (st *tokenStore) checkTokenEndpoint(ctx context.Context, c *oauthCreds) error {
	if c.TokenEndpoint == "" {
		return nil
	}
	md, err := st.handler.GetServerMetadata(ctx)
	if err != nil {
		return fmt.Errorf("OAuth token refresh failed: %s", redact.New(nil, c.ClientSecret)(textcut.Truncate(err.Error(), 300)))
	}
	// Credentials belong to the authorization server that issued them: when the server
	// now names another, its client must be registered there anew (a login), and its
	// refresh token is not sent.
	if c.Issuer != "" && md.Issuer != c.Issuer {
		return st.issuerChanged(c.Issuer, md.Issuer)
	}
	was, wok := endpointOrigin(c.TokenEndpoint)
	now, nok := endpointOrigin(md.TokenEndpoint)
	if wok && nok && was == now {
		return nil
	}
	return st.endpointMoved(was, now)
}

// issuerChanged is the refusal of a refresh because the server's authorization server
// is now another one (warned, and "needs login").
func (st *tokenStore) issuerChanged(was, now string) error {
	msg := fmt.Sprintf("the server's OAuth metadata now names the authorization server %s, not %s where its login registered; its credentials are not used there: run %s to log in with the new one",
		textcut.Truncate(safetext.Sanitize(now), 200), textcut.Truncate(was, 200), st.relogin)
	if st.warn != nil {
		st.warn(msg)
	}
	return fmt.Errorf("%w: %s", transport.ErrNoToken, msg)
}

// endpointMoved is the refusal of a refresh whose token request would go to origin now
// instead of was, the token endpoint's origin at the login (warned, and "needs login").
func (st *tokenStore) endpointMoved(was, now string) error {
	msg := fmt.Sprintf("the server's OAuth metadata now names a token endpoint on %s, not on %s where its login got the token; the refresh token is not sent there: run %s if the change is expected",
		now, was, st.relogin)
	if st.warn != nil {
		st.warn(msg)
	}
	return fmt.Errorf("%w: %s", transport.ErrNoToken, msg)
}

// tokenOriginKey marks the context of a refresh with the origin (endpointOrigin) of the
// token endpoint the login used: oauthTransport sends no token request elsewhere.
type tokenOriginKey struct{}

// tokenOriginError is a refresh's token request (a POST: the refresh token and the
// client's credentials in it) that was not sent, because it was for origin now and not
// was (tokenOriginKey).
type tokenOriginError struct{ was, now string }

func (e *tokenOriginError) Error() string {
	return "the token request was for " + e.now + ", not for " + e.was + " where the login got the token, so it was not sent"
}

// endpointOrigin is the origin of an endpoint's URL (originOf), for messages "an
// unreadable URL" and false when it has none.
func endpointOrigin(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "an unreadable URL", false
	}
	return originOf(u), true
}

// SaveToken implements transport.TokenStore (mcp-go calls it after a refresh).
func (st *tokenStore) SaveToken(ctx context.Context, t *transport.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !holdsLock(ctx, st.path) {
		unlock, err := lockCreds(ctx, st.path)
		if err != nil {
			return err
		}
		defer unlock()
	}
	c, err := readCreds(st.path)
	if err != nil {
		return err
	}
	if c == nil {
		return errors.New("the OAuth credentials were removed (logged out)")
	}
	if err := checkTokenSize(t); err != nil {
		return err
	}
	c.Token = st.stamp(t)
	return writeCreds(st.path, c)
}

// safeCode keeps an OAuth error code printable and short (it comes from the server).
func safeCode(code string) string {
	var sb strings.Builder
	for _, r := range code {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' {
			sb.WriteRune(r)
		}
		if sb.Len() >= 64 {
			break
		}
	}
	if sb.Len() == 0 {
		return "no error code"
	}
	return sb.String()
}

// oauthTransport carries OAuth requests (discovery, registration, token): HTTPS only, the
// configured headers on the server's own origin (except Authorization) and the redirect
// rule, through the connection's HTTP transport; with whole, every answer is read here
// within maxAuthBody (readWhole).
type oauthTransport struct {
	t     *Transport
	env   *OAuth
	whole bool
}

func (o *oauthTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !o.env.secure(req.URL) {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, fmt.Errorf("refusing to send an OAuth request to %s: it must use HTTPS (plain HTTP only to a loopback host)", req.URL.Host)
	}
	req, err := o.t.prepare(req, true)
	if err != nil {
		return nil, err
	}
	// A refresh's token request, or a 307/308 hop of it (a POST still, its body resent),
	// goes only to the origin of the login's token endpoint; the metadata requests of a
	// refresh (GETs) may go elsewhere, and carry no secret.
	if was, ok := req.Context().Value(tokenOriginKey{}).(string); ok && req.Method == http.MethodPost && originOf(req.URL) != was {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, &tokenOriginError{was: was, now: originOf(req.URL)}
	}
	resp, err := o.t.base.RoundTrip(req)
	if err != nil || !o.whole {
		return resp, err
	}
	return readWhole(req, resp)
}

// oauthClient is the HTTP client of OAuth requests made for s over rt's connections: every
// answer is read whole, within maxAuthBody.
func (s *Server) oauthClient(rt *Transport) *http.Client {
	return &http.Client{Transport: &oauthTransport{t: rt, env: s.d.OAuth, whole: true}, Timeout: oauthRequestTimeout}
}

// probeClient is the HTTP client of the login's unauthenticated requests to the server url
// (discoverResource): they only read the answer's headers, and the answer may be an
// endless event stream, so its body is left unread.
func (s *Server) probeClient(rt *Transport) *http.Client {
	return &http.Client{Transport: &oauthTransport{t: rt, env: s.d.OAuth}, Timeout: oauthRequestTimeout}
}

// storedCreds returns the server's stored OAuth client, if any.
func (s *Server) storedCreds() (*oauthCreds, error) {
	if s.d.OAuth == nil || s.cfg.URL == "" {
		return nil, nil
	}
	return readCreds(s.d.OAuth.credPath(s.cfg.URL))
}

// oauthConfig is the transport's OAuth config for stored credentials.
func (s *Server) oauthConfig(c *oauthCreds, rt *Transport, store *tokenStore) transport.OAuthConfig {
	return transport.OAuthConfig{ClientID: c.ClientID, ClientSecret: s.clientSecret(c), TokenEndpointAuthMethod: c.AuthMethod,
		PKCEEnabled: true, TokenStore: store, HTTPClient: s.oauthClient(rt)}
}

// clientSecret is the secret of the stored client: the file's, or the entry's
// oauth.clientSecret for a configured client.
func (s *Server) clientSecret(c *oauthCreds) string {
	if !c.ConfigSecret {
		return c.ClientSecret
	}
	if s.cfg.OAuth == nil {
		return ""
	}
	return s.cfg.OAuth.ClientSecret
}

// badCredsError words an unusable credential file.
func (s *Server) badCredsError() *session.Error {
	return errorf(session.KindAuth, nil, "%s for %s; run %s, then %s", errBadCredFile, redact.DisplayURL(s.cfg), s.d.Cmd("logout", s.cfg.Name), s.d.Cmd("login", s.cfg.Name))
}

// ErrElicitURL is what is said about a URL the bridge will not show or open.
var ErrElicitURL = errors.New("the URL is not a plain https (or loopback http) URL with a host and no user name or password")

// CheckElicitURL accepts what may be shown to the user and opened in a browser: the
// OAuth check (https or loopback http, a host, no user info, no quoting characters).
func (e *OAuth) CheckElicitURL(raw string) error {
	if e.checkBrowserURL(raw) != nil {
		return ErrElicitURL
	}
	return nil
}
