package bridge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/interact"
)

// State is where a server is in its lifecycle.
type State int

// The lifecycle states. A server starts Asleep (or Disabled), wakes on demand, and goes
// back to sleep after its idle timeout.
const (
	StateAsleep   State = iota // not running; the next call starts it
	StateStarting              // spawn/connect + initialize + tools/list under way
	StateReady                 // connected and serving calls
	StateStopping              // being shut down
	StateBackoff               // the last start or run failed; no new start before RetryAt
	StateParked                // failed too often in a row; only /mcp start tries again
	StateDisabled              // disabled in config or the config entry is broken
)

func (s State) String() string {
	switch s {
	case StateAsleep:
		return "asleep"
	case StateStarting:
		return "starting"
	case StateReady:
		return "ready"
	case StateStopping:
		return "stopping"
	case StateBackoff:
		return "backing off"
	case StateParked:
		return "parked"
	case StateDisabled:
		return "disabled"
	}
	return "unknown"
}

// Failure policy: the first failure is retried by the next call at once, later ones wait
// backoffBase·2^(n-2) (capped), and after parkAfter failures in a row the server is parked.
const (
	backoffBase = 500 * time.Millisecond
	backoffMax  = 30 * time.Second
	parkAfter   = 5
)

func backoffDelay(failures int) time.Duration {
	if failures <= 1 {
		return 0
	}
	d := backoffBase << (failures - 2)
	if d > backoffMax || d <= 0 {
		return backoffMax
	}
	return d
}

// ClientName is what the bridge calls itself in MCP initialize; ClientVersion is the
// version it reports when Options.Version is empty.
const (
	ClientName    = "zot-mcp-bridge"
	ClientVersion = "0.1.0"
)

// serverDeps is what every Server shares with the bridge.
type serverDeps struct {
	clock      Clock
	log        zerolog.Logger
	projectDir string
	supervisor []string
	// onListChanged is called (in its own goroutine) when a running server announces a new
	// tool list.
	onListChanged func(server string)
	// resolver resolves HTTP servers' host names (nil: the system resolver).
	resolver *net.Resolver
	// oauth holds the OAuth credential store and test hooks (oauth.go); nil: no OAuth.
	oauth *oauthEnv
	// maxReply bounds one message read from a stdio server (0: DefaultMaxReply).
	maxReply int
	// surface is where the user reads messages (names /mcp or CLI commands).
	surface Surface
	// version is the bridge's version, sent in initialize (Options.Version).
	version string
	// x is the bridge's state beyond tools (progress, server logs; mcpx.go); nil in
	// servers made without a bridge.
	x *mcpx
	// bridge answers the servers' requests to the client (elicitation: elicit.go).
	bridge *Bridge
}

// Server owns one configured MCP server: single-flight start, calls, idle sleep, crash
// handling and backoff. All fields behind mu.
type Server struct {
	cfg *config.Server
	d   *serverDeps

	mu        sync.Mutex
	state     State
	conn      *conn
	attempt   *attempt // the start in flight, when Starting
	stopped   chan struct{}
	gen       uint64 // bumped by every stop; a start of an older generation discards itself
	inflight  int
	idleTimer Timer
	idleSeq   uint64
	lastUsed  time.Time
	failures  int
	retryAt   time.Time
	lastErr   string // for the model
	// lastErrUser is lastErr for the user, with the stderr tail where there is one.
	lastErrUser string
	lastErrAt   time.Time
	tools       []mcp.Tool
	info        connInfo
	// remembered is, for a url-only server, the transport that worked last (from the
	// cache or this session); the next connect tries it first.
	remembered config.Transport
	// needsLogin: the server answered that it wants an OAuth login (cleared by a
	// successful connect or login).
	needsLogin bool
	login      *loginFlow // the /mcp login in progress, if any
	// tail is the stderr tail of the last stdio process, kept after it exits for /mcp.
	tail *ring
	// probe is closed when the ping check after a timed-out call ends (nil: none running).
	probe chan struct{}

	redactOnce sync.Once
	redactFn   func(string) string
	// logBudget limits what the server's MCP log messages may write to our log.
	logMu     sync.Mutex
	logBudget *stderrLog
	lastLogin *loginFlow // the latest login, running or ended (WaitLogin)

	// pending: a project server the user has not approved; nothing starts or contacts it.
	pending atomic.Bool
	// instructionsShown: the config's instructions went with a call result (proxy mode).
	instructionsShown atomic.Bool

	// skipped lists the tools the last listing could not offer (toollist.go).
	skipped []SkippedTool
}

