package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
)

// Client is the part of every Session that is the same over any transport: the
// requests, made through one mcp-go client, and the done signal. The transport-specific
// sessions embed it and decide the End.
type Client struct {
	cl   *client.Client
	info Info
	// clientInfo is who the bridge says it is (Handlers.Init), for the _meta of the
	// requests sent around mcp-go (send); tool is Handlers.Tool.
	clientInfo mcp.Implementation
	tool       func(name string) (mcp.Tool, bool)

	hintsMu sync.Mutex
	hints   CacheHints // of the last tool listing

	// The fast tools/call path (fastcall.go): the session's _meta fields, encoded once,
	// and the ids of its calls.
	metaOnce   sync.Once
	meta       []byte
	prefixOnce sync.Once
	prefix     string
	calls      atomic.Uint64

	era  Era
	plan plan
	// guard sees the requests of a connection that probes (era.go); nil when it speaks
	// the legacy era from the start.
	guard *eraGuard
	// life ends with the session (Finish): the probe and the listen stream end with it.
	life     context.Context
	lifeDone context.CancelFunc

	endOnce sync.Once
	done    chan struct{}
	end     End

	link Link
}

// Link is what a transport's session supplies to the one wrapper every request goes
// through (request): how it tells that a failure means the session ended, and what it
// does around each request. The zero Link is a transport whose end is always signalled
// (Finish) before its requests fail (in-process).
type Link struct {
	// Lost reports whether err means the transport is gone (a closed pipe): the request
	// then waits for the end signal (Done), within its ctx and reapGrace on Clock, and
	// fails with an *EndedError. nil: only an end already signalled counts.
	Lost func(err error) bool
	// Clock bounds the wait after a loss (nil: the system clock).
	Clock clock.Clock
	// Around runs each request (method names it, as the Session method does), for what a
	// transport does around one: HTTP re-initializes a session the server forgot and
	// classifies failures (*Error). nil: the request runs as it is.
	Around func(ctx context.Context, method string, do func(context.Context) error) error
}

// SetLink installs the transport's Link; it is called once, before Initialize.
func (c *Client) SetLink(l Link) { c.link = l }

// NewClient makes the mcp-go client of one session over tr, as h says; kind is the
// transport reported in Info.
func NewClient(tr transport.Interface, kind config.Transport, h Handlers) *Client {
	if h.Input.Sample == nil {
		tr = guardSampling(tr, h.Input.Server, h.Input.SamplingRefused)
	}
	if h.Wrap != nil {
		tr = h.Wrap(tr)
	}
	c := &Client{info: Info{Transport: kind}, era: h.Era, plan: h.Era.plan(), done: make(chan struct{}),
		clientInfo: h.Init.Params.ClientInfo, tool: h.Tool}
	c.life, c.lifeDone = context.WithCancel(context.Background())
	opts := h.Options
	if h.Input.Sample != nil {
		opts = append(slices.Clip(opts), client.WithSamplingHandler(legacySampler{in: h.Input, life: c.life}), declareSampling)
	}
	if c.plan.probe {
		c.guard = &eraGuard{plan: c.plan, clock: h.Era.clock(), life: c.life}
		tr = withGuard(tr, c.guard)
		// The guard bounds the probe on the injected clock; mcp-go's own timer would
		// race it on the real one.
		opts = append(slices.Clip(opts), client.WithDiscoverTimeout(-1))
	}
	// Outermost: the rounds of a result that asks for input are retried through the
	// guards below, each one a request of its own.
	tr = withRounds(tr, h.Input)
	c.cl = client.NewClient(tr, opts...)
	return c
}

// legacySampler answers a legacy server's own sampling/createMessage requests with
// Inputs.Sample, as a result's input requests are answered, and ends the request with
// the session: a stdio transport hands its requests a context that never ends.
type legacySampler struct {
	in   Inputs
	life context.Context
}

