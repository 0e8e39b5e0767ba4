package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// Where the era is decided. MCP has two eras: the legacy one (initialize, sessions, the
// GET stream; up to 2025-11-25) and the modern one (2026-07-28: no initialize, every
// request carries its _meta, server/discover, subscriptions/listen). Every transport's
// connection is negotiated here, in Client.Handshake, from an Era: the config's pin, the
// era the server spoke last (remembered with its cache entry) and the probe's deadline.
// mcp-go's Client.Initialize does the probe and the fallback; what it lacks is done by
// the eraGuard below, a wrapper over the transport that sees every request mcp-go sends:
//
//   - the probe gets its own deadline on the injected clock (mcp-go's own timer is
//     switched off), and ends when the session does (a server that exits on it);
//   - a server/discover answer is checked: mcp-go takes any result for a modern server,
//     so one without the requested version among supportedVersions, or without
//     capabilities, is refused here, which makes mcp-go fall back to initialize;
//   - pinned to the modern era, the fallback's initialize is never sent;
//   - a probe that could not be authorized (no usable token, HTTP 401) is not followed
//     by initialize either: the handshake fails with that error (authErrOf);
//   - a server that claimed the modern era and then answers like a legacy one (an error
//     before any request succeeded) fails that request with a *ClaimedModernError, on
//     which the caller reopens once in the legacy era.
//
// The fallback follows the spec's dual-era rule: any failure of the probe that is not a
// modern answer, and its timeout, fall back; -32022 with data.supported naming another
// modern version is retried once by mcp-go (negotiateModern), and naming the version
// asked for, once by the guard.

// DefaultProbeTimeout bounds server/discover on a server whose era is unknown; a server
// that answered it last time gets RememberedProbeTimeout, so a slow start does not make
// it fall back.
const (
	DefaultProbeTimeout    = 3 * time.Second
	RememberedProbeTimeout = 4 * DefaultProbeTimeout
)

// Era decides the MCP revision a connection speaks (Handlers.Era).
type Era struct {
	// Pin is the config's "protocolVersion": a legacy revision speaks it without a probe,
	// a modern one speaks only that era; "" negotiates.
	Pin string
	// Known is the revision the server spoke last ("": unknown): a legacy one is spoken
	// without a probe, a modern one is probed for first.
	Known string
	// Clock times the probe and the listen stream's backoff (nil: the real clock).
	Clock clock.Clock
	// ProbeTimeout bounds the probe of a server whose era is unknown (0:
	// DefaultProbeTimeout).
	ProbeTimeout time.Duration
	// ListenEnded is told when a modern connection's subscriptions/listen stream ended
	// while the session lives (it is reopened after a capped backoff); nil: nobody.
	ListenEnded func(error)
}

// Legacy is e speaking the legacy era without a probe (legacy SSE; the reopen after a
// false modern claim or an exit on the probe). A modern pin stays: it refuses the
// legacy era.
func (e Era) Legacy() Era {
	if !mcp.IsModernProtocol(e.Pin) {
		e.Known = e.LegacyVersion()
	}
	return e
}

// LegacyVersion is the revision asked for in initialize: a pinned legacy one, else the
// newest legacy revision (the server answers with the one it speaks).
func (e Era) LegacyVersion() string {
	if e.Pin != "" && !mcp.IsModernProtocol(e.Pin) {
		return e.Pin
	}
	return mcp.LATEST_LEGACY_PROTOCOL_VERSION
}

// plan is what a connection does first.
type plan struct {
	probe   bool          // send server/discover before anything
	only    bool          // the modern era only: no fallback to initialize
	version string        // the revision asked for
	timeout time.Duration // the probe's deadline (probe only)
}

