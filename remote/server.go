package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/redact"
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
	// needsLogin is called when the server answered that it wants an OAuth login (nil:
	// nobody is told).
	needsLogin func()

	mu sync.Mutex
	// remembered is, for a url-only server, the transport that worked last; the next
	// connect tries it first.
	remembered config.Transport
	login      *LoginFlow // the login in progress, if any
	lastLogin  *LoginFlow // the latest login, running or ended (LastLogin)
}

// NewServer is the remote side of cfg; needsLogin is called when the server answers
// that it wants an OAuth login (the state machine shows it in the server's status).
func NewServer(cfg *config.Server, d *Deps, needsLogin func()) *Server {
	return &Server{cfg: cfg, d: d, needsLogin: needsLogin}
}

// Config is the server's configuration.
func (s *Server) Config() *config.Server { return s.cfg }

// markNeedsLogin tells the state machine that the server wants a login.
func (s *Server) markNeedsLogin() {
	if s.needsLogin != nil {
		s.needsLogin()
	}
}

// Kinds of Error beyond Classify's (Kind): the bridge maps every Kind to its own in one
// place.
const (
	KindStart    Kind = iota + 100 // connecting or initializing failed
	KindTimeout                    // our deadline passed
	KindCanceled                   // the caller gave up
	KindCrashed                    // the session ended under the request
)

// Error is a failure of a remote server worded for the model: Msg without the
// "MCP server" prefix, which the bridge adds (with its redaction) when it maps the error
// to its own type.
type Error struct {
	Kind Kind
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// errorf is an Error for kind, wrapping err (nil: none).
func errorf(kind Kind, err error, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Err: err}
}

// RequestError is a classified HTTP-level failure of one request on a live session; the
// state machine words it with the tool's name.
type RequestError struct {
	Failure
	Err error
	// Prefix says what happened before (a failed session re-initialization).
	Prefix string
}

func (e *RequestError) Error() string { return e.Prefix + e.Msg }
func (e *RequestError) Unwrap() error { return e.Err }

// ctxError words a request whose context ended.
func ctxError(ctx context.Context, doing string) *Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errorf(KindTimeout, ctx.Err(), "timed out %s", doing)
	}
	return errorf(KindCanceled, ctx.Err(), "cancelled while %s", doing)
}

// redactor is the server's redactor (internal/redact).
func (s *Server) redactor(extra ...string) func(string) string { return redact.New(s.cfg, extra...) }
