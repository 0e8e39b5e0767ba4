package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/repeats"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/redact"
	"github.com/zot-mcp/mcp-bridge/session"
)

// Deps is what every Server shares with its host (the bridge).
type Deps struct {
	Clock clock.Clock
	Log   zerolog.Logger
	// ProjectDir is where the host runs (the roots of a server without its own "cwd").
	ProjectDir string
	// OnListChanged is called (in its own goroutine) when a running server announces a new
	// tool list.
	OnListChanged func(server string)
	// Surface is where the user reads messages (names /mcp or CLI commands); required
	// wherever a failure may be worded.
	Surface Surface
	// Version is the bridge's version, sent in initialize.
	Version string
	// Host is the host's side of the servers' MCP beyond tools (progress, log messages,
	// sampling notes, elicitation, the task board, approval); nil in servers made without
	// a host.
	Host Host
	// Connector gives each server the connector of its sessions, chosen by the host when
	// it wires the server (the bridge: by the configured transport; tests: in-process),
	// so that the state machine knows no transport. nil, or a nil Connector: the server
	// cannot start.
	Connector func(cfg *config.Server) Connector
}

// Surface words the commands the user is pointed to (commands.Surface implements it).
type Surface interface {
	// Cmd is the command line of a subcommand, e.g. Cmd("start", "name").
	Cmd(sub string, args ...string) string
	// Reload is how the user reloads the configuration.
	Reload() string
	// StderrCmd is the command that shows the user a server's last stderr lines.
	StderrCmd(server string) string
}

// Host is all the state machine asks of the host side: the one seam between a Server and
// the bridge (bridge's bridgeHost implements it).
type Host interface {
	// SessionOptions are the host's client options of every session of s (elicitation,
	// a claimed sampling capability).
	SessionOptions(s *Server) []client.ClientOption
	// Elicitor asks the user the questions s embeds in its results and tasks (the
	// handler SessionOptions installs); nil when no question can be asked.
	Elicitor(s *Server) client.ElicitationHandler
	// Progress passes a progress notification to the call it belongs to.
	Progress(server string, p mcp.ProgressNotificationParams)
	// CallMeta is the request _meta of the call ctx belongs to: its progress token, the
	// log level a front end's client asked for; nil when it has neither.
	CallMeta(ctx context.Context) *mcp.Meta
	// Sampler answers the sampling requests of s (a legacy server's own requests, and
	// the sampling input requests of its results and tasks), and makes every session of
	// s advertise the sampling capability; nil, what zot's bridge answers: sampling is
	// neither advertised nor offered, and every request is refused (SamplingRefused).
	// The handler's context has the request's deadline and cancellation, ends with the
	// session, and carries no values; its error goes back to the server as the request's
	// error.
	Sampler(s *Server) client.SamplingHandler
	// SamplingRefused tells the user that a server asked for sampling.
	SamplingRefused(server string)
	// ServerLog keeps one of a server's log messages for /mcp <server>.
	ServerLog(server string, line LogLine)
	// AddTask puts a task on the board; WaitTask waits for its result.
	AddTask(t *Task)
	WaitTask(ctx context.Context, t *Task, expired <-chan struct{}, last *mcp.Task) (*mcp.CallToolResult, error)
	// ApprovalErr is the answer to anything that would start s while it awaits the
	// user's approval (Pending).
	ApprovalErr(s *Server) *Error
	// ProtocolLearned is told, after a start, that s spoke another MCP revision than
	// the one it was known to speak, to remember it for the next process (the bridge
	// writes it to the server's cache entry).
	ProtocolLearned(s *Server, protocol string)
}

// Connector opens the initialized MCP sessions of one server over the transport its
// wiring chose (stdio, streamable HTTP or SSE, in-process), and keeps what outlives a
// session on it (an HTTP server's logins, a process's stderr tail). Its failures are
// *session.Error, *session.EndedError or plain errors, the same for every transport.
//
// A Connector may also report, for Status, the stderr tail of its last process
// (Tail() *session.Ring) and that its server wants a login (NeedsLogin() bool).
type Connector interface {
	Open(ctx context.Context, h session.Handlers) (session.Session, error)
}

// ConnectFunc opens sessions for any server from one function (tests and benchmarks:
// in-process sessions); For binds it to one server.
type ConnectFunc func(ctx context.Context, cfg *config.Server, h session.Handlers) (session.Session, error)

