package session

import (
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// A stand-in until the requests the bridge sends around mcp-go (the tolerant
// tools/list, task requests) carry what a modern request needs themselves: on a modern
// connection, a request without the _meta protocol version gets the _meta of the probe
// the server accepted (the revision, the client's identity and capabilities, as mcp-go
// declared them) and the standard headers, so that a modern server does not refuse it.
// A request that declares its revision passes unchanged.

// fillModern is req with the modern _meta (meta) and headers it lacks.
func fillModern(req transport.JSONRPCRequest, meta json.RawMessage) transport.JSONRPCRequest {
	version := requestedVersion(map[string]json.RawMessage{"_meta": meta})
	if version == "" || requestedVersion(req.Params) != "" {
		return req
	}
	fields := map[string]json.RawMessage{}
	if req.Params != nil {
		raw, err := json.Marshal(req.Params)
		if err != nil || json.Unmarshal(raw, &fields) != nil {
			return req
		}
	}
	merged := map[string]json.RawMessage{}
	_ = json.Unmarshal(fields["_meta"], &merged)
	var probe map[string]json.RawMessage
	_ = json.Unmarshal(meta, &probe)
	for k, v := range probe {
		if _, ok := merged[k]; !ok {
			merged[k] = v
		}
	}
	encoded, err := json.Marshal(merged)
	if err != nil {
		return req
	}
	fields["_meta"] = encoded
	params, err := json.Marshal(fields)
	if err != nil {
		return req
	}
	req.Params = json.RawMessage(params)
	h := req.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k, v := range mcp.StandardHeaders(version, mcp.MCPMethod(req.Method), params) {
		if h.Get(k) == "" {
			h.Set(k, v)
		}
	}
	req.Header = h
	return req
}
