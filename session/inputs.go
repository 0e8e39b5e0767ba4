package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/ctxval"
)

// On a 2026-07-28 connection a server that needs something from the client while it
// works no longer sends its own requests: it answers with a result whose resultType is
// "input_required", carrying the requests (elicitation, sampling, roots) and an opaque
// requestState, and the client sends the same request again with the answers
// (SEP-2322). A task of the tasks extension that waits for input carries the same
// requests (SEP-2663). Inputs answers both exactly as the legacy server-to-client
// requests are answered: questions through the bridge's elicitation flow, roots from the
// project, sampling through the host's sampler when it has one (a front end whose own
// client offers sampling), refused otherwise.

// Inputs answers the requests a server embeds in a result or a task.
type Inputs struct {
	// Server is the server's configured name, for the texts of failures.
	Server string
	// Elicit asks the user (zot's notes, or the CLI's prompt); nil: questions cannot be
	// asked on this connection.
	Elicit client.ElicitationHandler
	// Roots answers roots/list; nil: the client offers no roots.
	Roots client.RootsHandler
	// Sample answers sampling/createMessage, in a result's input requests and, on a
	// legacy connection, as the server's own request (NewClient installs it and
	// advertises the capability); nil: sampling is refused (InputSampling, and the
	// legacy guard of the caller's Handlers.Wrap).
	Sample client.SamplingHandler
	// SamplingRefused is told that the server asked for sampling (to log it and tell the
	// user); nil: nobody is told.
	SamplingRefused func()
}

// sample runs in.Sample. Inside a result (2026-07-28) the request belongs to the call
// of ctx, and the handler gets the call's context, as a question's handler does: a front
// end finds by it the client the call answers. A 2025-11-25 server's request comes on
// the connection (a stdio reader's background, a stream's), and the handler gets its
// deadline and cancellation with none of its values (within), so that nothing of the
// transport's context passes for a call's.
func (in Inputs) sample(ctx context.Context, req mcp.CreateMessageRequest, within bool) (*mcp.CreateMessageResult, error) {
	for i := range req.Messages {
		// Decoded from JSON, a message's content is a generic map; the handler gets
		// mcp-go's typed content, as mcp-go's own handler call gives it.
		c, err := mcp.ParseSamplingContent(req.Messages[i].Content)
		if err != nil {
			return nil, &InputError{Kind: InputMalformed, Method: string(mcp.MethodSamplingCreateMessage), Detail: fmt.Sprintf("the content of sampling message %d", i), Err: err}
		}
		req.Messages[i].Content = c
	}
	if !within {
		ctx = ctxval.WithoutValues(ctx)
	}
	return in.Sample.CreateMessage(ctx, req)
}

// maxInputsPerRound bounds the requests one result may carry: each question is shown to
// a person, one after another.
const maxInputsPerRound = 8

// InputErrKind is why a server's request for input ended the request it belongs to.
type InputErrKind int

// The kinds of InputError.
const (
	InputSampling          InputErrKind = iota + 1 // the server asked for sampling, which is refused
	InputNoElicitation                             // a question, where none can be asked
	InputNoRoots                                   // roots, where none are offered
	InputUnknownMethod                             // a request of a method the client does not know
	InputMalformed                                 // requests or a result the client cannot read
	InputTooMany                                   // more requests in one result than maxInputsPerRound
	InputEndless                                   // still asking after MaxInputRounds rounds
	InputStateTooLarge                             // a requestState over MaxRequestState
	InputUnknownResultType                         // a resultType the client does not know
	InputUnexpectedTask                            // a task where the request cannot take one
	InputAnswerFailed                              // asking the user failed
	InputSamplingFailed                            // the host's sampler failed
)

// errNoSample is a sampler that answered neither a message nor an error.
var errNoSample = errors.New("the sampler gave no message")

// InputError is a request that ended because of what the server asked for in its
// result; its text is for the model.
type InputError struct {
	Kind   InputErrKind
	Method string // the request's method (tools/call, …), or the input request's
	Detail string // the unknown method or resultType, or what could not be read
	N      int    // rounds, requests or bytes, as the kind says
	Err    error
}

