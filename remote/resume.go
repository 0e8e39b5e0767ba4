package remote

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
)

// A streamable HTTP server may end the event stream that answers a POST before the
// answer, once it has named an event id; mcp-go then resumes the stream with a GET that
// carries Last-Event-ID (SEP-1699) and takes the first reply on it as the request's
// answer, whatever its id, as on the POST's own stream. That GET has no body to read the
// request's id from, so the transport mcp-go sends requests through puts the id in the
// request's context, from which the GET's descends, and Transport.limit holds the
// resumed stream to the request's answer as it holds the POST's (OneAnswer).

// answerIDKey carries, in the context a request is sent under, its JSON-RPC id (JSON).
type answerIDKey struct{}

// streamable is what mcp-go's client uses of its streamable HTTP transport.
type streamable interface {
	transport.BidirectionalInterface
	transport.HTTPConnection
	RequiresLegacyProtocol() bool
}

// answerIDs is mcp-go's streamable HTTP transport, as Handlers.Wrap made it, with each
// request's id in the context it is sent under.
type answerIDs struct{ streamable }

// withAnswerIDs wraps tr when it is mcp-go's streamable HTTP transport; any other is
// returned as it is.
func withAnswerIDs(tr transport.Interface) transport.Interface {
	if s, ok := tr.(streamable); ok {
		return answerIDs{s}
	}
	return tr
}

// SendRequest is the transport's, with req's id in ctx (answerIDKey).
func (t answerIDs) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if id, err := req.ID.MarshalJSON(); err == nil && !req.ID.IsNil() {
		ctx = context.WithValue(ctx, answerIDKey{}, json.RawMessage(id))
	}
	return t.streamable.SendRequest(ctx, req)
}

// resumedID is the id of the request whose event stream req resumes (a streamable HTTP
// GET with Last-Event-ID, sent under that request's context); nil when req resumes none.
func (t *Transport) resumedID(req *http.Request) json.RawMessage {
	if req.Method != http.MethodGet || t.kind != config.TransportStreamableHTTP || req.Header.Get("Last-Event-ID") == "" {
		return nil
	}
	id, _ := req.Context().Value(answerIDKey{}).(json.RawMessage)
	return id
}
