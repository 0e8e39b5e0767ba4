package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The multi-round-trip loop (SEP-2322) runs here, in a layer over the transport that
// every request of a session crosses, mcp-go's typed calls and the bridge's own raw
// requests alike (the task-augmented tools/call, Session.Request): one behaviour on every
// path. mcp-go's client has a loop of its own, but it answers with the client's
// registered handlers only (a sampling request fails with "no sampling handler", while
// installing one would advertise sampling), its errors cannot be told apart but by their
// text, it echoes a requestState of any size, it takes a result of an unknown resultType
// as a complete one, and the raw requests never reach it. Below it, mcp-go only ever sees
// the final answer.

// MaxInputRounds bounds how often one request is sent again with answers.
const MaxInputRounds = 8

// maxShedRounds bounds the retries a server asks for without asking anything (an
// input_required result with no requests: "busy, try again").
const maxShedRounds = 3

// MaxRequestState bounds the opaque requestState the bridge sends back: the reply cap
// lets far larger replies through, and a state is echoed on every round.
const MaxRequestState = 1 << 20

// cancelNoteTimeout bounds the notifications/cancelled sent for a request the bridge
// sent itself (a retry, a fast call) whose context ended.
const cancelNoteTimeout = 5 * time.Second

// Result types (resultType); "task" belongs to the tasks extension (SEP-2663).
const (
	resultComplete      = "complete"
	resultInputRequired = "input_required"
	ResultTask          = "task"
)

// acceptsTasksKey marks, in a request's context, a tools/call that takes a task for an
// answer.
type acceptsTasksKey struct{}

// AcceptTasks marks ctx so that a tools/call sent with it may be answered with a task
// (resultType "task"); any other request so answered fails with an *InputError.
func AcceptTasks(ctx context.Context) context.Context {
	return context.WithValue(ctx, acceptsTasksKey{}, true)
}

func acceptsTasks(ctx context.Context) bool {
	ok, _ := ctx.Value(acceptsTasksKey{}).(bool)
	return ok
}

// roundsMethods are the requests that may ask for input.
var roundsMethods = map[string]bool{
	string(mcp.MethodToolsCall): true, string(mcp.MethodPromptsGet): true, string(mcp.MethodResourcesRead): true,
}

// rounds runs the loop for one session.
type rounds struct {
	in Inputs
	// cancels: whether a retry cut short is cancelled with notifications/cancelled (not
	// on HTTP, where ending the request's stream is the cancellation, as mcp-go does).
	cancels bool
}

// resultHead is what the loop reads of a result.
type resultHead struct {
	ResultType    *string         `json:"resultType"`
	InputRequests json.RawMessage `json:"inputRequests"`
	RequestState  json.RawMessage `json:"requestState"`
}