// For is f as the Connector of cfg.
func (f ConnectFunc) For(cfg *config.Server) Connector { return boundConnect{f: f, cfg: cfg} }

type boundConnect struct {
	f   ConnectFunc
	cfg *config.Server
}

func (b boundConnect) Open(ctx context.Context, h session.Handlers) (session.Session, error) {
	return b.f(ctx, b.cfg, h)
}

// tailKeeper is a Connector whose sessions are processes: the stderr tail of the last
// one, kept after it exits for /mcp and the user's text of a failed start.
type tailKeeper interface{ Tail() *session.Ring }

// runsProcess says whether the server's sessions are processes of ours, which a new
// session starts again rather than reconnects to.
func (s *Server) runsProcess() bool {
	_, ok := s.connector.(tailKeeper)
	return ok
}

// loginKeeper is a Connector whose server may want a login (HTTP with OAuth).
type loginKeeper interface{ NeedsLogin() bool }

// Server owns one configured MCP server: single-flight start, calls, idle sleep, crash
// handling and backoff. All fields behind mu.
type Server struct {
	cfg *config.Server
	d   *Deps

	mu        sync.Mutex
	state     State
	conn      *conn
	attempt   *attempt // the start in flight, when Starting
	stopped   chan struct{}
	gen       uint64 // bumped by every stop; a start of an older generation discards itself
	inflight  int
	idleTimer clock.Timer
	idleSeq   uint64
	lastUsed  time.Time
	failures  int
	retryAt   time.Time
	lastErr   string // for the model
	// lastErrUser is lastErr for the user, with the stderr tail where there is one.
	lastErrUser string
	lastErrAt   time.Time
	tools       []mcp.Tool
	info        session.Info
	// connector opens the server's sessions (Deps.Connector); nil: it cannot start.
	connector Connector
	// probe is closed when the ping check after a timed-out call ends (nil: none running).
	probe chan struct{}

	redactOnce sync.Once
	redactFn   func(string) string
	// logBudget limits what the server's MCP log messages may write to our log;
	// refusals collapses its refused sampling requests into one log line and a count.
	// Both are made on first use, under logMu.
	logMu     sync.Mutex
	logBudget *session.LineLog
	refusals  *repeats.Collapser[string]

	// pending: a project server the user has not approved; nothing starts or contacts it.
	pending atomic.Bool
	// instructionsShown: the config's instructions went with a call result (proxy mode).
	instructionsShown atomic.Bool

	// skipped lists the tools the last listing could not offer (toollist.go).
	skipped []session.SkippedTool
	// hints are the caching hints of the last listing (toollist.go).
	hints session.CacheHints
	// protocol is the MCP revision the server spoke last, or was remembered to speak
	// (SetProtocol): the next connection speaks it first (session.Era.Known).
	protocol string
}

type attempt struct {
	done   chan struct{}
	err    error
	cancel context.CancelFunc
}

// conn is one live session and what its initialize said (its instructions trimmed and
// bounded).
type conn struct {
	sess session.Session
	info session.Info
}

func newConn(sess session.Session) *conn {
	in := sess.Info()
	in.Instructions = textcut.Truncate(strings.TrimSpace(in.Instructions), 2000)
	return &conn{sess: sess, info: in}
}

// New makes the Server of cfg, asleep (or disabled when cfg is not usable).
func New(cfg *config.Server, d *Deps) *Server {
	s := &Server{cfg: cfg, d: d, state: StateAsleep}
	if d.Connector != nil {
		s.connector = d.Connector(cfg)
	}
	if !cfg.Usable() {
		s.state = StateDisabled
	}
	return s
}

// Name is the configured server name.
func (s *Server) Name() string { return s.cfg.Name }

// Config is the server's configuration.
func (s *Server) Config() *config.Server { return s.cfg }

// Pending reports whether the server is a project server the user has not approved:
// nothing starts or contacts it.
func (s *Server) Pending() bool { return s.pending.Load() }

// SetPending marks the server as awaiting the user's approval, or approved.
func (s *Server) SetPending(p bool) { s.pending.Store(p) }

