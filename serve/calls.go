package serve

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// A forwarded call outlives the client request that began it when its server asks a
// question: the client's request ends with an input_required result (2026-07-28; mcp-go
// turns it into elicitation/create for a 2025-11-25 client and invokes the handler
// again), the backend call waits, and the client's retry carries the answer and the
// requestState that names the waiting call. The board holds those calls. A retry must
// reach the instance that holds its call; behind a load balancer every other request
// may go anywhere.

// inputKey is the key of the one question an input_required result of ours carries.
const inputKey = "q"

// call is one forwarded tool call.
type call struct {
	id     string
	server string
	bctx   context.Context // the backend call's context
	cancel context.CancelFunc
	done   chan callResult // the backend call's end (buffered, written once)
	asks   chan *question  // the server's questions for this call's client

	mu sync.Mutex
	// ctx and token are the client request the call currently answers (each retry
	// replaces them): its progress and log messages go there.
	ctx   context.Context
	token mcp.ProgressToken
	// open is the question sent to the client and not answered yet.
	open *question
	// expiry ends the call when its open question goes unanswered.
	expiry clock.Timer
}

type callResult struct {
	res *mcp.CallToolResult
	err error
}

// question is one server request for input waiting for the client: a question for
// its user (elicitation) or a completion by its model (sampling).
type question struct {
	elicit *mcp.ElicitationParams
	sample *mcp.CreateMessageParams
	answer chan mcp.InputResponses // buffered, written once
}

// result is the input_required result that asks q, stating state.
func (q *question) result(state string) *mcp.CallToolResult {
	b := server.NewInputRequestBuilder(state)
	if q.sample != nil {
		return b.Sample(inputKey, *q.sample).ToolResult()
	}
	return b.Elicit(inputKey, *q.elicit).ToolResult()
}

// callKey marks a backend call's context with its call, so that a question the server
// asks inside its result (2026-07-28) finds the call it belongs to.
type callKey struct{}

// callBoard is the calls in flight, by id and by server. Safe for concurrent use.
type callBoard struct {
	clock      clock.Clock
	answerWait time.Duration

	mu       sync.Mutex
	byID     map[string]*call
	byServer map[string][]*call // in start order
}

func newCallBoard(c clock.Clock, wait time.Duration) *callBoard {
	if c == nil {
		c = clock.System{}
	}
	return &callBoard{clock: c, answerWait: wait, byID: map[string]*call{}, byServer: map[string][]*call{}}
}

// start begins run for the client request of ctx, detached from it: the call ends when
// run returns, when the client cancels a request it answers, or when its question goes
// unanswered.
func (cb *callBoard) start(ctx context.Context, req mcp.CallToolRequest, serverName string,
	run func(context.Context, bridge.ProgressFunc) (*mcp.CallToolResult, error)) *call {
	c := &call{id: newID(), server: serverName, done: make(chan callResult, 1), asks: make(chan *question)}
	c.setClient(ctx, req)
	// Nothing of the client's request goes down with the call but the call itself:
	// mcp-go keeps the request's transport and era in its context, and a client made
	// with mcp-go would read them as its own.
	bctx, cancel := context.WithCancel(context.WithValue(context.Background(), callKey{}, c))
	c.bctx, c.cancel = bctx, cancel
	cb.mu.Lock()
	cb.byID[c.id] = c
	cb.byServer[serverName] = append(cb.byServer[serverName], c)
	cb.mu.Unlock()
	go func() {
		res, err := run(bctx, c.progress)
		cb.remove(c)
		cancel()
		c.done <- callResult{res, err}
	}()
	return c
}

// setClient makes the request of ctx the one c answers.
func (c *call) setClient(ctx context.Context, req mcp.CallToolRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ctx = ctx
	c.token = nil
	if req.Params.Meta != nil {
		c.token = req.Params.Meta.ProgressToken
	}
}

// client is the request c answers now and its progress token.
func (c *call) client() (context.Context, mcp.ProgressToken) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx, c.token
}