type attempt struct {
	done   chan struct{}
	err    error
	cancel context.CancelFunc
}

// conn is one live connection.
type conn struct {
	client *client.Client
	proc   *process  // nil for HTTP transports
	http   *httpConn // nil for stdio
	info   connInfo

	closeOnce sync.Once
	closing   chan struct{} // closed when we close the connection on purpose (stop, shutdown)
	// replyLost is closed when the stream was ended because of an over-size reply whose
	// id could not be found (stdio only).
	replyLost <-chan struct{}
	maxReply  int
}

type connInfo struct {
	transport    config.Transport
	serverName   string
	instructions string
}

func newServer(cfg *config.Server, d *serverDeps) *Server {
	s := &Server{cfg: cfg, d: d, state: StateAsleep}
	if !cfg.Usable() {
		s.state = StateDisabled
	}
	return s
}

// Name is the configured server name.
func (s *Server) Name() string { return s.cfg.Name }

// Config is the server's configuration.
func (s *Server) Config() *config.Server { return s.cfg }

// Status is a snapshot for /mcp and doctor.
type Status struct {
	State     State
	Tools     int // tools seen on the last successful list (0 if never listed this session)
	InFlight  int
	LastUsed  time.Time
	LastError string
	ErrorAt   time.Time
	RetryAt   time.Time
	Failures  int
	Transport config.Transport
	// Stderr is the tail of the last stdio process's stderr (kept after it exits, for the
	// user only), out of StderrSeen lines it wrote.
	Stderr     []string
	StderrSeen int
	// NeedsLogin: the server wants an OAuth login (/mcp login <server>).
	NeedsLogin bool
}

// Status returns the current state.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{State: s.state, Tools: len(s.tools), InFlight: s.inflight, LastUsed: s.lastUsed,
		LastError: s.lastErrUser, ErrorAt: s.lastErrAt, RetryAt: s.retryAt, Failures: s.failures, Transport: s.info.transport,
		NeedsLogin: s.needsLogin}
	if s.state == StateDisabled && s.cfg.Err != "" {
		st.LastError = s.cfg.Err
	}
	if s.tail != nil {
		st.Stderr, st.StderrSeen = s.tail.Lines()
	}
	return st
}

// ErrKind classifies a failure so messages can say what to do next.
type ErrKind int

// Failure kinds.
const (
	KindStart       ErrKind = iota + 1 // spawn, connect, initialize or list failed
	KindBackoff                        // not retried yet after earlier failures
	KindParked                         // parked after repeated failures
	KindDisabled                       // disabled or broken in config
	KindCrashed                        // the server went away during the call
	KindTimeout                        // our deadline passed
	KindCanceled                       // the caller gave up
	KindCall                           // the server answered with a protocol error
	KindStopped                        // stopped (by /mcp stop or shutdown) while in use
	KindAuth                           // HTTP 401/403: credentials missing or refused
	KindUnreachable                    // DNS failure, connection refused or reset
	KindTLS                            // TLS handshake or certificate failure
	KindBadResponse                    // HTTP 404, 5xx, an HTML page or other non-MCP answer
	KindUntrusted                      // a project server the user has not approved
)

