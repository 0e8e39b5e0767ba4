package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/zslog"
	"github.com/zot-mcp/mcp-bridge/redact"
	"github.com/zot-mcp/mcp-bridge/session"
)

// HTTP transports (streamable HTTP and legacy SSE) through mcp-go.
//
//   - Headers: the configured headers (already ${VAR}-expanded by config) are added by our
//     own http.RoundTripper, so they go on every request mcp-go makes: POSTs, the GET
//     streams, the session DELETE and stream resumptions. They are only added to requests
//     for the server's own origin (scheme, host and port), never to a redirect target or
//     an OAuth endpoint elsewhere. A redirect to another origin carries neither them nor
//     the OAuth token or the session id, a 307 or 308 of a request with a body (a tool
//     call's arguments) to another origin is refused, and none goes from https to http
//     (origin.go).
//   - Every response's status and content type is noted in a probe carried by the request
//     context, so failures are classified from what the server really answered (mcp-go
//     folds most statuses of an initialize POST into ErrLegacySSEServer).
//   - url-only entries try the remembered transport (else streamable HTTP) first and fall
//     back to the other one only when the answer shows the server speaks it (4xx other
//     than 401/403 on the initialize POST, or an SSE "endpoint" event).
//   - Session recovery: a 404 for a request that carried our session id means the server
//     forgot the session; the request cannot have run, so we re-initialize once and send
//     it again. A dropped legacy SSE stream ends its session, so it drops the connection:
//     the next use reconnects (under the server's capped start backoff), and a call in
//     flight is only sent again when the tool is read-only or idempotent. Streamable
//     HTTP's optional GET stream is reopened by mcp-go; we add a capped backoff while the
//     server cannot be reached, and stop it for good if the server answers it with an
//     error (mcp-go would retry that every second).
//   - No secret in errors or logs: every text we produce, and every line mcp-go logs, is
//     passed through a redactor that knows the header values and the expanded URL.
//   - OAuth (oauth.go): with stored credentials the transport gets an OAuth config; a
//     configured Authorization header never replaces the OAuth one. A 401 announcing
//     OAuth, or no usable token, marks the server "needs login".

// httpSession is one streamable-HTTP or SSE session: mcp-go's client (session.Client)
// plus what only HTTP needs: re-initializing a session the server forgot, classifying
// failures from what the server answered, and ending itself when the SSE stream drops
// or the server cannot be reached any more (the state machine learns of it from Done).
type httpSession struct {
	*session.Client
	s        *Server
	kind     config.Transport
	rt       *Transport
	init     mcp.InitializeRequest
	reinitMu sync.Mutex // one session re-initialization at a time
}

func ended(s session.Session) bool {
	select {
	case <-s.Done():
		return true
	default:
		return false
	}
}

// Close ends the session and its idle HTTP connections.
func (hs *httpSession) Close(context.Context) error {
	hs.Finish(session.End{Cause: session.CauseClosed})
	err := hs.MCP().Close()
	hs.rt.CloseIdleConnections()
	return err
}

// lose ends the session because its transport broke (e says how, for the model); the
// requests waiting on it fail now.
func (hs *httpSession) lose(e *session.Error) bool {
	first := hs.Finish(session.End{Cause: session.CauseLost, Err: e})
	hs.closeConn()
	return first
}

// closeConn closes mcp-go's transport (the requests waiting on it fail) and the idle
// HTTP connections.
func (hs *httpSession) closeConn() {
	_ = hs.MCP().Close()
	hs.rt.CloseIdleConnections()
}

// streamLost handles an SSE stream that ended without our asking: legacy SSE sessions
// live as long as their stream, so the session ends and the next use reconnects.
func (hs *httpSession) streamLost(err error) {
	reason := "stream ended"
	if err != nil && !errors.Is(err, io.EOF) {
		reason = hs.rt.Redact(err.Error())
	}
	e := errorf(session.KindEnded, nil, "the SSE stream from %s dropped (%s)", redact.DisplayURL(hs.s.cfg), reason)
	var refused *EndpointError
	if errors.As(err, &refused) {
		e = errorf(session.KindEnded, refused, "the session with %s was closed: %s", redact.DisplayURL(hs.s.cfg), refused.Error())
	}
	if hs.lose(e) {
		hs.s.d.Log.Warn().Str("server", hs.s.cfg.Name).Str("reason", reason).Msg("SSE stream dropped")
	}
}