// CreateMessage answers one sampling request; an error goes back to the server as the
// JSON-RPC error of its request, with the error's text.
func (l legacySampler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(l.life, cancel)()
	res, err := l.in.sample(ctx, req, false)
	if err == nil && res == nil {
		err = errNoSample
	}
	return res, err
}

// declareSampling advertises the sampling capability of an installed sampler, setting
// only that member so that the capabilities configured before stay (a sampling member
// a host's option set, with its sub-capabilities, among them).
func declareSampling(c *client.Client) {
	cc := c.GetClientCapabilities()
	if cc.Sampling == nil {
		cc.Sampling = &mcp.SamplingCapability{}
		client.WithClientCapabilities(cc)(c)
	}
}

// Initialize starts the client and runs the initialize handshake under ctx.
func (c *Client) Initialize(ctx context.Context, h Handlers) error {
	if err := c.cl.Start(context.Background()); err != nil {
		return &startErr{what: "transport", err: err}
	}
	return c.Handshake(ctx, h)
}

// Handshake installs the notification handler and initializes (the client is started).
func (c *Client) Handshake(ctx context.Context, h Handlers) error {
	if h.OnNotification != nil {
		c.cl.OnNotification(h.OnNotification)
	}
	init := h.Init
	init.Params.ProtocolVersion = c.plan.version
	res, err := c.cl.Initialize(ctx, init)
	modern := err == nil && mcp.IsModernProtocol(c.cl.ProtocolVersion())
	if c.guard != nil {
		c.guard.settle(modern)
	}
	if err != nil {
		var nm *NotModernError
		if errors.As(err, &nm) {
			return nm
		}
		return &startErr{what: "initialize", err: err}
	}
	// Server text, kept sanitized (internal/safetext) for whoever shows it.
	c.info.ServerName = safetext.Sanitize(res.ServerInfo.Name)
	c.info.Instructions = safetext.Sanitize(res.Instructions)
	c.info.Capabilities = res.Capabilities
	c.info.Protocol = c.cl.ProtocolVersion()
	c.info.ProtocolGuessed = !modern && c.guard != nil && c.guard.guessed()
	if modern && res.Capabilities.Extensions[TasksExtension] != nil {
		// Declared from now on in every request's capabilities (_meta), as the extension
		// asks; the handshake is over, so no request is being sent meanwhile.
		cc := c.cl.GetClientCapabilities()
		cc.Extensions = maps.Clone(cc.Extensions)
		if cc.Extensions == nil {
			cc.Extensions = map[string]any{}
		}
		cc.Extensions[TasksExtension] = map[string]any{}
		client.WithClientCapabilities(cc)(c.cl)
		c.info.Tasks = true
	}
	if modern {
		c.listen(res.Capabilities)
	}
	return nil
}

// TasksExtension is the tasks extension's identifier (SEP-2663).
const TasksExtension = "io.modelcontextprotocol/tasks"

// taskUpdate is the tasks extension's method that brings a task its input (mcp-go, which
// knows only 2025-11-25 tasks, has no name for it).
const taskUpdate mcp.MCPMethod = "tasks/update"

// probeEnded reports whether the transport broke under the probe: a server that exits
// on server/discover, which a new connection in the legacy era may still reach.
func (c *Client) probeEnded() bool {
	if c.guard == nil || c.plan.only {
		return false
	}
	_, _, lost, _ := c.guard.state()
	return lost
}

// ProbeAnswered reports whether the transport saw a result to server/discover, accepted
// or not, on a connection that settled on the legacy era: a streamable HTTP transport
// then took the connection for a modern one and will not open the GET stream, so the
// caller reopens it in the legacy era (Era.Legacy).
func (c *Client) ProbeAnswered() bool {
	if c.guard == nil || mcp.IsModernProtocol(c.info.Protocol) {
		return false
	}
	_, _, _, answered := c.guard.state()
	return answered
}

// nonce is a random word for the ids of the requests the bridge sends around mcp-go,
// so that they never meet mcp-go's own (numeric) ids or each other.
func nonce() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startErr is a failed start step ("initialize: ...").
type startErr struct {
	what string
	err  error
}