// progress relays the server's progress to the client, under the client's token.
func (c *call) progress(p mcp.ProgressNotificationParams) {
	ctx, token := c.client()
	if token == nil {
		return
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return
	}
	params := map[string]any{"progressToken": token, "progress": p.Progress}
	if p.Total > 0 {
		params["total"] = p.Total
	}
	if p.Message != "" {
		params["message"] = p.Message
	}
	// A client that left is no reason to stop the call's progress.
	_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params)
}

func (cb *callBoard) remove(c *call) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	delete(cb.byID, c.id)
	list := cb.byServer[c.server]
	for i, x := range list {
		if x == c {
			cb.byServer[c.server] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(cb.byServer[c.server]) == 0 {
		delete(cb.byServer, c.server)
	}
}

// closeAll cancels every call (the server is closing).
func (cb *callBoard) closeAll() {
	cb.mu.Lock()
	calls := make([]*call, 0, len(cb.byID))
	for _, c := range cb.byID {
		calls = append(calls, c)
	}
	cb.mu.Unlock()
	for _, c := range calls {
		c.cancel()
	}
}

// wait answers the client request of ctx: with the call's result, or with an
// input_required result when the server asks a question first. A client that cancels
// cancels the call.
func (cb *callBoard) wait(ctx context.Context, req mcp.CallToolRequest, c *call) (*mcp.CallToolResult, error) {
	select {
	case r := <-c.done:
		c.done <- r // for another wait on the same call
		if r.err != nil {
			return callError(c.server, r.err), nil
		}
		return r.res, nil
	case q := <-c.asks:
		if !clientCan(ctx, q) {
			// Parked, it would wait for an answer that cannot come: the server hears
			// at once that nobody can answer.
			q.answer <- nil
			return cb.wait(ctx, req, c)
		}
		if req.Params.Task != nil {
			// A task's result is its final answer: its questions go to the client
			// as requests of their own, on its session.
			q.answer <- askDirectly(ctx, q)
			return cb.wait(ctx, req, c)
		}
		return cb.park(c, q), nil
	case <-ctx.Done():
		c.cancel()
		return nil, ctx.Err()
	}
}

// clientCan reports whether the client of ctx declared the capability q needs
// (elicitation, sampling): on a 2026-07-28 request in its _meta, on a 2025-11-25 session
// at initialize.
func clientCan(ctx context.Context, q *question) bool {
	var caps *mcp.ClientCapabilities
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		caps = info.ClientCapabilities
	} else if ci, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		cc := ci.GetClientCapabilities()
		caps = &cc
	}
	if caps == nil {
		return false
	}
	if q.sample != nil {
		return caps.Sampling != nil
	}
	return caps.Elicitation != nil
}

// askDirectly asks q of the client of ctx as a request of its own (elicitation/create,
// sampling/createMessage); a refused or failed request is no answer (nil), which the
// server's question gets as a cancel.
func askDirectly(ctx context.Context, q *question) mcp.InputResponses {
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return nil
	}
	if q.sample != nil {
		//lint:ignore SA1019 a task of a 2025-11-25 client asks it for sampling with a request of its own
		res, err := srv.RequestSampling(ctx, mcp.CreateMessageRequest{Request: mcp.Request{Method: string(mcp.MethodSamplingCreateMessage)}, CreateMessageParams: *q.sample})
		if err != nil || res == nil {
			return nil
		}
		return mcp.InputResponses{inputKey: mcp.NewSamplingInputResponse(*res)}
	}
	res, err := srv.RequestElicitation(ctx, mcp.ElicitationRequest{Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)}, Params: *q.elicit})
	if err != nil || res == nil {
		return nil
	}
	return mcp.InputResponses{inputKey: mcp.NewElicitationInputResponse(*res)}
}

// park keeps q open for the client's answer and returns the result that asks it.
func (cb *callBoard) park(c *call, q *question) *mcp.CallToolResult {
	c.mu.Lock()
	c.open = q
	if c.expiry != nil {
		c.expiry.Stop()
	}
	// Unanswered in time, the call ends, and so does the server's wait.
	c.expiry = cb.clock.AfterFunc(cb.answerWait, c.cancel)
	c.mu.Unlock()
	return q.result(c.id)
}

// doneSignal is closed once the call's backend context ends.
func (c *call) doneSignal() <-chan struct{} { return c.bctx.Done() }

