// Command mcpfloor is a minimal forwarder through mcp-go (reference): a zot extension that
// forwards a call to an MCP server with the bridge's own extension package on one side,
// mcp-go's stdio transport on the other, and nothing between them but one pre-encoded
// tools/call and a decode of the result's text. testkit/bench/hostsim times it beside the
// bridge (as its --base way) to show how much of the bridge's cost over a byte relay those
// two layers take on their own. It is a reference, not a floor: the bridge can be faster.
// The server's argv comes as a JSON array in MCP_FLOOR_SERVER, the tool to call in
// MCP_FLOOR_TOOL (echo when unset); it registers mcp__srv__<tool>.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync/atomic"

	gojson "github.com/goccy/go-json"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extension"
)

type handler struct {
	tr     *transport.Stdio
	ids    atomic.Int64
	params []byte // the tools/call params up to the arguments
}

func (h *handler) Setup(ctx context.Context, s *extension.Session) error {
	var argv []string
	if err := json.Unmarshal([]byte(os.Getenv("MCP_FLOOR_SERVER")), &argv); err != nil || len(argv) == 0 {
		return errors.New("MCP_FLOOR_SERVER must be the server's argv as a JSON array")
	}
	h.tr = transport.NewStdio(argv[0], os.Environ(), argv[1:]...)
	c := client.NewClient(h.tr)
	if err := c.Start(context.Background()); err != nil {
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpfloor", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return err
	}
	h.ids.Store(1 << 20) // past the client's own ids
	tool := os.Getenv("MCP_FLOOR_TOOL")
	if tool == "" {
		tool = "echo"
	}
	name, err := json.Marshal(tool)
	if err != nil {
		return err
	}
	h.params = append(append([]byte(`{"name":`), name...), `,"arguments":`...)
	var r extension.Registrations
	if err := r.AddTool(extension.Tool{Name: "mcp__srv__" + tool, Description: "Calls the server's " + tool + " tool."}); err != nil {
		return err
	}
	return s.Register(&r)
}

// result is the part of a tools/call result the forwarder reads.
type result struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (h *handler) CallTool(ctx context.Context, call extension.ToolCall) extension.ToolResult {
	params := append(append(slices.Clip(h.params), call.Args...), '}')
	resp, err := h.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
		ID: mcp.NewRequestId("f" + strconv.FormatInt(h.ids.Add(1), 10)), Method: "tools/call", Params: json.RawMessage(params)})
	if err == nil && resp.Error != nil {
		err = errors.New(resp.Error.Message)
	}
	var r result
	if err == nil {
		err = gojson.Unmarshal(resp.Result, &r)
	}
	if err != nil {
		return extension.ToolResult{IsError: true, Content: []extension.Content{{Type: "text", Text: err.Error()}}}
	}
	out := extension.ToolResult{IsError: r.IsError}
	for _, c := range r.Content {
		out.Content = append(out.Content, extension.Content{Type: c.Type, Text: c.Text})
	}
	return out
}

func (h *handler) RunCommand(context.Context, extension.Command) extension.CommandResponse {
	return extension.CommandResponse{Action: "noop"}
}

func main() {
	h := &handler{}
	err := extension.Run(context.Background(), os.Stdin, os.Stdout, h, extension.Options{Name: "mcpfloor", Version: "0", ServeProcs: 1})
	if h.tr != nil {
		_ = h.tr.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpfloor:", err)
		os.Exit(1)
	}
}