func (e *startErr) Error() string { return e.what + ": " + e.err.Error() }
func (e *startErr) Unwrap() error { return e.err }

// Finish records why the session ended (the first reason wins) and closes done.
func (c *Client) Finish(e End) bool {
	first := false
	c.endOnce.Do(func() {
		c.end = e
		close(c.done)
		if c.lifeDone != nil {
			c.lifeDone()
		}
		first = true
	})
	return first
}

// MCP is the session's mcp-go client, for what only a transport's own session needs
// (its session id, connection-loss callback); the state machine never sees it.
func (c *Client) MCP() *client.Client { return c.cl }

func (c *Client) Info() Info            { return c.info }
func (c *Client) Done() <-chan struct{} { return c.done }

func (c *Client) End() End {
	select {
	case <-c.done:
		return c.end
	default:
		return End{}
	}
}

func (c *Client) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// request is the one wrapper every Session request goes through, so that an ended
// session fails every request the same way (the Session contract): at once when it had
// ended, else run under a context the session's end cancels, through Link.Around, and
// then an *EndedError when the failure was the session's end.
func (c *Client) request(ctx context.Context, method string, do func(context.Context) error) error {
	if c.ended() {
		return &EndedError{End: c.End(), Err: ErrEnded}
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.life != nil {
		defer context.AfterFunc(c.life, cancel)()
	}
	run := do
	if c.link.Around != nil {
		run = func(ctx context.Context) error { return c.link.Around(ctx, method, do) }
	}
	err := run(rctx)
	if err == nil {
		return nil
	}
	var bad *UnreadableError
	var classified *Error
	var ended *EndedError
	switch {
	case errors.As(err, &bad):
		return bad // not a transport failure, whatever mcp-go's wrapping says
	case errors.As(err, &ended):
		return ended
	case errors.As(err, &classified):
		return err // the connector said what it was (an unreachable server ends the session too)
	}
	if e := c.awaitEnd(ctx, err); e != nil {
		return e
	}
	return err
}

// reapGrace bounds how long a request (or the handshake) that found the transport gone
// waits for the session's end: a server that closed its stdout is reaped soon after, and
// one that keeps running without it must not hold a request that has no deadline.
const reapGrace = time.Second

// awaitEnd decides, from events only, whether a request or the handshake failed with err
// because the session ended: an *EndedError if so, nil when err is a plain failure. The
// end may already be known (it explains better than a timeout). The transport notices a
// dead server (stdout EOF) before the process is reaped, so when err says the transport
// is gone (Link.Lost) it waits for whichever comes: the end signal, the end of ctx, or
// reapGrace (a server that closed stdout but keeps running is a plain failure).
func (c *Client) awaitEnd(ctx context.Context, err error) *EndedError {
	if c.ended() {
		return &EndedError{End: c.End(), Err: err}
	}
	if ctx.Err() != nil || c.link.Lost == nil || !c.link.Lost(err) {
		return nil
	}
	clk := c.link.Clock
	if clk == nil {
		clk = clock.System{}
	}
	grace, t := clock.After(clk, reapGrace)
	defer t.Stop()
	select {
	case <-c.done:
		return &EndedError{End: c.End(), Err: err}
	case <-ctx.Done():
	case <-grace:
	}
	return nil
}

// ListTools lists every tool (toollist.go).
func (c *Client) ListTools(ctx context.Context) (tools []mcp.Tool, skipped []SkippedTool, err error) {
	err = c.request(ctx, string(mcp.MethodToolsList), func(ctx context.Context) (err error) {
		tools, skipped, err = listRawTools(ctx, c)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return tools, skipped, nil
}

// CallTool runs tools/call through mcp-go, which adds the era's _meta and standard
// headers; the tool's Mcp-Param-* headers come from callHeader.
func (c *Client) CallTool(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
	err = c.request(ctx, string(mcp.MethodToolsCall), func(ctx context.Context) (err error) {
		res, err = c.callTool(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (c *Client) callTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if c.fastCalls() && req.Params.Task == nil {
		return c.callFast(ctx, req)
	}
	if h := c.callHeader(req.Params.Name, req.Params); h != nil {
		merged := req.Header.Clone()
		if merged == nil {
			merged = http.Header{}
		}
		for k, v := range h {
			merged[k] = v
		}
		req.Header = merged
	}
	return c.cl.CallTool(ctx, req)
}

// ListResources lists every resource (following pagination); on a failure, what was
// listed before it comes with the error.
func (c *Client) ListResources(ctx context.Context) (out []mcp.Resource, err error) {
	err = c.request(ctx, string(mcp.MethodResourcesList), func(ctx context.Context) error {
		for r, err := range c.cl.IterResources(ctx, mcp.ListResourcesRequest{}) {
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// ListResourceTemplates lists every resource template, as ListResources.
func (c *Client) ListResourceTemplates(ctx context.Context) (out []mcp.ResourceTemplate, err error) {
	err = c.request(ctx, string(mcp.MethodResourcesTemplatesList), func(ctx context.Context) error {
		for t, err := range c.cl.IterResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{}) {
			if err != nil {
				return err
			}
			out = append(out, t)
		}
		return nil
	})
	return out, err
}

// ListPrompts lists every prompt, as ListResources.
func (c *Client) ListPrompts(ctx context.Context) (out []mcp.Prompt, err error) {
	err = c.request(ctx, string(mcp.MethodPromptsList), func(ctx context.Context) error {
		for p, err := range c.cl.IterPrompts(ctx, mcp.ListPromptsRequest{}) {
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// ReadResource runs resources/read.
func (c *Client) ReadResource(ctx context.Context, req mcp.ReadResourceRequest) (res *mcp.ReadResourceResult, err error) {
	err = c.request(ctx, string(mcp.MethodResourcesRead), func(ctx context.Context) (err error) {
		res, err = c.cl.ReadResource(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// GetPrompt runs prompts/get.
func (c *Client) GetPrompt(ctx context.Context, req mcp.GetPromptRequest) (res *mcp.GetPromptResult, err error) {
	err = c.request(ctx, string(mcp.MethodPromptsGet), func(ctx context.Context) (err error) {
		res, err = c.cl.GetPrompt(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Ping asks the server whether it is there.
func (c *Client) Ping(ctx context.Context) error {
	return c.request(ctx, string(mcp.MethodPing), c.ping)
}

func (c *Client) ping(ctx context.Context) error {
	// The modern era removed ping (mcp-go's Ping then answers without asking the
	// server); server/discover is the request every modern server answers, at once and
	// without state.
	if mcp.IsModernProtocol(c.info.Protocol) {
		_, err := c.cl.Discover(ctx, mcp.DiscoverRequest{})
		return err
	}
	//lint:ignore SA1019 ping is how a legacy connection asks "are you there"
	return c.cl.Ping(ctx)
}

// Request sends any other request and returns its raw answer.
func (c *Client) Request(ctx context.Context, method string, params any) (res *transport.JSONRPCResponse, err error) {
	err = c.request(ctx, method, func(ctx context.Context) (err error) {
		res, err = c.send(ctx, mcp.NewRequestId("mcp-bridge-"+method+"-"+nonce()), method, params)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// TaskResult runs tasks/result.
func (c *Client) TaskResult(ctx context.Context, req mcp.TaskResultRequest) (res *mcp.TaskResultResult, err error) {
	err = c.request(ctx, string(mcp.MethodTasksResult), func(ctx context.Context) (err error) {
		res, err = c.cl.TaskResult(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// CancelTask runs tasks/cancel.
func (c *Client) CancelTask(ctx context.Context, req mcp.CancelTaskRequest) error {
	return c.request(ctx, string(mcp.MethodTasksCancel), func(ctx context.Context) error {
		_, err := c.cl.CancelTask(ctx, req)
		return err
	})
}