// replyLost ends the session as a stdio session ends after an over-size reply it cannot
// match to a request (session.ReplyLimiter): the calls waiting on the connection fail now
// with the reply cap's error instead of at requestTimeout, and the next use reconnects.
// It runs on the stream's reader, so the session is marked ended here (before mcp-go
// sees the stream end and calls it a drop) and closed elsewhere: closing a streamable
// HTTP session waits for the server's answer to its DELETE.
func (hs *httpSession) replyLost(err error) {
	if ended(hs) {
		return
	}
	// Logged before the end: the end fails the calls waiting (session.Client.request),
	// and what they answer must not come before the log says why.
	hs.s.d.Log.Warn().Str("server", hs.s.cfg.Name).Str("transport", string(hs.kind)).Str("reason", err.Error()).
		Msg("a reply over the reply cap could not be matched to its call (it named no id the bridge could find, or came on the GET stream, whose replies reach no call); the connection is closed and the next use reconnects")
	if hs.Finish(session.End{Cause: session.CauseLost, Err: err}) {
		go hs.closeConn()
	}
}

// RememberTransport records the transport that worked last for a url-only server.
func (s *Server) RememberTransport(t config.Transport) {
	if !s.cfg.TransportGuessed || (t != config.TransportStreamableHTTP && t != config.TransportSSE) {
		return
	}
	s.mu.Lock()
	s.remembered = t
	s.mu.Unlock()
}

// transportOrder is the list of transports to try, in order.
func (s *Server) transportOrder() []config.Transport {
	if !s.cfg.TransportGuessed {
		return []config.Transport{s.cfg.Transport}
	}
	s.mu.Lock()
	first := s.remembered
	s.mu.Unlock()
	if first == config.TransportSSE {
		return []config.Transport{config.TransportSSE, config.TransportStreamableHTTP}
	}
	return []config.Transport{config.TransportStreamableHTTP, config.TransportSSE}
}

// Open opens and initializes a streamable-HTTP or SSE session, falling back to the
// other transport for a url-only server whose answer shows it speaks that one. Its
// failures are *Error, worded for the model.
func (s *Server) Open(ctx context.Context, h session.Handlers) (session.Session, error) {
	creds, err := s.storedCreds()
	if err != nil {
		return nil, s.badCredsError()
	}
	order := s.transportOrder()
	note := ""
	for i, kind := range order {
		hs, p, err := s.openHTTPKind(ctx, kind, creds, h)
		if err == nil {
			s.RememberTransport(kind)
			s.needsLogin.Store(false)
			s.d.Log.Debug().Str("server", s.cfg.Name).Str("transport", string(kind)).Str("url", redact.DisplayURL(s.cfg)).Msg("connected")
			return hs, nil
		}
		if i+1 < len(order) && ctx.Err() == nil && WrongTransport(kind, p, err) {
			s.d.Log.Info().Str("server", s.cfg.Name).Str("tried", string(kind)).Str("answer", p.Describe()).
				Msg("url-only server does not speak this transport; trying the other one")
			note = fmt.Sprintf(" (%s was tried first and answered %s)", kind, p.Describe())
			continue
		}
		return nil, s.startError(ctx, kind, p, err, note)
	}
	return nil, errorf(session.KindStart, nil, "no transport to try")
}