// send sends req through next and, while the answer asks for input, answers it and sends
// the request again with a new id, the answers and the requestState unchanged.
func (r *rounds) send(ctx context.Context, next func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error),
	notify func(context.Context, mcp.JSONRPCNotification) error, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if !roundsMethods[req.Method] {
		return next(ctx, req)
	}
	resp, err := next(ctx, req)
	var params map[string]json.RawMessage
	shed := 0
	for round := 1; ; round++ {
		if err != nil || resp == nil || resp.Error != nil {
			return resp, err
		}
		// Most results say nothing of their type; only those that do are decoded twice.
		if !bytes.Contains(resp.Result, []byte(`"resultType"`)) {
			return resp, nil
		}
		var head resultHead
		if err := json.Unmarshal(resp.Result, &head); err != nil {
			return resp, nil // mcp-go's own parse says what is wrong with it
		}
		switch t := deref(head.ResultType); t {
		case "", resultComplete:
			return resp, nil
		case ResultTask:
			if req.Method == string(mcp.MethodToolsCall) && acceptsTasks(ctx) {
				return resp, nil
			}
			return nil, &InputError{Kind: InputUnexpectedTask, Method: req.Method}
		case resultInputRequired:
		default:
			return nil, &InputError{Kind: InputUnknownResultType, Method: req.Method, Detail: t}
		}
		if round > MaxInputRounds {
			return nil, &InputError{Kind: InputEndless, Method: req.Method, N: MaxInputRounds}
		}
		if len(head.RequestState) > MaxRequestState {
			return nil, &InputError{Kind: InputStateTooLarge, Method: req.Method, N: len(head.RequestState)}
		}
		state := head.RequestState
		if string(state) == "null" {
			state = nil
		}
		if len(state) > 0 && state[0] != '"' {
			return nil, &InputError{Kind: InputMalformed, Method: req.Method, Detail: "requestState is not a string"}
		}
		var answers mcp.InputResponses
		if len(head.InputRequests) == 0 || string(head.InputRequests) == "null" || string(head.InputRequests) == "{}" {
			if shed++; shed > maxShedRounds {
				return nil, &InputError{Kind: InputEndless, Method: req.Method, N: round}
			}
		} else {
			shed = 0
			if answers, err = r.in.Answer(ctx, head.InputRequests); err != nil {
				return nil, err
			}
		}
		if params == nil {
			if params, err = paramsMap(req.Params); err != nil {
				return nil, err
			}
		}
		if err := setRound(params, answers, state); err != nil {
			return nil, err
		}
		retry := req
		retry.ID = mcp.NewRequestId(fmt.Sprintf("%s-input-%d", req.ID.String(), round))
		retry.Params = params
		resp, err = next(ctx, retry)
		if err != nil && ctx.Err() != nil && r.cancels {
			cancelRequest(ctx, notify, retry.ID)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// paramsMap is a request's params as a JSON object, its fields kept as they were encoded
// (mcp-go's _meta on a modern connection included).
func paramsMap(p any) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if p == nil {
		return m, nil
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("the request's params are not an object: %w", err)
	}
	return m, nil
}

// setRound puts one round's answers and the server's requestState, byte for byte, into
// the retry's params; a round without a state sends none.
func setRound(params map[string]json.RawMessage, answers mcp.InputResponses, state json.RawMessage) error {
	delete(params, "inputResponses")
	delete(params, "requestState")
	if len(answers) > 0 {
		raw, err := json.Marshal(answers)
		if err != nil {
			return err
		}
		params["inputResponses"] = raw
	}
	if len(state) > 0 {
		params["requestState"] = state
	}
	return nil
}

// cancelRequest tells the server to stop working on request id, whose context ended, off
// the caller's path (the caller has its error; a server that does not read must not hold
// it up). mcp-go does this only for the requests it sends itself: here for a retry of a
// round (mcp-go cancels the first id only, which has its answer) and a fast call.
func cancelRequest(ctx context.Context, notify func(context.Context, mcp.JSONRPCNotification) error, id mcp.RequestId) {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled),
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": ctx.Err().Error()}},
	}}
	go func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelNoteTimeout)
		defer cancel()
		_ = notify(cctx, n)
	}()
}

// The layer keeps every optional interface mcp-go looks for on a transport, by the
// transports the bridge makes: a stdio or streamable HTTP transport takes server
// requests, HTTP ones set the protocol version header, streamable HTTP says whether it
// needs the legacy protocol, legacy SSE reports a lost stream.

type streamableTransport interface {
	transport.BidirectionalInterface
	transport.HTTPConnection
	RequiresLegacyProtocol() bool
}

type sseTransport interface {
	transport.HTTPConnection
	SetConnectionLostHandler(func(error))
}

type roundsStreamable struct {
	streamableTransport
	r *rounds
}

func (t roundsStreamable) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return t.r.send(ctx, t.streamableTransport.SendRequest, t.streamableTransport.SendNotification, req)
}

type roundsSSE struct {
	sseTransport
	r *rounds
}

func (t roundsSSE) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return t.r.send(ctx, t.sseTransport.SendRequest, t.sseTransport.SendNotification, req)
}

type roundsBidi struct {
	transport.BidirectionalInterface
	r *rounds
}

func (t roundsBidi) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return t.r.send(ctx, t.BidirectionalInterface.SendRequest, t.BidirectionalInterface.SendNotification, req)
}

type roundsPlain struct {
	transport.Interface
	r *rounds
}

func (t roundsPlain) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return t.r.send(ctx, t.Interface.SendRequest, t.Interface.SendNotification, req)
}

// withRounds puts the loop over tr, answering with in.
func withRounds(tr transport.Interface, in Inputs) transport.Interface {
	_, isHTTP := tr.(transport.HTTPConnection)
	r := &rounds{in: in, cancels: !isHTTP}
	switch t := tr.(type) {
	case streamableTransport:
		return roundsStreamable{t, r}
	case sseTransport:
		return roundsSSE{t, r}
	case transport.BidirectionalInterface:
		return roundsBidi{t, r}
	}
	return roundsPlain{tr, r}
}
