package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/safetext"
)

// The bridge sends a few requests around mcp-go's typed API (the tolerant tools/list,
// task-augmented tools/call). mcp-go adds what protocol 2026-07-28 wants of a request
// (the _meta fields and, over HTTP, the standard headers) only inside its own API, so
// those requests get them here, the same way; on a legacy connection they go out as
// they always did.

// modern reports whether the connection speaks protocol 2026-07-28 or later.
func (c *Client) modern() bool { return mcp.IsModernProtocol(c.cl.ProtocolVersion()) }

// overHTTP reports whether the connection is an HTTP one (where headers exist and
// x-mcp-header annotations are mirrored). The sampling guard's wrappers embed the
// concrete transport, so they still say so.
func (c *Client) overHTTP() bool {
	_, ok := c.cl.GetTransport().(transport.HTTPConnection)
	return ok
}

// send sends one request through the client's transport with what its era needs: on a
// modern connection, params carry _meta (protocol version, client capabilities, client
// info) and the request carries Mcp-Method, Mcp-Name and, for tools/call, the tool's
// Mcp-Param-* headers (the transport adds MCP-Protocol-Version to every request itself);
// on a legacy one the request is sent exactly as given.
func (c *Client) send(ctx context.Context, id mcp.RequestId, method string, params any) (*transport.JSONRPCResponse, error) {
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params}
	if c.modern() {
		p, err := c.withMeta(params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		req.Params = p
		req.Header = c.modernHeader(method, p, nil)
	}
	resp, err := c.cl.GetTransport().SendRequest(ctx, req)
	if err != nil {
		return nil, transport.NewError(err)
	}
	return resp, nil
}

// withMeta returns params as a JSON object whose _meta carries the fields mcp-go puts
// on each of its own requests (client/protocol.go, applyRequestMeta): keys the caller
// set in _meta are kept, the session's are added (sessionMeta).
func (c *Client) withMeta(params any) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		if string(raw) != "null" {
			if err := json.Unmarshal(raw, &fields); err != nil {
				return nil, fmt.Errorf("params are not a JSON object: %w", err)
			}
		}
	}
	// mcp-go declares the configured capabilities plus those its registered handlers
	// imply; every bridge connection declares each capability it has a handler for
	// (lifecycle.clientOptions), so the configured set is the one mcp-go declares too.
	fields["_meta"] = c.withSessionMeta(fields["_meta"])
	return json.Marshal(fields)
}

// modernHeader is header with the standard headers of a modern HTTP request for method
// and its encoded params, and a tools/call's Mcp-Param-* headers (callHeader).
func (c *Client) modernHeader(method string, params json.RawMessage, header http.Header) http.Header {
	std := mcp.StandardHeaders(c.cl.ProtocolVersion(), mcp.MCPMethod(method), params)
	var extra http.Header
	switch mcp.MCPMethod(method) {
	case mcp.MethodToolsCall:
		if name, ok := mcp.ExtractHeaderName(mcp.MethodToolsCall, params); ok {
			extra = c.callHeader(name, params)
		}
	case mcp.MethodTasksGet, mcp.MethodTasksCancel, taskUpdate:
		// The tasks extension routes a task's requests by its id (mcp-go's standard
		// headers know only tools, prompts and resources).
		var p struct {
			TaskID string `json:"taskId"`
		}
		if json.Unmarshal(params, &p) == nil && p.TaskID != "" {
			if v, ok := mcp.EncodeHeaderValue(p.TaskID); ok {
				extra = http.Header{mcp.HeaderName: {v}}
			}
		}
	}
	if len(std) == 0 && len(extra) == 0 {
		return header
	}
	h := header.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k, v := range std {
		h.Set(k, v)
	}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

// callHeader is the one place a tools/call's Mcp-Param-* headers are made, from the
// definition of the tool the bridge holds (Handlers.Tool): mcp-go mirrors them only for
// tools it listed itself, and the bridge lists on its own and wakes a sleeping server
// with a fresh client. nil on a legacy connection, off HTTP, or for a tool without
// x-mcp-header annotations. params are the call's params, encoded only when the tool
// has annotations.
func (c *Client) callHeader(name string, params any) http.Header {
	if c.tool == nil || name == "" || !c.modern() || !c.overHTTP() {
		return nil
	}
	t, ok := c.tool(name)
	if !ok || len(mcp.ExtractParamHeaderBindings(&t)) == 0 {
		return nil
	}
	raw, ok := params.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			return nil
		}
	}
	h := http.Header{}
	for k, v := range mcp.GenerateParamHeaders(&t, raw) {
		h.Set(k, v)
	}
	if len(h) == 0 {
		return nil
	}
	return h
}

// headerFault says why a listed tool must be left out on this connection: on a modern
// HTTP connection, a tool whose x-mcp-header annotations are invalid (not on a string,
// integer or boolean, empty, not an HTTP token, or naming one header twice) could not
// be called with the headers its server expects, and the protocol says to leave it out
// ("" when the tool may be offered).
func (c *Client) headerFault(t *mcp.Tool) string {
	if !c.modern() || !c.overHTTP() {
		return ""
	}
	if err := mcp.ValidateParamHeaderAnnotations(t); err != nil {
		return "its x-mcp-header annotations are invalid: " + safetext.Escape(err.Error())
	}
	return ""
}