// Error is a failure of a server operation, worded for the model and the user.
type Error struct {
	Kind   ErrKind
	Server string
	Msg    string // for the model (and the user when User is empty)
	// User is the message for the user when it says more than Msg (the server's last
	// stderr lines, which never go to the model).
	User string
	Err  error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// errorf builds a server error. Its text and the wrapped error's text pass through the
// server's redactor: expanded ${VAR} values read as the reference, credentials are masked.
func (s *Server) errorf(kind ErrKind, err error, format string, args ...any) *Error {
	e := &Error{Kind: kind, Server: s.cfg.Name, Msg: s.redact(fmt.Sprintf("MCP server %q: ", s.cfg.Name) + fmt.Sprintf(format, args...))}
	if err != nil {
		e.Err = &redactedErr{err: err, msg: s.redact(err.Error())}
	}
	return e
}

// redact hides the server's secrets in a text (see newRedactor).
func (s *Server) redact(text string) string {
	s.redactOnce.Do(func() { s.redactFn = newRedactor(s.cfg) })
	return s.redactFn(text)
}

// acquire returns a ready connection, starting the server if needed, and counts the
// caller as in flight (pair with release).
func (s *Server) acquire(ctx context.Context) (*conn, error) {
	for {
		s.mu.Lock()
		if s.pending.Load() {
			s.mu.Unlock()
			return nil, s.approvalErr()
		}
		switch s.state {
		case StateReady:
			if p := s.probe; p != nil { // a call timed out: use the server only once it answered a ping
				s.mu.Unlock()
				select {
				case <-p:
				case <-ctx.Done():
					return nil, s.ctxErr(ctx, "waiting for the server to answer a ping")
				}
				continue
			}
			s.inflight++
			s.disarmIdle()
			c := s.conn
			s.mu.Unlock()
			return c, nil
		case StateDisabled:
			s.mu.Unlock()
			if s.cfg.Err != "" {
				return nil, s.errorf(KindDisabled, nil, "config error: %s", s.cfg.Err)
			}
			return nil, s.errorf(KindDisabled, nil, "disabled in %s; set \"enabled\": true (or remove \"disabled\") and %s", s.cfg.Source, s.d.surface.Reload())
		case StateParked:
			msg := s.lastErr
			s.mu.Unlock()
			return nil, s.errorf(KindParked, nil, "parked after %d failed attempts in a row (last: %s). Fix the cause, then run %s", parkAfter, msg, s.d.surface.Cmd("start", s.cfg.Name))
		case StateBackoff:
			now := s.d.clock.Now()
			if now.Before(s.retryAt) {
				msg, wait := s.lastErr, s.retryAt.Sub(now).Round(100*time.Millisecond)
				s.mu.Unlock()
				return nil, s.errorf(KindBackoff, nil, "failed recently (%s); next attempt allowed in %s, or run %s", msg, wait, s.d.surface.Cmd("start", s.cfg.Name))
			}
			s.beginStartLocked()
		case StateAsleep:
			s.beginStartLocked()
		case StateStarting:
		case StateStopping:
			ch := s.stopped
			s.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, s.ctxErr(ctx, "waiting for the server to stop before restarting it")
			}
			continue
		}
		a := s.attempt
		s.mu.Unlock()
		select {
		case <-a.done:
			if a.err != nil {
				return nil, a.err
			}
		case <-ctx.Done():
			return nil, s.ctxErr(ctx, "waiting for the server to start")
		}
	}
}

func (s *Server) ctxErr(ctx context.Context, doing string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return s.errorf(KindTimeout, ctx.Err(), "timed out %s", doing)
	}
	return s.errorf(KindCanceled, ctx.Err(), "cancelled while %s", doing)
}

// release ends one in-flight use; the idle timer starts when the last one ends.
func (s *Server) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	s.lastUsed = s.d.clock.Now()
	if s.state == StateReady && s.inflight == 0 {
		s.armIdleLocked()
	}
}

func (s *Server) disarmIdle() {
	s.idleSeq++
	if s.idleTimer != nil {
		s.idleTimer.Stop()
		s.idleTimer = nil
	}
}

func (s *Server) armIdleLocked() {
	s.disarmIdle()
	if s.cfg.IdleTimeout <= 0 {
		return
	}
	seq := s.idleSeq
	s.idleTimer = s.d.clock.AfterFunc(s.cfg.IdleTimeout, func() { s.idleFired(seq) })
}

func (s *Server) idleFired(seq uint64) {
	s.mu.Lock()
	if seq != s.idleSeq || s.state != StateReady || s.inflight > 0 {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.d.log.Info().Str("server", s.cfg.Name).Dur("idle", s.cfg.IdleTimeout).Msg("idle timeout, putting server to sleep")
	s.Stop(context.Background())
}

// beginStartLocked launches a start attempt shared by every caller until it finishes.
func (s *Server) beginStartLocked() {
	s.state = StateStarting
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ConnectTimeout)
	a := &attempt{done: make(chan struct{}), cancel: cancel}
	s.attempt = a
	gen := s.gen
	go s.runStart(ctx, gen, a)
}