// NeedsApproval reports whether the server is from a project file, enabled, and waits for
// the user's approval (it is never started or contacted until then). A disabled entry is
// not reported, though it stays gated: enabling it does not change its fingerprint.
func (s *Server) NeedsApproval() bool { return s.pending.Load() && s.cfg.Enabled }

// ApprovalErr is the answer to anything that would start a server awaiting approval,
// worded by the host.
func (s *Server) ApprovalErr() *Error {
	if s.d.Host != nil {
		return s.d.Host.ApprovalErr(s)
	}
	return s.Errorf(KindUntrusted, nil, "not approved by the user for this project, so it is not started")
}

// DisabledErr says why a server that is disabled or has a config error cannot start: the
// config error itself (the unset variable, the missing field) or how to enable it.
func (s *Server) DisabledErr() *Error {
	if s.cfg.Err != "" {
		return s.Errorf(KindDisabled, nil, "config error: %s", s.cfg.Err)
	}
	return s.Errorf(KindDisabled, nil, "disabled in %s; set \"enabled\": true (or remove \"disabled\") and %s", s.cfg.Source, s.d.Surface.Reload())
}

// ClaimInstructions reports whether the config's instructions are still to be shown with
// a call result, and marks them shown (proxy mode shows them once).
func (s *Server) ClaimInstructions() bool { return s.instructionsShown.CompareAndSwap(false, true) }

// Connector is what opens the server's sessions (Deps.Connector); nil when none was
// given. The host that wired it may ask it for what only its transport has (an HTTP
// server's logins).
func (s *Server) Connector() Connector { return s.connector }

// Clock is the clock the server runs on.
func (s *Server) Clock() clock.Clock { return s.d.Clock }

// Log is the log the server writes to.
func (s *Server) Log() zerolog.Logger { return s.d.Log }

// Info returns what the last initialize of the server said (its instructions trimmed and
// bounded); the zero Info before the first connection.
func (s *Server) Info() session.Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// SetProtocol tells the server the MCP revision it spoke in an earlier process (the
// bridge reads it from the cache entry whose key matches, config.Server.ProtocolKey), so
// that its next connection speaks it first. A revision learned by this process's own
// connections wins.
func (s *Server) SetProtocol(protocol string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.info.Protocol == "" {
		s.protocol = protocol
	}
}

// KindOf is the kind of err when it is a server's *Error, else 0.
func KindOf(err error) session.Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// Status returns the current state.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{State: s.state, Tools: len(s.tools), InFlight: s.inflight, LastUsed: s.lastUsed,
		LastError: s.lastErrUser, ErrorAt: s.lastErrAt, RetryAt: s.retryAt, Failures: s.failures, Transport: s.info.Transport,
		Protocol: s.protocol}
	if s.state == StateDisabled && s.cfg.Err != "" {
		st.LastError = s.cfg.Err
	}
	if l, ok := s.connector.(loginKeeper); ok {
		st.NeedsLogin = l.NeedsLogin()
	}
	if tail := s.tail(); tail != nil {
		st.Stderr, st.StderrSeen = tail.Lines()
	}
	return st
}

// Errorf builds a server error. Its text and the wrapped error's text pass through the
// server's redactor: expanded ${VAR} values read as the reference, credentials are masked.
func (s *Server) Errorf(kind session.Kind, err error, format string, args ...any) *Error {
	e := &Error{Kind: kind, Server: s.cfg.Name, Msg: s.Redact(fmt.Sprintf("MCP server %q: ", s.cfg.Name) + fmt.Sprintf(format, args...))}
	if err != nil {
		e.Err = &redactedErr{err: err, msg: s.Redact(err.Error())}
	}
	return e
}

// redactedErr keeps an error's identity for errors.Is/As but never shows its raw text, not
// even to code that walks the chain with Unwrap (it has no Unwrap method).
type redactedErr struct {
	err error
	msg string
}

func (e *redactedErr) Error() string        { return e.msg }
func (e *redactedErr) Is(target error) bool { return errors.Is(e.err, target) }
func (e *redactedErr) As(target any) bool   { return errors.As(e.err, target) }

// fromSession words a failure the connector classified as the server's error (prefix
// and redaction); its kind is the session's, one set for every transport.
func (s *Server) fromSession(e *session.Error) *Error {
	return s.Errorf(e.Kind, e.Err, "%s", e.Msg)
}

