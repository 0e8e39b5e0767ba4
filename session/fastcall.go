package session

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	gojson "github.com/goccy/go-json"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The tools/call of a connection without HTTP (stdio, in-process) is sent here rather
// than through mcp-go's CallTool, in either era. mcp-go builds each modern request's
// _meta by encoding the params, decoding them into a map and encoding them again,
// computes the HTTP standard headers (and decodes the params twice more for them) on
// transports that have no headers, and decodes the result once more for its own input
// loop, which rounds.go already answers below it: on the bridge's call path that was
// most of what the modern era cost over the legacy one. A legacy call paid the
// multi-round loop, the request building and the params' own encoder as well, for a
// request that is the same bytes. Here the params are encoded once: on a modern
// connection with the session's _meta, which does not change after the handshake,
// spliced in as bytes; on a legacy one with the caller's _meta only, as mcp-go sends it.

// callParams is a tools/call's params as this path encodes them.
type callParams struct {
	Name      string          `json:"name"`
	Arguments any             `json:"arguments,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// fastCalls reports whether CallTool takes this path: a connection whose transport has
// no headers.
func (c *Client) fastCalls() bool { return !c.overHTTP() }

// sessionMeta is the inside of the session's _meta object (without its braces): the
// protocol version, client capabilities and client info, as mcp-go declares them,
// encoded once after the handshake.
func (c *Client) sessionMeta() []byte {
	c.metaOnce.Do(func() {
		m := map[string]any{
			mcp.MetaKeyProtocolVersion:    c.cl.ProtocolVersion(),
			mcp.MetaKeyClientCapabilities: c.cl.GetClientCapabilities(),
		}
		if c.clientInfo.Name != "" {
			m[mcp.MetaKeyClientInfo] = c.clientInfo
		}
		raw, err := json.Marshal(m)
		if err == nil && len(raw) > 2 {
			c.meta = raw[1 : len(raw)-1]
		}
	})
	return c.meta
}

// withSessionMeta is the _meta object callerMeta (a JSON object, or empty) with the
// session's fields added after the caller's own.
func (c *Client) withSessionMeta(callerMeta []byte) json.RawMessage {
	inner := c.sessionMeta()
	callerMeta = bytes.TrimSpace(callerMeta)
	if len(callerMeta) < 2 || string(callerMeta) == "null" || string(callerMeta) == "{}" {
		out := make([]byte, 0, len(inner)+2)
		out = append(out, '{')
		out = append(out, inner...)
		return append(out, '}')
	}
	out := make([]byte, 0, len(callerMeta)+len(inner)+1)
	out = append(out, callerMeta[:len(callerMeta)-1]...)
	out = append(out, ',')
	out = append(out, inner...)
	return append(out, '}')
}

// callFast sends req as a tools/call without mcp-go's request building, with the same
// behaviour: an error answer is the error mcp-go returns for it, a call whose context
// ends is cancelled with notifications/cancelled.
func (c *Client) callFast(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var callerMeta []byte
	if req.Params.Meta != nil {
		raw, err := json.Marshal(req.Params.Meta)
		if err != nil {
			return nil, err
		}
		callerMeta = raw
	}
	meta := json.RawMessage(callerMeta)
	if c.modern() {
		meta = c.withSessionMeta(callerMeta)
	}
	args := req.Params.Arguments
	if len(req.Params.RawArguments) > 0 {
		args = req.Params.RawArguments // mcp-go sends these bytes over Arguments when set
	}
	params, err := encodeCallParams(req.Params.Name, args, meta)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, transport.NewError(err)
	}
	id := mcp.NewRequestId(c.callPrefix() + strconv.FormatUint(c.calls.Add(1), 10))
	r := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: string(mcp.MethodToolsCall), Params: json.RawMessage(params)}
	tr := c.cl.GetTransport()
	resp, err := tr.SendRequest(ctx, r)
	if err != nil {
		if ctx.Err() != nil {
			cancelRequest(ctx, tr.SendNotification, id)
		}
		return nil, transport.NewError(err)
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	return parseCallResult(resp.Result)
}

// encodeCallParams is json.Marshal(callParams{...}) without the reflection for what the
// bridge hands on: arguments that are raw JSON are checked and copied (compacted when they
// hold white space, as the encoder would), a plain tool name is quoted as it is, and meta,
// which this file built from encoded JSON, goes in as it is. Anything else, and arguments
// that are no valid JSON (for the encoder's own error), take json.Marshal.
func encodeCallParams(name string, args any, meta json.RawMessage) ([]byte, error) {
	raw, ok := args.(json.RawMessage)
	if !ok || len(raw) == 0 || !plainName(name) {
		return json.Marshal(callParams{Name: name, Arguments: args, Meta: meta})
	}
	out := make([]byte, 0, len(name)+len(raw)+len(meta)+32)
	out = append(out, `{"name":"`...)
	out = append(out, name...)
	out = append(out, `","arguments":`...)
	if bytes.ContainsAny(raw, " \t\r\n") {
		buf := bytes.NewBuffer(out)
		if json.Compact(buf, raw) != nil {
			return json.Marshal(callParams{Name: name, Arguments: args, Meta: meta})
		}
		out = buf.Bytes()
	} else {
		if !gojson.Valid(raw) {
			return json.Marshal(callParams{Name: name, Arguments: args, Meta: meta})
		}
		out = append(out, raw...)
	}
	if len(meta) > 0 {
		out = append(out, `,"_meta":`...)
		out = append(out, meta...)
	}
	return append(out, '}'), nil
}

// plainName reports whether name is written in JSON as it is: printable ASCII that the
// encoder neither escapes nor quotes (no quote, backslash or HTML character).
func plainName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// parseCallResult is mcp.ParseCallToolResult with its first pass (is there content, or a
// request for input?) read by goccy/go-json, the hot path's JSON library. A result that
// pass finds wanting, or that does not decode, goes through mcp.ParseCallToolResult
// itself, for its verdict and its error.
func parseCallResult(result json.RawMessage) (*mcp.CallToolResult, error) {
	var probe struct {
		Content    json.RawMessage `json:"content"`
		ResultType mcp.ResultType  `json:"resultType"`
	}
	if gojson.Unmarshal(result, &probe) != nil || (probe.Content == nil && probe.ResultType != mcp.ResultTypeInputRequired) {
		return mcp.ParseCallToolResult(&result)
	}
	var res mcp.CallToolResult
	if json.Unmarshal(result, &res) != nil {
		return mcp.ParseCallToolResult(&result)
	}
	return &res, nil
}

// callPrefix is the prefix of this session's fast call ids: a string, so they never meet
// mcp-go's numeric ones.
func (c *Client) callPrefix() string {
	c.prefixOnce.Do(func() { c.prefix = "mcp-bridge-call-" + nonce() + "-" })
	return c.prefix
}