func (s *Server) openHTTPKind(ctx context.Context, kind config.Transport, creds *oauthCreds, h session.Handlers) (*httpSession, ProbeInfo, error) {
	// The transport tells the session of a reply it had to give up on; both are made
	// before mcp-go starts reading.
	if kind == config.TransportSSE {
		// HTTP+SSE is a legacy transport: no modern server speaks it.
		h.Era = h.Era.Legacy()
	}
	// A re-initialization (the server forgot the session) happens on a legacy
	// connection only, and asks for its revision without a probe.
	hs := &httpSession{s: s, kind: kind, init: h.Init}
	hs.init.Params.ProtocolVersion = h.Era.LegacyVersion()
	rt := s.newHeaderTransport(kind, hs.replyLost)
	hs.rt = rt
	hc := &http.Client{Transport: rt}
	logger := zslog.New(s.d.Log.With().Str("server", s.cfg.Name).Str("transport", string(kind)).Logger(), rt.Redact)
	pctx, p := WithProbe(ctx)
	var store *tokenStore
	if creds != nil {
		store = s.newTokenStore()
	}
	var tr transport.Interface
	switch kind {
	case config.TransportSSE:
		opts := []transport.ClientOption{transport.WithHTTPClient(hc), transport.WithSSELogger(logger),
			// Our connect context decides (and words) an endpoint that never comes; mcp-go's
			// own timer only backs it up, so it must not win the race on a loaded machine.
			transport.WithEndpointTimeout(2 * s.cfg.ConnectTimeout),
			// Our contexts bound every request; this only backs them up.
			transport.WithResponseTimeout(s.cfg.RequestTimeout + s.cfg.ConnectTimeout)}
		if store != nil {
			opts = append(opts, transport.WithOAuth(s.oauthConfig(creds, rt, store)))
		}
		t, err := transport.NewSSE(s.cfg.URL, opts...)
		if err != nil {
			return nil, ProbeInfo{}, err
		}
		if store != nil {
			store.handler = t.GetOAuthHandler()
		}
		tr = t
	default:
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(hc), transport.WithHTTPLogger(logger),
			// The GET stream carries a legacy server's notifications such as
			// tools/list_changed; mcp-go opens it only once the connection settled on
			// the legacy era (a modern one listens with subscriptions/listen), and
			// session's era guard lets the connection probe first.
			//lint:ignore SA1019 the standalone GET stream is what 2025-11-25 servers use for list_changed
			transport.WithContinuousListening()}
		if store != nil {
			opts = append(opts, transport.WithHTTPOAuth(s.oauthConfig(creds, rt, store)))
		}
		t, err := transport.NewStreamableHTTP(s.cfg.URL, opts...)
		if err != nil {
			return nil, ProbeInfo{}, err
		}
		if store != nil {
			store.handler = t.GetOAuthHandler()
		}
		tr = t
	}
	hw := h
	hw.Wrap = func(tr transport.Interface) transport.Interface {
		if h.Wrap != nil {
			tr = h.Wrap(tr)
		}
		return withAnswerIDs(tr)
	}
	hs.Client = session.NewClient(tr, kind, hw)
	hs.SetLink(session.Link{Around: hs.around})
	var err error
	if kind == config.TransportSSE {
		hs.MCP().OnConnectionLost(hs.streamLost)
		if err = startSSE(pctx, hs.MCP(), p); err == nil {
			err = hs.Handshake(pctx, h)
		}
	} else {
		err = hs.Initialize(pctx, h)
	}
	if err != nil && ended(hs) {
		err = fmt.Errorf("the SSE stream closed before the handshake finished: %w", err)
	}
	if err != nil {
		_ = hs.Close(context.Background())
		return nil, p.Snapshot(), err
	}
	if hs.ProbeAnswered() {
		// The server answered server/discover with a result that did not make it
		// modern, which mcp-go's transport took for a modern connection: it would open
		// no GET stream. A new connection speaks the legacy era from the start.
		s.d.Log.Info().Str("server", s.cfg.Name).Msg("server/discover answered but not as a modern server; reconnecting in the legacy era")
		_ = hs.Close(context.Background())
		h.Era = h.Era.Legacy()
		return s.openHTTPKind(ctx, kind, creds, h)
	}
	return hs, p.Snapshot(), nil
}