func (s *Server) runStart(ctx context.Context, gen uint64, a *attempt) {
	defer a.cancel()
	began := s.d.clock.Now()
	c, tools, err := s.connect(ctx)
	s.mu.Lock()
	if gen != s.gen { // stopped meanwhile
		s.mu.Unlock()
		if c != nil {
			c.close(context.Background())
		}
		a.err = s.errorf(KindStopped, nil, "stopped while starting")
		close(a.done)
		return
	}
	if err != nil {
		a.err = s.failLocked(err)
		s.mu.Unlock()
		close(a.done)
		s.d.log.Warn().Str("server", s.cfg.Name).Err(err).Msg("start failed")
		return
	}
	s.conn, s.tools, s.info = c, tools, c.info
	s.state = StateReady
	s.needsLogin = false
	s.attempt = nil
	s.lastUsed = s.d.clock.Now()
	if s.inflight == 0 {
		s.armIdleLocked()
	}
	s.mu.Unlock()
	close(a.done)
	s.d.log.Info().Str("server", s.cfg.Name).Int("tools", len(tools)).Dur("took", s.d.clock.Now().Sub(began)).Msg("server ready")
	if c.proc != nil {
		go s.watchExit(c)
	}
}

// failLocked records a failed start or run and moves to backoff or parked.
func (s *Server) failLocked(err error) *Error {
	s.failures++
	s.lastErr = s.redact(err.Error())
	s.lastErrUser = s.redact(UserText(err))
	s.lastErrAt = s.d.clock.Now()
	s.conn, s.attempt = nil, nil
	var e *Error
	if !errors.As(err, &e) {
		e = s.errorf(KindStart, err, "failed to start: %s", err.Error())
	}
	if s.failures >= parkAfter {
		s.state = StateParked
		why := fmt.Sprintf(" — parked after %d failed attempts in a row; fix the cause, then run %s", s.failures, s.d.surface.Cmd("start", s.cfg.Name))
		p := s.errorf(KindParked, err, "%s%s", e.Msg, why)
		if e.User != "" {
			p.User = e.User + why
		}
		return p
	}
	if d := backoffDelay(s.failures); d > 0 {
		s.state = StateBackoff
		s.retryAt = s.d.clock.Now().Add(d)
	} else {
		s.state = StateAsleep
	}
	return e
}

// watchExit notices a server that exits on its own.
func (s *Server) watchExit(c *conn) {
	<-c.proc.exited
	s.mu.Lock()
	if s.conn != c {
		s.mu.Unlock()
		return
	}
	s.gen++
	s.disarmIdle()
	s.failLocked(s.withStderr(s.errorf(KindCrashed, nil, "process %s", c.proc.exitStatus()), c.proc.tail))
	s.mu.Unlock()
	s.d.log.Warn().Str("server", s.cfg.Name).Str("exit", s.redact(c.proc.exitText())).Msg("server exited unexpectedly")
	_ = c.client.Close()
}

// restartAfterLoss stops a server whose connection c is unusable although its process
// still runs, so the next call starts it afresh.
func (s *Server) restartAfterLoss(c *conn, why string) {
	s.mu.Lock()
	current := s.conn == c
	s.mu.Unlock()
	if !current {
		return
	}
	s.d.log.Warn().Str("server", s.cfg.Name).Msg("restarting: " + why)
	go s.Stop(context.Background())
}

// Start wakes the server now (clearing backoff and parking) and waits until it is ready.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.state == StateBackoff || s.state == StateParked {
		s.state = StateAsleep
		s.failures = 0
	}
	s.mu.Unlock()
	if _, err := s.acquire(ctx); err != nil {
		return err
	}
	s.release()
	return nil
}

// Stop closes the connection and ends the server's process tree. In-flight calls fail.
func (s *Server) Stop(ctx context.Context) {
	s.mu.Lock()
	s.gen++
	s.disarmIdle()
	c := s.conn
	switch s.state {
	case StateStarting:
		s.state = StateAsleep
		s.attempt.cancel()
		s.attempt = nil
	case StateReady:
		s.state = StateStopping
		s.stopped = make(chan struct{})
	}
	s.conn = nil
	ch := s.stopped
	s.mu.Unlock()
	if c == nil {
		return
	}
	c.close(ctx)
	s.mu.Lock()
	if s.state == StateStopping {
		s.state = StateAsleep
	}
	s.mu.Unlock()
	close(ch)
	s.d.log.Info().Str("server", s.cfg.Name).Msg("server stopped")
}

