package session

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/config"
)

// seenRequest is one POST a test server received.
type seenRequest struct {
	header http.Header
	meta   map[string]json.RawMessage
	params map[string]json.RawMessage
}

// recorder keeps the last POST of each method.
type recorder struct {
	mu   sync.Mutex
	last map[string]seenRequest
}

func (r *recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			body, _ := io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string                     `json:"method"`
				Params map[string]json.RawMessage `json:"params"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
				var meta map[string]json.RawMessage
				_ = json.Unmarshal(msg.Params["_meta"], &meta)
				r.mu.Lock()
				r.last[msg.Method] = seenRequest{header: req.Header.Clone(), meta: meta, params: msg.Params}
				r.mu.Unlock()
			}
		}
		next.ServeHTTP(w, req)
	})
}

func (r *recorder) get(t *testing.T, method string) seenRequest {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.last[method]
	if !ok {
		t.Fatalf("the server saw no %s request", method)
	}
	return s
}

// badHeaderTool is listed by the test server although its x-mcp-header annotations are
// invalid (two properties name one header, case aside): mcp-go's server refuses to
// register such a tool, so a tool filter adds it to the listing.
var badHeaderTool = mcp.Tool{Name: "bad_headers", RawInputSchema: json.RawMessage(
	`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`)}

// headerServer is an mcp-go streamable HTTP server (it speaks both eras and checks a
// modern request's _meta, standard headers and Mcp-Param-* headers) with one tool whose
// region argument is mirrored into Mcp-Param-Region, plus badHeaderTool in its listing.
func headerServer(t *testing.T) (*httptest.Server, *recorder) {
	t.Helper()
	srv := server.NewMCPServer("hdr", "1", server.WithToolCapabilities(false),
		server.WithPromptCapabilities(false),
		server.WithToolFilter(func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
			if len(tools) > 1 {
				return append(tools, badHeaderTool)
			}
			return tools
		}))
	srv.AddTool(mcp.Tool{Name: "route", RawInputSchema: json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"q":{"type":"string"}}}`)},
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("routed " + req.GetString("region", "")), nil
		})
	srv.AddTool(mcp.NewTool("plain"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	rec := &recorder{last: map[string]seenRequest{}}
	hs := httptest.NewServer(rec.wrap(server.NewStreamableHTTPServer(srv)))
	t.Cleanup(hs.Close)
	return hs, rec
}

// openHTTP opens a session client on url; a pinned version keeps it on the legacy
// handshake, an empty one lets mcp-go negotiate 2026-07-28.
func openHTTP(t *testing.T, ctx context.Context, url, pin string, tool func(string) (mcp.Tool, bool)) *Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url)
	if err != nil {
		t.Fatal(err)
	}
	h := Handlers{Tool: tool, Options: []client.ClientOption{client.WithClientCapabilities(mcp.ClientCapabilities{
		Roots: &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{ListChanged: true}})}}
	h.Init.Params.ProtocolVersion = pin
	h.Era.Pin = pin
	h.Init.Params.ClientInfo = mcp.Implementation{Name: "mcp-bridge-test", Version: "9"}
	c := NewClient(tr, config.TransportStreamableHTTP, h)
	if err := c.Initialize(ctx, h); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.cl.Close() })
	return c
}