func (e *InputError) Error() string {
	switch e.Kind {
	case InputSampling:
		return "the server needs zot's model to generate text (sampling) to finish; mcp-bridge does not offer sampling, so the request was stopped. Use a tool or prompt that does not need sampling"
	case InputNoElicitation:
		return "the server needs to ask the user a question to finish, and no question can be asked here (in the CLI: run it on a terminal, or pass --accept-defaults)"
	case InputNoRoots:
		return "the server asked for the client's roots, which this connection does not offer"
	case InputUnknownMethod:
		return fmt.Sprintf("the server asked for input of a kind mcp-bridge does not know (%q); the request was stopped", e.Detail)
	case InputMalformed:
		return fmt.Sprintf("the server's request for input could not be read (%s); the request was stopped", e.Detail)
	case InputTooMany:
		return fmt.Sprintf("the server asked for %d inputs at once, more than the %d mcp-bridge answers in one round; the request was stopped", e.N, maxInputsPerRound)
	case InputEndless:
		return fmt.Sprintf("the server kept asking for more input: after %d rounds of answers it still had not finished, so mcp-bridge stopped. The server may be stuck; tell the user, and do not call it again the same way", e.N)
	case InputStateTooLarge:
		return fmt.Sprintf("the server's requestState is %d bytes, more than the %d mcp-bridge sends back; the request was stopped. The server is misbehaving; tell the user", e.N, MaxRequestState)
	case InputUnknownResultType:
		return fmt.Sprintf("the server answered %s with a result of an unknown kind (resultType %q) that mcp-bridge cannot use", e.Method, e.Detail)
	case InputUnexpectedTask:
		return fmt.Sprintf("the server answered %s with a task, which mcp-bridge did not offer to take for this request", e.Method)
	case InputAnswerFailed:
		return fmt.Sprintf("asking the user for the server's input failed: %v", e.Err)
	case InputSamplingFailed:
		return fmt.Sprintf("the server asked the client's model to generate text (sampling), and that failed: %v", e.Err)
	}
	return "the server's request for input failed"
}

func (e *InputError) Unwrap() error { return e.Err }

// inputRequest is one request of an inputRequests map, its params read by method.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// Answer answers every request of raw (a JSON inputRequests map), keyed as the server
// keyed them. The whole set is checked before anyone is asked: a request the client
// cannot answer (sampling without a sampler, among others) fails it without bothering the
// user with questions whose answers the server cannot use. Requests are answered one at a
// time, in the order of their keys.
func (in Inputs) Answer(ctx context.Context, raw json.RawMessage) (mcp.InputResponses, error) {
	var reqs map[string]inputRequest
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &reqs); err != nil {
			return nil, &InputError{Kind: InputMalformed, Detail: "inputRequests is not a map of requests", Err: err}
		}
	}
	if len(reqs) > maxInputsPerRound {
		return nil, &InputError{Kind: InputTooMany, N: len(reqs)}
	}
	keys := make([]string, 0, len(reqs))
	for k, r := range reqs {
		keys = append(keys, k)
		switch mcp.MCPMethod(r.Method) {
		case mcp.MethodSamplingCreateMessage:
			if in.Sample == nil {
				if in.SamplingRefused != nil {
					in.SamplingRefused()
				}
				return nil, &InputError{Kind: InputSampling, Method: r.Method}
			}
		case mcp.MethodElicitationCreate:
			if in.Elicit == nil {
				return nil, &InputError{Kind: InputNoElicitation, Method: r.Method}
			}
		case mcp.MethodListRoots:
			if in.Roots == nil {
				return nil, &InputError{Kind: InputNoRoots, Method: r.Method}
			}
		default:
			return nil, &InputError{Kind: InputUnknownMethod, Detail: r.Method}
		}
	}
	slices.Sort(keys)
	out := make(mcp.InputResponses, len(reqs))
	for _, k := range keys {
		r := reqs[k]
		switch mcp.MCPMethod(r.Method) {
		case mcp.MethodElicitationCreate:
			var p mcp.ElicitationParams
			if len(r.Params) > 0 {
				if err := json.Unmarshal(r.Params, &p); err != nil {
					return nil, &InputError{Kind: InputMalformed, Detail: "an elicitation request's params", Err: err}
				}
			}
			res, err := in.Elicit.Elicit(ctx, mcp.ElicitationRequest{Request: mcp.Request{Method: r.Method}, Params: p})
			if err != nil {
				return nil, &InputError{Kind: InputAnswerFailed, Method: r.Method, Err: err}
			}
			if res == nil {
				res = &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}
			}
			out[k] = mcp.NewElicitationInputResponse(*res)
		case mcp.MethodListRoots:
			res, err := in.Roots.ListRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: r.Method}})
			if err != nil {
				return nil, &InputError{Kind: InputAnswerFailed, Method: r.Method, Err: err}
			}
			if res == nil || res.Roots == nil {
				res = &mcp.ListRootsResult{Roots: []mcp.Root{}}
			}
			out[k] = mcp.NewRootsInputResponse(*res)
		case mcp.MethodSamplingCreateMessage:
			var p mcp.CreateMessageParams
			if len(r.Params) > 0 {
				if err := json.Unmarshal(r.Params, &p); err != nil {
					return nil, &InputError{Kind: InputMalformed, Detail: "a sampling request's params", Err: err}
				}
			}
			res, err := in.sample(ctx, mcp.CreateMessageRequest{Request: mcp.Request{Method: r.Method}, CreateMessageParams: p}, true)
			if err != nil {
				var ie *InputError
				if errors.As(err, &ie) {
					return nil, ie
				}
				return nil, &InputError{Kind: InputSamplingFailed, Method: r.Method, Err: err}
			}
			if res == nil {
				return nil, &InputError{Kind: InputSamplingFailed, Method: r.Method, Err: errNoSample}
			}
			out[k] = mcp.NewSamplingInputResponse(*res)
		}
	}
	return out, nil
}