func (e Era) plan() plan {
	switch {
	case e.Pin != "" && !mcp.IsModernProtocol(e.Pin):
		return plan{version: e.Pin}
	case e.Pin != "":
		return plan{probe: true, only: true, version: e.Pin, timeout: RememberedProbeTimeout}
	case e.Known != "" && !mcp.IsModernProtocol(e.Known):
		return plan{version: mcp.LATEST_LEGACY_PROTOCOL_VERSION}
	case e.Known != "":
		return plan{probe: true, version: mcp.LATEST_PROTOCOL_VERSION, timeout: RememberedProbeTimeout}
	}
	t := e.ProbeTimeout
	if t <= 0 {
		t = DefaultProbeTimeout
	}
	return plan{probe: true, version: mcp.LATEST_PROTOCOL_VERSION, timeout: t}
}

func (e Era) clock() clock.Clock {
	if e.Clock == nil {
		return clock.System{}
	}
	return e.Clock
}

// NotModernError is a connection pinned to the modern era ("protocolVersion":
// "2026-07-28") to a server that did not answer server/discover as a modern one.
type NotModernError struct {
	Version string
	// Probe says how the probe went.
	Probe string
}

func (e *NotModernError) Error() string {
	return fmt.Sprintf("the server does not speak MCP %s (server/discover: %s), and \"protocolVersion\" allows no other revision; remove \"protocolVersion\" from its entry to let the bridge negotiate, or set it to %q",
		e.Version, e.Probe, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
}

// ClaimedModernError is the first request of a connection that the server answered as
// a legacy server would (an error before any request succeeded), after it had answered
// server/discover as a modern one: the caller reopens the connection once in the legacy
// era (Era.Legacy).
type ClaimedModernError struct {
	Err error
}

func (e *ClaimedModernError) Error() string {
	return "the server answered server/discover as an MCP 2026-07-28 server, then refused a request as a legacy server does (" + e.Err.Error() + ")"
}
func (e *ClaimedModernError) Unwrap() error { return e.Err }

// BadDiscoverError is a server/discover result that does not make a modern server.
type BadDiscoverError struct {
	Why string
}

func (e *BadDiscoverError) Error() string { return "not a modern server/discover result: " + e.Why }

// maxProbeText bounds the server's text in a probe's outcome.
const maxProbeText = 200

// eraGuard sees the requests of one connection before its transport (see the comment
// at the top of this file).
type eraGuard struct {
	plan  plan
	clock clock.Clock
	life  context.Context // ends with the session

	mu       sync.Mutex
	probes   int    // server/discover requests sent during the handshake
	outcome  string // how the last probe went, for errors and the log
	lost     bool   // the transport broke under the probe (a server that exits on it)
	answered bool   // the transport saw a result to a probe, accepted or not
	modern   bool   // a probe was answered as a modern server answers
	settled  bool   // the handshake is over
	proven   bool   // a request after a modern handshake succeeded
	timedOut bool   // the probe went unanswered within its deadline
	// authErr is the probe's failure when it was one of authorization: the fallback's
	// initialize fails with it too (authErrOf).
	authErr error
}

// authErrOf is err when it says the request could not be authorized: no usable token
// (mcp-go's OAuth handler, which refreshes an expired one first) or an HTTP 401. Such a
// failure of the probe says nothing of the era, and initialize would go out with the same
// credentials to the same endpoint: it would only fail again, or with another error that
// hides this one (a refresh the authorization server refused is the login's end, and the
// fallback would read the credentials anew), so the handshake fails with the probe's error
// and the next connection, after a login, probes again.
func authErrOf(err error) error {
	if errors.Is(err, transport.ErrOAuthAuthorizationRequired) || errors.Is(err, transport.ErrAuthorizationRequired) {
		return err
	}
	return nil
}

// legacyLike reports whether a JSON-RPC error is what a legacy server answers to a
// request that came without initialize: invalid request (not initialized), or an
// implementation-defined server error (no session), but none of the modern era's own
// errors. Invalid params is not among them: a modern server says so of a request's
// _meta.
func legacyLike(d *mcp.JSONRPCErrorDetails) bool {
	switch d.Code {
	case mcp.INVALID_REQUEST:
		return true
	case mcp.UNSUPPORTED_PROTOCOL_VERSION, mcp.RESOURCE_NOT_FOUND, mcp.URL_ELICITATION_REQUIRED,
		mcp.HEADER_MISMATCH, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY:
		return false
	}
	return d.Code <= -32000 && d.Code >= -32099
}

// send is the guard's SendRequest over next.
func (g *eraGuard) send(ctx context.Context, req transport.JSONRPCRequest,
	next func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error)) (*transport.JSONRPCResponse, error) {
	g.mu.Lock()
	settled, check := g.settled, g.settled && g.modern && !g.proven
	g.mu.Unlock()
	switch {
	case !settled && req.Method == string(mcp.MethodServerDiscover):
		return g.discover(ctx, req, next)
	case !settled && req.Method == string(mcp.MethodInitialize):
		g.mu.Lock()
		authErr, outcome := g.authErr, g.outcome
		g.mu.Unlock()
		switch {
		case authErr != nil:
			// Before the modern pin's refusal too: the server may well be modern, and
			// what the user must do is log in, not edit "protocolVersion".
			return nil, authErr
		case g.plan.only:
			return nil, &NotModernError{Version: g.plan.version, Probe: outcome}
		}
		return next(ctx, req)
	case !check || req.Method == string(mcp.MethodSubscriptionsListen):
		return next(ctx, req)
	}
	resp, err := next(ctx, req)
	switch {
	case err == nil && resp != nil && resp.Error != nil && legacyLike(resp.Error):
		g.mu.Lock()
		proven := g.proven
		g.mu.Unlock()
		if !proven {
			return nil, &ClaimedModernError{Err: resp.Error.AsError()}
		}
	case err == nil && resp != nil && resp.Error == nil:
		g.mu.Lock()
		g.proven = true
		g.mu.Unlock()
	}
	return resp, err
}