// TestModernRawRequests: on a 2026-07-28 connection the requests the bridge sends
// around mcp-go (the tolerant tools/list, Request) carry the _meta mcp-go's own requests
// carry and the standard headers, and a tools/call on either path carries the tool's
// Mcp-Param-* header from the bridge's definition (mcp-go's server refuses a request
// without them); a tool whose annotations are invalid is skipped with the reason.
func TestModernRawRequests(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hs, rec := headerServer(t)
	var defs map[string]mcp.Tool
	var defsMu sync.Mutex
	c := openHTTP(t, ctx, hs.URL, "", func(name string) (mcp.Tool, bool) {
		defsMu.Lock()
		defer defsMu.Unlock()
		d, ok := defs[name]
		return d, ok
	})
	if v := c.cl.ProtocolVersion(); !mcp.IsModernProtocol(v) {
		t.Fatalf("negotiated %q, want a modern version", v)
	}
	tools, skipped, err := c.ListTools(ctx)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	defsMu.Lock()
	defs = map[string]mcp.Tool{}
	for _, tl := range tools {
		defs[tl.Name] = tl
	}
	defsMu.Unlock()
	if len(tools) != 2 {
		t.Errorf("listed %d tools, want route and plain", len(tools))
	}
	if len(skipped) != 1 || skipped[0].Name != "bad_headers" || !strings.Contains(skipped[0].Reason, "x-mcp-header annotations are invalid") ||
		!strings.Contains(skipped[0].Reason, "duplicate") {
		t.Errorf("skipped %+v, want bad_headers with its reason", skipped)
	}
	list := rec.get(t, "tools/list")
	// mcp-go's server marks a listing private with a ttl of 0 unless told otherwise.
	if h := c.ToolListHints(); h.TTL == nil || *h.TTL != 0 || !h.Private {
		t.Errorf("caching hints %+v, want ttl 0, private", h)
	}

	// mcp-go's own request on the same connection: its _meta is what ours must be.
	if _, err := c.cl.ListPrompts(ctx, mcp.ListPromptsRequest{}); err != nil {
		t.Fatalf("prompts/list: %v", err)
	}
	own := rec.get(t, "prompts/list")
	for _, k := range []string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo} {
		if len(list.meta[k]) == 0 || string(list.meta[k]) != string(own.meta[k]) {
			t.Errorf("tools/list _meta %s = %s, mcp-go sends %s", k, list.meta[k], own.meta[k])
		}
	}
	if len(list.meta) != len(own.meta) {
		t.Errorf("tools/list _meta %v, mcp-go's %v", list.meta, own.meta)
	}
	if got := list.header.Get("Mcp-Method"); got != "tools/list" {
		t.Errorf("tools/list Mcp-Method %q", got)
	}
	if got := list.header.Get(mcp.HeaderProtocolVersion); got != c.cl.ProtocolVersion() {
		t.Errorf("tools/list MCP-Protocol-Version %q", got)
	}

	call := mcp.CallToolRequest{}
	call.Params.Name = "route"
	call.Params.Arguments = json.RawMessage(`{"region":"eu wést","q":"x"}`)
	res, err := c.CallTool(ctx, call)
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if res.IsError {
		t.Fatalf("tools/call: %+v", res.Content)
	}
	seen := rec.get(t, "tools/call")
	if got := seen.header.Get("Mcp-Param-Region"); got == "" || got == "eu wést" {
		t.Errorf("Mcp-Param-Region %q, want the base64 form", got)
	}
	if seen.header.Get("Mcp-Param-Q") != "" {
		t.Error("an argument without x-mcp-header was mirrored")
	}

	// The same call sent around mcp-go (a task-augmented call's path).
	params := call.Params
	resp, err := c.Request(ctx, string(mcp.MethodToolsCall), params)
	if err != nil || resp.Error != nil {
		t.Fatalf("raw tools/call: %v %+v", err, resp)
	}
	raw := rec.get(t, "tools/call")
	if raw.header.Get("Mcp-Name") != "route" || raw.header.Get("Mcp-Method") != "tools/call" || raw.header.Get("Mcp-Param-Region") != seen.header.Get("Mcp-Param-Region") {
		t.Errorf("raw tools/call headers %v", raw.header)
	}
	if string(raw.meta[mcp.MetaKeyProtocolVersion]) != string(own.meta[mcp.MetaKeyProtocolVersion]) {
		t.Errorf("raw tools/call _meta %v", raw.meta)
	}
}

// TestLegacyRawRequests: on a 2025-11-25 connection the same requests go out as they
// always did: no _meta, no standard or Mcp-Param-* headers, and no tool is left out for
// its annotations.
func TestLegacyRawRequests(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hs, rec := headerServer(t)
	route := mcp.Tool{Name: "route", RawInputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)}
	c := openHTTP(t, ctx, hs.URL, mcp.LATEST_LEGACY_PROTOCOL_VERSION, func(string) (mcp.Tool, bool) { return route, true })
	tools, skipped, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 3 || len(skipped) != 0 {
		t.Errorf("legacy listing: %d tools, skipped %+v; want all 3 offered", len(tools), skipped)
	}
	if _, ok := rec.get(t, "tools/list").params["_meta"]; ok {
		t.Error("legacy tools/list carries _meta")
	}
	if h := c.ToolListHints(); h.TTL != nil || h.Private {
		t.Errorf("a legacy listing has caching hints %+v", h)
	}
	call := mcp.CallToolRequest{}
	call.Params.Name = "route"
	call.Params.Arguments = map[string]any{"region": "eu"}
	if _, err := c.CallTool(ctx, call); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Request(ctx, string(mcp.MethodToolsCall), call.Params); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"tools/list", "tools/call"} {
		h := rec.get(t, m).header
		for _, k := range []string{"Mcp-Method", "Mcp-Name", "Mcp-Param-Region"} {
			if h.Get(k) != "" {
				t.Errorf("legacy %s carries %s", m, k)
			}
		}
	}
	if _, ok := rec.get(t, "tools/call").params["_meta"]; ok {
		t.Error("legacy raw tools/call carries _meta")
	}
}