// SessionErr is err as the server's *Error when the connector classified it
// (*session.Error), else err.
func (s *Server) SessionErr(err error) error {
	var se *session.Error
	if errors.As(err, &se) {
		return s.fromSession(se)
	}
	return err
}

// tail is the connector's stderr tail of the server's last process, if it keeps one.
func (s *Server) tail() *session.Ring {
	if t, ok := s.connector.(tailKeeper); ok {
		return t.Tail()
	}
	return nil
}

// Redact hides the server's secrets in a text (redact).
func (s *Server) Redact(text string) string {
	s.redactOnce.Do(func() { s.redactFn = redact.New(s.cfg) })
	return s.redactFn(text)
}

// acquire returns a ready connection, starting the server if needed, and counts the
// caller as in flight (pair with release).
func (s *Server) acquire(ctx context.Context) (*conn, error) {
	for {
		s.mu.Lock()
		if s.pending.Load() {
			s.mu.Unlock()
			return nil, s.ApprovalErr()
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
			return nil, s.DisabledErr()
		case StateParked:
			msg := s.lastErr
			s.mu.Unlock()
			return nil, s.Errorf(KindParked, nil, "parked after %d failed attempts in a row (last: %s). Fix the cause, then run %s", ParkAfter, msg, s.d.Surface.Cmd("start", s.cfg.Name))
		case StateBackoff:
			now := s.d.Clock.Now()
			if now.Before(s.retryAt) {
				msg, wait := s.lastErr, s.retryAt.Sub(now).Round(100*time.Millisecond)
				s.mu.Unlock()
				return nil, s.Errorf(KindBackoff, nil, "failed recently (%s); next attempt allowed in %s, or run %s", msg, wait, s.d.Surface.Cmd("start", s.cfg.Name))
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
		return s.Errorf(session.KindTimeout, ctx.Err(), "timed out %s", doing)
	}
	return s.Errorf(session.KindCanceled, ctx.Err(), "cancelled while %s", doing)
}

// release ends one in-flight use; the idle timer starts when the last one ends.
func (s *Server) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	s.lastUsed = s.d.Clock.Now()
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
	s.idleTimer = s.d.Clock.AfterFunc(s.cfg.IdleTimeout, func() { s.idleFired(seq) })
}

func (s *Server) idleFired(seq uint64) {
	s.mu.Lock()
	if seq != s.idleSeq || s.state != StateReady || s.inflight > 0 {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.d.Log.Info().Str("server", s.cfg.Name).Dur("idle", s.cfg.IdleTimeout).Msg("idle timeout, putting server to sleep")
	s.Stop(context.Background())
}

// beginStartLocked launches a start attempt shared by every caller until it finishes.
func (s *Server) beginStartLocked() {
	s.state = StateStarting
	// connectTimeout runs on the injected clock, so a hung start is testable without waiting.
	ctx, cancel := clock.WithTimeout(context.Background(), s.d.Clock, s.cfg.ConnectTimeout)
	a := &attempt{done: make(chan struct{}), cancel: cancel}
	s.attempt = a
	gen := s.gen
	go s.runStart(ctx, gen, a)
}

func (s *Server) runStart(ctx context.Context, gen uint64, a *attempt) {
	defer a.cancel()
	began := s.d.Clock.Now()
	c, tools, err := s.connect(ctx)
	a.cancel() // the start's deadline is over either way; its timer must not outlive it
	s.mu.Lock()
	if gen != s.gen { // stopped meanwhile
		s.mu.Unlock()
		if c != nil {
			_ = c.sess.Close(context.Background())
		}
		a.err = s.Errorf(KindStopped, nil, "stopped while starting")
		close(a.done)
		return
	}
	if err != nil {
		a.err = s.failLocked(err)
		s.mu.Unlock()
		close(a.done)
		s.d.Log.Warn().Str("server", s.cfg.Name).Err(err).Msg("start failed")
		return
	}
	s.conn, s.tools, s.info = c, tools, c.info
	learned := c.info.Protocol != "" && c.info.Protocol != s.protocol && !c.info.ProtocolGuessed
	if !c.info.ProtocolGuessed {
		s.protocol = c.info.Protocol
	}
	s.state = StateReady
	s.attempt = nil
	s.lastUsed = s.d.Clock.Now()
	if s.inflight == 0 {
		s.armIdleLocked()
	}
	s.mu.Unlock()
	close(a.done)
	s.d.Log.Info().Str("server", s.cfg.Name).Int("tools", len(tools)).Str("protocol", c.info.Protocol).Dur("took", s.d.Clock.Now().Sub(began)).Msg("server ready")
	go s.watchEnd(c)
	if learned && s.d.Host != nil {
		s.d.Host.ProtocolLearned(s, c.info.Protocol)
	}
}

// failLocked records a failed start or run and moves to backoff or parked.
func (s *Server) failLocked(err error) *Error {
	s.failures++
	s.lastErr = s.Redact(err.Error())
	s.lastErrUser = s.Redact(UserText(err))
	s.lastErrAt = s.d.Clock.Now()
	s.conn, s.attempt = nil, nil
	var e *Error
	if !errors.As(err, &e) {
		e = s.Errorf(session.KindStart, err, "failed to start: %s", err.Error())
	}
	if s.failures >= ParkAfter {
		s.state = StateParked
		why := fmt.Sprintf(" — parked after %d failed attempts in a row; fix the cause, then run %s", s.failures, s.d.Surface.Cmd("start", s.cfg.Name))
		p := s.Errorf(KindParked, err, "%s%s", e.Msg, why)
		if e.User != "" {
			p.User = e.User + why
		}
		return p
	}
	if d := BackoffDelay(s.failures); d > 0 {
		s.state = StateBackoff
		s.retryAt = s.d.Clock.Now().Add(d)
	} else {
		s.state = StateAsleep
	}
	return e
}

// watchEnd learns from c's done signal that its session ended without our asking (a
// process exit, a dropped stream): what is in flight has failed already, and the next
// use starts the server afresh, after a failure is counted, except when an over-size
// reply broke the stream (the server is fine; it only needs a new one).
func (s *Server) watchEnd(c *conn) {
	<-c.sess.Done()
	s.sessionEnded(c)
}

// sessionEnded retires c, whose session has ended, if it is still the live connection
// (watchEnd, or a call that saw the end first).
func (s *Server) sessionEnded(c *conn) {
	end := c.sess.End()
	if end.Cause == session.CauseClosed {
		return
	}
	s.mu.Lock()
	if s.conn != c {
		s.mu.Unlock()
		return
	}
	if errors.Is(end.Err, session.ErrReplyTooLarge) {
		ch := s.detachLocked()
		s.mu.Unlock()
		next := "the next use reconnects"
		if s.runsProcess() {
			next = "the next use starts it again"
		}
		s.d.Log.Warn().Str("server", s.cfg.Name).Msg("a reply over the size limit ended the connection; " + next)
		// Closing takes the process's stop graces or an HTTP DELETE: the call that saw
		// the end answers now, and the next start waits for the close on s.stopped.
		go s.finishStop(context.Background(), c, ch)
		return
	}
	s.gen++
	s.disarmIdle()
	var e *Error
	var se *session.Error
	switch {
	case end.Cause == session.CauseExited:
		e = s.withStderrText(s.Errorf(session.KindEnded, nil, "process %s", end.Status), end.Stderr)
	case errors.As(end.Err, &e):
	case errors.As(end.Err, &se):
		e = s.fromSession(se)
	default:
		e = s.Errorf(session.KindEnded, end.Err, "connection lost: %v", end.Err)
	}
	s.failLocked(e)
	s.mu.Unlock()
	s.d.Log.Warn().Str("server", s.cfg.Name).Str("end", s.Redact(endText(end))).Msg("server session ended unexpectedly")
	_ = c.sess.Close(context.Background())
}

// retireIfEnded retires c before a failure on it is answered, when the failure is its
// session's end, so that the next request cannot be handed the dead connection before
// watchEnd gets to it.
func (s *Server) retireIfEnded(c *conn, err error) {
	var ended *session.EndedError
	if errors.As(err, &ended) {
		s.sessionEnded(c)
	}
}

// endText is how a session ended with its stderr tail: for the log and the user, never
// for the model.
func endText(e session.End) string {
	if e.Stderr != "" {
		return e.String() + "; last stderr: " + e.Stderr
	}
	return e.String()
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
func (s *Server) Stop(ctx context.Context) { s.stop(ctx, nil) }

// stop is Stop; with only set, it stops the server only while only is its connection
// (false: it was not), so that two who saw the same connection end stop it once. A
// connection still closing in the background (an over-size reply ended it) is waited
// for.
func (s *Server) stop(ctx context.Context, only *conn) bool {
	s.mu.Lock()
	if only != nil && s.conn != only {
		s.mu.Unlock()
		return false
	}
	c := s.conn
	ch := s.detachLocked()
	s.mu.Unlock()
	switch {
	case c != nil:
		s.finishStop(ctx, c, ch)
	case ch != nil:
		select {
		case <-ch:
		case <-ctx.Done():
		}
	}
	return true
}

// detachLocked takes the connection off the server, so that no new use is handed it,
// and returns the channel closed once finishStop has closed it. s.mu is held.
func (s *Server) detachLocked() chan struct{} {
	s.gen++
	s.disarmIdle()
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
	return s.stopped
}

// finishStop closes c, which detachLocked took off the server, and closes ch.
func (s *Server) finishStop(ctx context.Context, c *conn, ch chan struct{}) {
	_ = c.sess.Close(ctx)
	s.mu.Lock()
	if s.state == StateStopping {
		s.state = StateAsleep
	}
	s.mu.Unlock()
	close(ch)
	s.d.Log.Info().Str("server", s.cfg.Name).Msg("server stopped")
}

// Tools returns the tools seen on the last list.
func (s *Server) Tools() []mcp.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// connect opens a session, initializes and lists tools. A server that claimed the
// modern era and then answered the listing as a legacy server does is opened once more
// in the legacy era (session.ClaimedModernError).
func (s *Server) connect(ctx context.Context) (*conn, []mcp.Tool, error) {
	h := s.handlers()
	for reopened := false; ; reopened = true {
		c, tools, err := s.connectOnce(ctx, h)
		var claimed *session.ClaimedModernError
		if reopened || !errors.As(err, &claimed) || ctx.Err() != nil {
			return c, tools, err
		}
		s.d.Log.Warn().Str("server", s.cfg.Name).Str("why", s.Redact(claimed.Error())).Msg("reopening in the legacy era")
		h.Era = h.Era.Legacy()
	}
}

func (s *Server) connectOnce(ctx context.Context, h session.Handlers) (*conn, []mcp.Tool, error) {
	sess, err := s.open(ctx, h)
	if err != nil {
		return nil, nil, s.startErr(ctx, err)
	}
	c := newConn(sess)
	if sess.Info().Capabilities.Tools == nil {
		return c, nil, nil
	}
	tools, err := s.listTools(ctx, sess)
	if err != nil {
		_ = sess.Close(context.Background())
		if e := s.listEndedErr(err); e != nil {
			return nil, nil, e
		}
		err = s.SessionErr(err)
		var e *Error
		if errors.As(err, &e) {
			return nil, nil, e
		}
		return nil, nil, s.startErr(ctx, fmt.Errorf("list tools: %w", err))
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return c, tools, nil
}

// open opens an initialized session through the server's connector.
func (s *Server) open(ctx context.Context, h session.Handlers) (session.Session, error) {
	if s.connector == nil {
		return nil, s.Errorf(session.KindStart, nil, "nothing can open a session of transport %q (no connector was wired)", s.cfg.Transport)
	}
	return s.connector.Open(ctx, h)
}

// workDir is where the server runs: its own "cwd", else the project directory.
func (s *Server) workDir() string {
	if s.cfg.Cwd != "" {
		return s.cfg.Cwd
	}
	return s.d.ProjectDir
}

// startErr words a failed start: a process that exited says so (its stderr for the
// user), an error already worded (remote) is kept.
func (s *Server) startErr(ctx context.Context, err error) *Error {
	err = s.SessionErr(err)
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ended *session.EndedError
	if errors.As(err, &ended) && ended.End.Cause == session.CauseExited {
		return s.withStderrText(s.Errorf(session.KindStart, err, "failed to start: process %s", ended.End.Status), ended.End.Stderr)
	}
	var dir *session.DirError
	if errors.As(err, &dir) {
		return s.Errorf(session.KindStart, err, "failed to start: %s", s.dirText(dir))
	}
	return s.withStderr(s.Errorf(session.KindStart, err, "failed to start: %s", describeStartErr(ctx, err, s.cfg.ConnectTimeout)))
}

// withStderr is withStderrText with the current stderr tail.
func (s *Server) withStderr(e *Error) *Error {
	tail := s.tail()
	if tail == nil {
		return e
	}
	return s.withStderrText(e, tail.String())
}

// withStderrText puts the server's last stderr lines into the user's version of e (User)
// and only a pointer to them into the model's (Msg): servers print tokens there.
func (s *Server) withStderrText(e *Error, t string) *Error {
	if t == "" {
		return e
	}
	if e.User == "" {
		e.User = e.Msg
	}
	e.User += "; last stderr: " + s.Redact(t)
	e.Msg += " (the user sees its stderr in " + s.d.Surface.StderrCmd(s.cfg.Name) + ")"
	return e
}

// dirText words a working directory that is missing: the server's own "cwd", or the
// project directory (the host's cwd), in which every stdio server without one starts.
func (s *Server) dirText(e *session.DirError) string {
	state := "does not exist"
	if e.NotDir {
		state = "is not a directory"
	}
	if s.cfg.Cwd != "" {
		return fmt.Sprintf("its working directory %q (\"cwd\" in %s) %s: create it or fix \"cwd\", then run %s",
			e.Dir, s.cfg.Source, state, s.d.Surface.Cmd("start", s.cfg.Name))
	}
	return fmt.Sprintf("the project directory %q, where zot was started and stdio servers run, %s (deleted or moved since?): every stdio server without its own \"cwd\" fails to start. Restore the directory and run %s, or start zot again from an existing directory",
		e.Dir, state, s.d.Surface.Cmd("start", s.cfg.Name))
}

func describeStartErr(ctx context.Context, err error, limit time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within connectTimeout (%s); raise \"connectTimeout\" if the server is slow to start (a first npx run downloads packages)", limit)
	}
	return err.Error()
}

// ListTools re-lists the tools of a running server (for list_changed and refresh).
func (s *Server) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	c, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer s.release()
	tools, err := s.listTools(ctx, c.sess)
	if err != nil {
		if e := s.listEndedErr(err); e != nil {
			return nil, e
		}
		err = s.SessionErr(err)
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, s.Errorf(session.KindCall, err, "list tools: %v", err)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	s.mu.Lock()
	if s.conn == c {
		s.tools = tools
	}
	s.mu.Unlock()
	return tools, nil
}

// listEndedErr words a tool listing that failed because its session ended (nil when err
// is another failure): of the ended kind, as a call's, never a call failure.
func (s *Server) listEndedErr(err error) *Error {
	var ended *session.EndedError
	if !errors.As(err, &ended) {
		return nil
	}
	switch ended.End.Cause {
	case session.CauseExited:
		return s.withStderrText(s.Errorf(session.KindEnded, err, "list tools: the server process %s. The next use starts it again", ended.End.Status), ended.End.Stderr)
	case session.CauseClosed:
		return s.Errorf(KindStopped, err, "list tools: connection closed (server stopped)")
	}
	return s.Errorf(session.KindEnded, err, "list tools: %s; the next use reconnects", lostText(ended.End))
}

// Call runs one tools/call with the original MCP tool name. budget bounds the whole call
// including a cold start; safeRepeat says whether the tool is read-only or idempotent (it
// only changes the wording of timeout errors). args is sent as the call's arguments: a
// json.RawMessage object goes on as it is.
func (s *Server) Call(ctx context.Context, tool string, args any, safeRepeat bool) (*mcp.CallToolResult, error) {
	c, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer s.release()
	// The call's budget usually ends before requestTimeout would: then its own timer
	// would only cost every call.
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if rt := s.requestTimeout(ctx); !clock.EndsWithin(ctx, s.d.Clock, rt) {
		cctx, cancel = clock.WithTimeout(ctx, s.d.Clock, rt)
	}
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	req.Params.Meta = s.callMeta(ctx)
	if s.taskAugmented(c, tool) {
		return s.callTask(ctx, cctx, c, req, safeRepeat)
	}
	for retried := false; ; retried = true {
		sctx, release := settled(cctx, s.d.Clock)
		res, err := c.sess.CallTool(sctx, req)
		release()
		if err == nil {
			s.mu.Lock()
			s.failures = 0
			s.mu.Unlock()
			return res, nil
		}
		var ended *session.EndedError
		if !retried && safeRepeat && ctx.Err() == nil && errors.As(err, &ended) && ended.End.Cause == session.CauseLost &&
			!errors.Is(ended.End.Err, session.ErrReplyTooLarge) {
			// The transport broke under a read-only or idempotent call: reconnect and
			// send it again.
			s.d.Log.Info().Str("server", s.cfg.Name).Str("tool", tool).Msg("connection lost during a safe call; reconnecting to send it again")
			s.sessionEnded(c)
			nc, aerr := s.acquire(ctx)
			if aerr != nil {
				return nil, aerr
			}
			defer s.release()
			c = nc
			continue
		}
		s.retireIfEnded(c, err)
		e := s.callErr(ctx, cctx, tool, safeRepeat, err)
		if e.Kind == session.KindTimeout {
			s.checkAfterTimeout(c)
		}
		return nil, e
	}
}

// callErr words a failed tools/call: from how the session ended when it did, else from
// the contexts, else as the connector classified it or as the server's own error.
func (s *Server) callErr(ctx, cctx context.Context, tool string, safeRepeat bool, err error) *Error {
	var ended *session.EndedError
	var e *Error
	var se *session.Error
	var in *session.InputError
	switch {
	case errors.As(err, &ended):
		return s.endedErr(ended.End, err, tool, safeRepeat)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return s.Errorf(session.KindTimeout, err, "%s did not answer before the host's deadline%s", tool, repeatWarning(safeRepeat))
	case ctx.Err() != nil:
		return s.Errorf(session.KindCanceled, err, "call to %s cancelled", tool)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return s.Errorf(session.KindTimeout, err, "%s did not answer within requestTimeout (%s)%s", tool, s.cfg.RequestTimeout, repeatWarning(safeRepeat))
	case errors.As(err, &e):
		return e
	case errors.As(err, &se):
		return s.Errorf(se.Kind, se.Err, "%s failed: %s%s", tool, se.Msg, repeatWarning(safeRepeat || !se.MaybeRan))
	case errors.As(err, &in):
		return s.Errorf(session.KindCall, err, "%s: %v", tool, in)
	}
	return s.Errorf(session.KindCall, err, "%s failed: %v", tool, err)
}

// endedErr words a call to tool that failed because its session ended as end says.
func (s *Server) endedErr(end session.End, err error, tool string, safeRepeat bool) *Error {
	switch {
	case end.Cause == session.CauseExited:
		return s.withStderrText(s.Errorf(session.KindEnded, err, "the server process %s during the call to %s. The next call starts it again%s", end.Status, tool, repeatWarning(safeRepeat)), end.Stderr)
	case end.Cause == session.CauseClosed:
		return s.Errorf(KindStopped, err, "connection closed during the call to %s (server stopped)%s", tool, repeatWarning(safeRepeat))
	case errors.Is(end.Err, session.ErrReplyTooLarge):
		next := "The next call reconnects"
		if s.runsProcess() {
			next = "The server is restarted for the next call"
		}
		// The reply that ended the connection could not be matched to its call (no id
		// the bridge could find, or it came on streamable HTTP's GET stream): it may
		// have been this call's or another's on the same connection.
		return s.Errorf(session.KindCall, err, "%s: the connection ended under a reply it could not match to its call (this one's or another's): %s. %s%s",
			tool, end.Err.Error(), next, repeatWarning(safeRepeat))
	}
	return s.Errorf(session.KindEnded, err, "%s during the call to %s. The next call reconnects%s", lostText(end), tool, repeatWarning(safeRepeat))
}

// lostText says how a session's transport broke, for the model.
func lostText(e session.End) string {
	var re *Error
	if errors.As(e.Err, &re) {
		return strings.TrimPrefix(re.Msg, fmt.Sprintf("MCP server %q: ", re.Server))
	}
	return session.LostText(e)
}

func repeatWarning(safe bool) string {
	if safe {
		return "."
	}
	return ". The server may already have applied the call: check before retrying, a retry may repeat it."
}

// LoggedIn clears what the missing login left behind in the state machine: backoff and
// parking (the login itself is the connector's).
func (s *Server) LoggedIn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateBackoff || s.state == StateParked {
		s.state = StateAsleep
	}
	s.failures = 0
	s.retryAt = time.Time{}
	s.lastErr, s.lastErrUser = "", ""
	s.lastErrAt = time.Time{}
}
