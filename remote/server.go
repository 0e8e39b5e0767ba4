package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/redact"
	"github.com/zot-mcp/mcp-bridge/session"
)

// Deps is what every remote server shares with the bridge.
type Deps struct {
	Log   zerolog.Logger
	Clock clock.Clock
	// Resolver resolves host names (nil: the system resolver).
	Resolver *net.Resolver
	// OAuth is the credential store and its test hooks (nil: no OAuth).
	OAuth *OAuth
	// Cmd names a command as the user types it where they read the message (/mcp login x
	// in zot, mcp-bridge login x on the CLI).
	Cmd func(sub string, args ...string) string
	// ClientName is what the bridge calls itself (OAuth client registration).
	ClientName string
	// Answered, when set, is told of every HTTP answer a server's transport receives, so
	// that a test can wait for one instead of for time; nil in production.
	Answered func(method string, status int)
	// MaxReply bounds one message a server sends (0: session.DefaultMaxReply): the cap
	// stdio servers' replies have (MCP_BRIDGE_MAX_REPLY_MB).
	MaxReply int

	// base, when set, is the HTTP transport under every connection (tests: one that
	// trusts a test server's certificate); nil: a new one per connection.
	base *http.Transport
}

// Server is what outlives one HTTP session of a configured server: the transport that
// worked last (for a url-only entry) and its logins. The state machine holds one per
// HTTP server and opens sessions through it (Open).
type Server struct {
	cfg *config.Server
	d   *Deps
	// needsLogin: the server answered that it wants an OAuth login (cleared by a
	// successful connect, request or login).
	needsLogin atomic.Bool

	mu sync.Mutex
	// remembered is, for a url-only server, the transport that worked last; the next
	// connect tries it first.
	remembered config.Transport
	login      *LoginFlow // the login in progress, if any
	lastLogin  *LoginFlow // the latest login, running or ended (LastLogin)
}

// NewServer is the remote side of cfg: the connector of its HTTP sessions (Open), with
// what outlives them.
func NewServer(cfg *config.Server, d *Deps) *Server {
	return &Server{cfg: cfg, d: d}
}

// Config is the server's configuration.
func (s *Server) Config() *config.Server { return s.cfg }

// markNeedsLogin notes that the server wants a login.
func (s *Server) markNeedsLogin() { s.needsLogin.Store(true) }

// NeedsLogin reports whether the server answered that it wants an OAuth login and has
// not been connected to, nor logged in to, since.
func (s *Server) NeedsLogin() bool { return s.needsLogin.Load() }

// LoggedIn clears NeedsLogin after a login.
func (s *Server) LoggedIn() { s.needsLogin.Store(false) }

// errorf is a *session.Error of kind, wrapping err (nil: none): every failure of a remote
// server is worded for the model, without the "MCP server" prefix the state machine adds.
func errorf(kind session.Kind, err error, format string, args ...any) *session.Error {
	return &session.Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Err: err}
}

// ctxError words a request whose context ended.
func ctxError(ctx context.Context, doing string) *session.Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errorf(session.KindTimeout, ctx.Err(), "timed out %s", doing)
	}
	return errorf(session.KindCanceled, ctx.Err(), "cancelled while %s", doing)
}

// redactor is the server's redactor (redact).
func (s *Server) redactor(extra ...string) func(string) string { return redact.New(s.cfg, extra...) }