// Tools returns the tools seen on the last list.
func (s *Server) Tools() []mcp.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

func (c *conn) close(ctx context.Context) {
	if c.proc == nil {
		_ = c.client.Close()
		c.http.closeIdle()
		return
	}
	c.markClosing()
	// Closing the client closes the server's stdin; stop escalates from there.
	done := make(chan struct{})
	go func() { _ = c.client.Close(); close(done) }()
	c.proc.stop(ctx)
	<-done
}

// connect opens a connection of the configured transport, initializes and lists tools.
func (s *Server) connect(ctx context.Context) (*conn, []mcp.Tool, error) {
	switch s.cfg.Transport {
	case config.TransportStdio:
		return s.connectStdio(ctx)
	case config.TransportStreamableHTTP, config.TransportSSE:
		return s.connectHTTP(ctx)
	}
	return nil, nil, s.errorf(KindStart, nil, "unknown transport %q", s.cfg.Transport)
}

func (s *Server) workDir() string {
	if s.cfg.Cwd != "" {
		return s.cfg.Cwd
	}
	return s.d.projectDir
}

func (s *Server) connectStdio(ctx context.Context) (*conn, []mcp.Tool, error) {
	p, err := spawn(s.cfg, s.workDir(), s.d.supervisor, s.d.log, s.d.clock)
	if err != nil {
		return nil, nil, s.errorf(KindStart, err, "%s", err.Error())
	}
	s.mu.Lock()
	s.tail = p.tail
	s.mu.Unlock()
	lim := newReplyLimiter(p.stdout, s.d.maxReply)
	cl := s.newClient(transport.NewIO(lim, p.stdin, nil))
	c := &conn{client: cl, proc: p, info: connInfo{transport: config.TransportStdio}, closing: make(chan struct{}), replyLost: lim.lost, maxReply: lim.limit}
	tools, err := s.handshake(ctx, c)
	if err != nil {
		exited := c.lostBecause(ctx, err) == lostExited
		c.close(context.Background())
		if exited {
			return nil, nil, s.withStderr(s.errorf(KindStart, err, "failed to start: process %s", p.exitStatus()), p.tail)
		}
		return nil, nil, s.withStderr(s.errorf(KindStart, err, "failed to start: %s", describeStartErr(ctx, err, s.cfg.ConnectTimeout)), p.tail)
	}
	return c, tools, nil
}

// withStderr puts the server's last stderr lines into the user's version of e (User) and
// only a pointer to them into the model's (Msg): servers print tokens there.
func (s *Server) withStderr(e *Error, tail *ring) *Error {
	t := tail.String()
	if t == "" {
		return e
	}
	if e.User == "" {
		e.User = e.Msg
	}
	e.User += "; last stderr: " + s.redact(t)
	e.Msg += " (the user sees its stderr in " + s.d.surface.Cmd("", s.cfg.Name) + ")"
	return e
}

// UserText is the text of err for the user: with the stderr tail where there is one.
func UserText(err error) string {
	var e *Error
	if errors.As(err, &e) && e.User != "" {
		return e.User
	}
	return err.Error()
}
func describeStartErr(ctx context.Context, err error, limit time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within connectTimeout (%s); raise \"connectTimeout\" if the server is slow to start (a first npx run downloads packages)", limit)
	}
	return err.Error()
}

// handshake starts the client, initializes, subscribes to list changes and lists tools.
func (s *Server) handshake(ctx context.Context, c *conn) ([]mcp.Tool, error) {
	if err := c.client.Start(context.Background()); err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	c.client.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) && s.d.onListChanged != nil {
			go s.d.onListChanged(s.cfg.Name)
		}
	})
	s.watchNotifications(c)
	res, err := c.client.Initialize(ctx, initRequest(s.d.version))
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	c.info.serverName = res.ServerInfo.Name
	c.info.instructions = Truncate(strings.TrimSpace(res.Instructions), 2000)
	if res.Capabilities.Tools == nil {
		return nil, nil
	}
	tools, err := s.listTools(ctx, c.client)
	if err != nil {
		return nil, fmt.Errorf("list tools: %w", err)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return tools, nil
}