// startSSE opens the SSE stream and waits for its endpoint event within ctx. The stream
// itself must outlive ctx, so it gets a context without ctx's deadline (but its values,
// p among them). An endpoint event the transport refused (p.Refused) fails it at once:
// mcp-go would wait for another one until its timeout.
func startSSE(ctx context.Context, cl *client.Client, p *Probe) error {
	done := make(chan error, 1)
	sctx := context.WithoutCancel(ctx)
	go func() { done <- cl.Start(sctx) }()
	select {
	case err := <-done:
		if refused := p.Refusal(); refused != nil {
			return refused
		}
		return err
	case <-p.Refused():
		_ = cl.Close()
		<-done
		return p.Refusal()
	case <-ctx.Done():
		_ = cl.Close()
		<-done
		return ctx.Err()
	}
}

// reinit starts a new session after the server forgot ours, unless a concurrent caller
// already did.
func (hs *httpSession) reinit(ctx context.Context) error {
	hs.reinitMu.Lock()
	defer hs.reinitMu.Unlock()
	if hs.MCP().GetSessionId() != "" {
		return nil // someone else re-initialized meanwhile
	}
	_, err := hs.MCP().Initialize(ctx, hs.init)
	return err
}

// around runs one request of the session (session.Link.Around): a tools/list bounded by
// requestTimeout and worded as a listing, any other as retry runs it.
func (hs *httpSession) around(ctx context.Context, method string, do func(context.Context) error) error {
	if method != string(mcp.MethodToolsList) {
		return hs.retry(ctx, do)
	}
	s := hs.s
	lctx, cancel := clock.WithTimeout(ctx, s.d.Clock, s.cfg.RequestTimeout)
	defer cancel()
	err := hs.retry(lctx, do)
	if err == nil {
		return nil
	}
	var f *session.Error
	var end *session.EndedError
	switch {
	case ended(hs):
		// The session's end cancels ctx too; it explains better than a cancellation.
		return &session.EndedError{End: hs.End(), Err: err}
	case ctx.Err() != nil:
		return ctxError(ctx, "listing tools")
	case errors.Is(lctx.Err(), context.DeadlineExceeded):
		return errorf(session.KindTimeout, err, "list tools: no answer within requestTimeout (%s)", s.cfg.RequestTimeout)
	case errors.As(err, &end):
		return errorf(session.KindEnded, err, "list tools: %s; the next use reconnects", session.LostText(end.End))
	case errors.As(err, &f):
		return errorf(f.Kind, err, "list tools: %s", f.Msg)
	}
	return errorf(session.KindCall, err, "list tools: %v", err)
}

// retry runs one request with session recovery: a request the server refused because it
// forgot our session (it cannot have run) is sent again once on a new session. A failure
// is returned as is when ctx ended (the caller words it), as an *session.EndedError when
// the session ended under it, else classified (*session.Error) unless the server answered.
func (hs *httpSession) retry(ctx context.Context, do func(context.Context) error) error {
	retried := false
	prefix := ""
	for {
		pctx, p := WithProbe(ctx)
		err := do(pctx)
		if err == nil {
			hs.s.needsLogin.Store(false)
			return nil
		}
		pi := p.Snapshot()
		switch {
		case ctx.Err() != nil:
			return err
		case ended(hs):
			return &session.EndedError{End: hs.End(), Err: err}
		case !retried && SessionLost(pi, err):
			retried = true
			if rerr := hs.reinit(ctx); rerr != nil {
				err, pi, prefix = rerr, ProbeInfo{}, "the server forgot our session and starting a new one failed: "
				break
			}
			hs.s.d.Log.Info().Str("server", hs.s.cfg.Name).Msg("server forgot the session (HTTP 404); re-initialized and sending the request again")
			continue
		}
		return hs.failure(pi, err, prefix)
	}
}

// failure classifies a failed request on a live session; a server that cannot be reached
// any more ends the session.
func (hs *httpSession) failure(p ProbeInfo, err error, prefix string) error {
	var big *session.TooLargeError
	if errors.As(err, &big) {
		// The server answered, over the cap: only this request fails.
		return &session.Error{Kind: session.KindCall, Msg: prefix + big.Error(), MaybeRan: true, Err: err}
	}
	if ServerAnswered(p, err) {
		if prefix != "" {
			return fmt.Errorf("%s%w", prefix, err)
		}
		return err
	}
	f := hs.s.classify(hs.kind, p, err)
	if f.StepUp != nil {
		hs.s.noteStepUp(f.StepUp)
	}
	if f.NeedsLogin {
		hs.s.markNeedsLogin()
	}
	if f.Kind == session.KindUnreachable {
		hs.lose(errorf(f.Kind, err, "%s", f.Msg))
	}
	return &session.Error{Kind: f.Kind, Msg: prefix + f.Msg, MaybeRan: f.MaybeRan, Err: err}
}