// discover sends one probe under its own deadline, ended early by the session's end,
// and judges its answer. A -32022 whose data.supported names the very version asked for
// (a server that rejects a client's first request whatever it says) is sent once more
// here: mcp-go retries only when the list names another version, and would otherwise
// fall back to initialize on a server that speaks only the modern era.
func (g *eraGuard) discover(ctx context.Context, req transport.JSONRPCRequest,
	next func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error)) (*transport.JSONRPCResponse, error) {
	pctx, cancel := clock.WithTimeout(ctx, g.clock, g.plan.timeout)
	defer cancel()
	stop := context.AfterFunc(g.life, cancel)
	defer stop()
	resp, err := next(pctx, req)
	if err == nil && supportsAsked(resp, requestedVersion(req.Params)) {
		// A new id: the first one has had its answer, and JSON-RPC ids are not reused.
		again := req
		again.ID = mcp.NewRequestId("mcp-bridge-discover-" + nonce())
		resp, err = next(pctx, again)
		if resp != nil {
			resp.ID = req.ID
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.probes++
	switch {
	case err != nil && ctx.Err() == nil && g.life.Err() != nil:
		g.lost = true
		g.outcome = "the server ended the connection"
	case err != nil && ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded):
		g.outcome = fmt.Sprintf("no answer within %s", g.plan.timeout)
		g.timedOut = true
	case err != nil:
		g.lost = TransportLost(err)
		g.authErr = authErrOf(err)
		if g.lost {
			g.outcome = "the server ended the connection"
		} else {
			g.outcome = textcut.Truncate(err.Error(), maxProbeText)
		}
	case resp == nil:
		g.outcome = "no answer"
		return nil, &BadDiscoverError{Why: "no answer"}
	case resp.Error != nil:
		g.outcome = textcut.Truncate(fmt.Sprintf("error %d: %s", resp.Error.Code, resp.Error.Message), maxProbeText)
	default:
		g.answered = true
		if why := checkDiscover(resp.Result, requestedVersion(req.Params)); why != "" {
			g.outcome = "a result " + why
			return nil, &BadDiscoverError{Why: why}
		}
		g.modern = true
		g.outcome = "answered"
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// supportsAsked reports whether resp is a -32022 (unsupported protocol version) whose
// data.supported lists version itself.
func supportsAsked(resp *transport.JSONRPCResponse, version string) bool {
	if resp == nil || resp.Error == nil || resp.Error.Code != mcp.UNSUPPORTED_PROTOCOL_VERSION || version == "" {
		return false
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	raw, err := json.Marshal(resp.Error.Data)
	if err != nil || json.Unmarshal(raw, &data) != nil {
		return false
	}
	return slices.Contains(data.Supported, version)
}

// settle ends the handshake: what the guard checks from now on is the first requests.
func (g *eraGuard) settle(modern bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.settled = true
	g.modern = modern
}

// state is what the probe found, for the caller of the handshake.
func (g *eraGuard) state() (probes int, outcome string, lost, answered bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.probes, g.outcome, g.lost, g.answered
}

// guessed reports whether a connection that settled on the legacy era did so only
// because the probe went unanswered in time: a server slow to start (npx, uvx fetching a
// package) looks the same, so that era is not worth remembering.
func (g *eraGuard) guessed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.timedOut && !g.modern
}

// metaOf is a request's _meta (nil when none).
func metaOf(params any) json.RawMessage {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil
	}
	var p struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	return p.Meta
}

// requestedVersion is the revision a request's _meta declares ("" when none).
func requestedVersion(params any) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(metaOf(params), &m) != nil {
		return ""
	}
	var v string
	_ = json.Unmarshal(m[mcp.MetaKeyProtocolVersion], &v)
	return v
}

// checkDiscover says why a server/discover result does not make a modern server that
// speaks want ("" when it does): it must be an object whose supportedVersions (strings)
// include want, with capabilities an object.
func checkDiscover(result json.RawMessage, want string) string {
	var r struct {
		SupportedVersions *[]string      `json:"supportedVersions"`
		Capabilities      map[string]any `json:"capabilities"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "that is not a discover result (" + textcut.Truncate(err.Error(), maxProbeText) + ")"
	}
	switch {
	case r.SupportedVersions == nil:
		return "without supportedVersions"
	case want == "" || !slices.Contains(*r.SupportedVersions, want):
		return fmt.Sprintf("whose supportedVersions %q do not include %s", textcut.Truncate(fmt.Sprint(*r.SupportedVersions), maxProbeText), want)
	case r.Capabilities == nil:
		return "without capabilities"
	}
	return ""
}

// The guard keeps every optional interface mcp-go's client looks for on the transport it
// wraps (server requests, the HTTP connection's version header); it tells mcp-go that a
// streamable HTTP transport made with the GET stream may still probe: the stream only
// opens once the connection settled on the legacy era.

type streamableConn interface {
	transport.BidirectionalInterface
	transport.HTTPConnection
	RequiresLegacyProtocol() bool
}

type guardedPlain struct {
	transport.Interface
	g *eraGuard
}

func (t *guardedPlain) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return t.g.send(ctx, req, t.Interface.SendRequest)
}

type guardedBidi struct {
	transport.BidirectionalInterface
	g *eraGuard
}

func (t *guardedBidi) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return t.g.send(ctx, req, t.BidirectionalInterface.SendRequest)
}

type guardedStreamable struct {
	streamableConn
	g *eraGuard
}

func (t *guardedStreamable) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return t.g.send(ctx, req, t.streamableConn.SendRequest)
}

// RequiresLegacyProtocol is false: see above.
func (t *guardedStreamable) RequiresLegacyProtocol() bool { return false }

// withGuard wraps tr in g.
func withGuard(tr transport.Interface, g *eraGuard) transport.Interface {
	switch t := tr.(type) {
	case streamableConn:
		return &guardedStreamable{streamableConn: t, g: g}
	case transport.BidirectionalInterface:
		return &guardedBidi{BidirectionalInterface: t, g: g}
	}
	return &guardedPlain{Interface: tr, g: g}
}