// initRequest is the initialize request of every connection (and of a re-initialization).
func initRequest(version string) mcp.InitializeRequest {
	req := mcp.InitializeRequest{}
	// Every server measured speaks the initialize handshake; pinning it avoids a probe
	// round trip (server/discover) that legacy servers answer with an error.
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: ClientName, Version: version}
	return req
}

// ListTools re-lists the tools of a running server (for list_changed and refresh).
func (s *Server) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	c, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer s.release()
	var tools []mcp.Tool
	if c.http != nil {
		if tools, err = s.listHTTP(ctx, c); err != nil {
			return nil, err
		}
	} else {
		if tools, err = s.listTools(ctx, c.client); err != nil {
			return nil, s.errorf(KindCall, err, "list tools: %v", err)
		}
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	s.mu.Lock()
	if s.conn == c {
		s.tools = tools
	}
	s.mu.Unlock()
	return tools, nil
}

// Call runs one tools/call with the original MCP tool name. budget bounds the whole call
// including a cold start; safeRepeat says whether the tool is read-only or idempotent (it
// only changes the wording of timeout errors).
func (s *Server) Call(ctx context.Context, tool string, args map[string]any, safeRepeat bool) (*mcp.CallToolResult, error) {
	c, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer s.release()
	cctx, cancel := context.WithTimeout(ctx, s.requestTimeout(ctx))
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	req.Params.Meta = interact.ProgressMeta(ctx)
	if s.taskAugmented(c, tool) {
		return s.callTask(ctx, cctx, c, req, safeRepeat)
	}
	if c.http != nil {
		res, err := s.callHTTP(ctx, cctx, c, req, safeRepeat)
		s.checkIfTimeout(c, err)
		return res, err
	}
	res, err := c.client.CallTool(cctx, req)
	if err != nil && strings.Contains(err.Error(), tooLargeMarker) {
		// The reply was dropped by the limiter: give its memory back now rather than
		// whenever the scavenger gets to it.
		go debug.FreeOSMemory()
	}
	if err == nil {
		s.mu.Lock()
		s.failures = 0
		s.mu.Unlock()
		return res, nil
	}
	if c.proc != nil {
		switch c.lostBecause(cctx, err) {
		case lostExited:
			return nil, s.withStderr(s.errorf(KindCrashed, err, "the server process %s during the call to %s. The next call starts it again%s", c.proc.exitStatus(), tool, repeatWarning(safeRepeat)), c.proc.tail)
		case lostClosed:
			return nil, s.errorf(KindStopped, err, "connection closed during the call to %s (server stopped)%s", tool, repeatWarning(safeRepeat))
		case lostTooLarge:
			s.restartAfterLoss(c, "a reply over the size limit ended the connection")
			return nil, s.errorf(KindCall, err, "%s: %s. The server is restarted for the next call%s", tool, tooLargeText(c.maxReply), repeatWarning(safeRepeat))
		}
	}
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		s.checkIfTimeout(c, context.DeadlineExceeded)
		return nil, s.errorf(KindTimeout, err, "%s did not answer before the host's deadline%s", tool, repeatWarning(safeRepeat))
	case ctx.Err() != nil:
		return nil, s.errorf(KindCanceled, err, "call to %s cancelled", tool)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		s.checkIfTimeout(c, context.DeadlineExceeded)
		return nil, s.errorf(KindTimeout, err, "%s did not answer within requestTimeout (%s)%s", tool, s.cfg.RequestTimeout, repeatWarning(safeRepeat))
	case errors.Is(err, transport.ErrTransportClosed):
		return nil, s.errorf(KindStopped, err, "connection closed during the call to %s (server stopped)%s", tool, repeatWarning(safeRepeat))
	}
	return nil, s.errorf(KindCall, err, "%s failed: %v", tool, err)
}

func repeatWarning(safe bool) string {
	if safe {
		return "."
	}
	return ". The server may already have applied the call: check before retrying, a retry may repeat it."
}