// startError words a failed connect of the given transport.
func (s *Server) startError(ctx context.Context, kind config.Transport, p ProbeInfo, err error, note string) *session.Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && kind == config.TransportSSE && p.Method == http.MethodGet && p.Status == http.StatusOK {
		return errorf(session.KindTimeout, err, "%s opened an event stream but sent no SSE endpoint event within connectTimeout (%s)%s; if it is a streamable HTTP server, set \"transport\": \"streamable-http\"",
			redact.DisplayURL(s.cfg), s.cfg.ConnectTimeout, note)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errorf(session.KindTimeout, err, "no answer from %s within connectTimeout (%s)%s; check that the url is right, or raise \"connectTimeout\" in %s if the server is slow",
			redact.DisplayURL(s.cfg), s.cfg.ConnectTimeout, note, s.cfg.Source)
	}
	f := s.classify(kind, p, err)
	if f.StepUp != nil {
		s.noteStepUp(f.StepUp)
	}
	if f.NeedsLogin {
		s.markNeedsLogin()
	}
	k := f.Kind
	if k == session.KindCall {
		k = session.KindStart
	}
	return errorf(k, err, "cannot connect to %s: %s%s", redact.DisplayURL(s.cfg), f.Msg, note)
}

// classify says what went wrong (Classify), worded for this server.
func (s *Server) classify(kind config.Transport, p ProbeInfo, err error) Failure {
	return Classify(kind, p, err, Where{Host: HostPort(s.cfg.URL), Source: s.cfg.Source,
		LoginCmd: s.d.Cmd("login", s.cfg.Name), AuthHint: s.authHint(), HasHeaders: len(s.cfg.Raw.Headers) > 0, OAuth: s.hasOAuthLogin()})
}

// authHint says how to fix a 401/403.
func (s *Server) authHint() string {
	var vars, keys []string
	for _, k := range slices.Sorted(maps.Keys(s.cfg.Raw.Headers)) {
		keys = append(keys, k)
		for _, r := range config.Refs(s.cfg.Raw.Headers[k]) {
			if r.Var != "" {
				vars = append(vars, "${"+r.Var+"}")
			}
		}
	}
	login := fmt.Sprintf("if the server uses OAuth, run %s", s.d.Cmd("login", s.cfg.Name))
	switch {
	case len(vars) > 0:
		return fmt.Sprintf("Check that %s (used in \"headers\" of %s) is set, in the environment zot starts from, to a valid token, then run %s; or, %s.",
			strings.Join(vars, ", "), s.cfg.Source, s.d.Cmd("restart", s.cfg.Name), login)
	case len(keys) > 0:
		return fmt.Sprintf("Check the credentials in \"headers\" (%s) of %s; or, %s.", strings.Join(keys, ", "), s.cfg.Source, login)
	}
	return fmt.Sprintf("Add the credentials it needs to \"headers\" in %s (e.g. \"Authorization\": \"Bearer ${TOKEN}\" with TOKEN set in the environment); or, %s.", s.cfg.Source, login)
}

// newHeaderTransport is the RoundTripper of one connection to s (Transport); replyLost is
// Options.ReplyLost.
func (s *Server) newHeaderTransport(kind config.Transport, replyLost func(error)) *Transport {
	return NewTransport(Options{Kind: kind, URL: s.cfg.URL, Headers: s.cfg.Headers, ConnectTimeout: s.cfg.ConnectTimeout,
		Resolver: s.d.Resolver, Base: s.d.base, Redact: s.redactor(), Clock: s.d.Clock, Answered: s.d.Answered, MaxReply: s.d.MaxReply,
		Dropped: session.LogDropped(s.d.Log, s.cfg.Name, kind), ReplyLost: replyLost})
}