// resume is a client's retry with the answer to a call's question.
func (cb *callBoard) resume(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	cb.mu.Lock()
	c := cb.byID[req.Params.RequestState]
	cb.mu.Unlock()
	if c == nil {
		return mcp.NewToolResultError("the question this answers is no longer open here: it went unanswered too long, its call ended, or another instance of mcp-bridge asked it. Call the tool again."), nil
	}
	c.mu.Lock()
	q := c.open
	c.open = nil
	if c.expiry != nil {
		c.expiry.Stop()
		c.expiry = nil
	}
	c.mu.Unlock()
	c.setClient(ctx, req)
	if q != nil {
		q.answer <- req.Params.InputResponses
	}
	return cb.wait(ctx, req, c)
}

// Why a server's request found no call to go to.
var (
	errNoCall = errors.New("no call of this server is waiting here for a question to be answered")
	// errAmbiguous: several calls of the server are in flight and its request names
	// none of them.
	errAmbiguous = errors.New("the server asked outside any call while several of its calls were in flight, so nobody could be asked without risking another client's user seeing it; ask within the call (2026-07-28) or one call at a time")
)

// callOf is the call a server's request or message belongs to: the call of ctx (a
// 2026-07-28 server asks inside its result), or else the server's only call in flight.
// A 2025-11-25 server's request names no call: with several in flight, giving it to one
// could show one client's question or log lines to another client's user, so none gets
// it.
func (cb *callBoard) callOf(ctx context.Context, serverName string) (*call, error) {
	if c, ok := ctx.Value(callKey{}).(*call); ok {
		return c, nil
	}
	cb.mu.Lock()
	defer cb.mu.Unlock()
	switch list := cb.byServer[serverName]; len(list) {
	case 0:
		return nil, errNoCall
	case 1:
		return list[0], nil
	default:
		return nil, errAmbiguous
	}
}

// elicit sends a server's question to the client of the call it belongs to and waits
// for the answer; a client that answers nothing to it cancels it.
func (cb *callBoard) elicit(ctx context.Context, serverName string, p mcp.ElicitationParams) (*mcp.ElicitationResult, error) {
	ans, err := cb.ask(ctx, serverName, &question{elicit: &p})
	if err != nil {
		return nil, err
	}
	if r := server.ElicitationResponse(ans, inputKey); r != nil {
		return r, nil
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}, nil
}

// sample asks the client's model for a server, as elicit asks its user.
func (cb *callBoard) sample(ctx context.Context, serverName string, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	ans, err := cb.ask(ctx, serverName, &question{sample: &req.CreateMessageParams})
	if err != nil {
		return nil, err
	}
	if r := server.SamplingResponse(ans, inputKey); r != nil {
		return r, nil
	}
	return nil, errors.New("the client gave no completion for the sampling request")
}

// ask sends q to the client of the call it belongs to (callOf) and waits for the answer.
func (cb *callBoard) ask(ctx context.Context, serverName string, q *question) (mcp.InputResponses, error) {
	c, err := cb.callOf(ctx, serverName)
	if err != nil {
		return nil, err
	}
	q.answer = make(chan mcp.InputResponses, 1)
	done := c.doneSignal()
	select {
	case c.asks <- q:
	case <-done:
		return nil, errors.New("the call ended before its question could be asked")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case a := <-q.answer:
		return a, nil
	case <-done:
		return nil, errors.New("the question went unanswered")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// log relays a server's log message to the client of its call (callOf: a message that
// names no call goes nowhere while several are in flight; the bridge's log has it).
func (cb *callBoard) log(m *server.MCPServer, serverName string, line lifecycle.LogLine) {
	c, err := cb.callOf(context.Background(), serverName)
	if err != nil || m == nil {
		return
	}
	ctx, _ := c.client()
	level := mcp.LoggingLevel(line.Level)
	if level == "" {
		level = mcp.LoggingLevelInfo
	}
	logger := serverName
	if line.Logger != "" {
		logger = serverName + "/" + line.Logger
	}
	// The server's words reach another program's user: sanitized as everything a
	// server says is before it is shown.
	_ = m.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(level, safetext.Sanitize(logger), safetext.Sanitize(line.Text)))
}

// newID is an unguessable call id: it is the requestState a retry presents.
func newID() string {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}
