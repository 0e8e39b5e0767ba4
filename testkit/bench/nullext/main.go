// Command nullext is a zot extension on the bridge's own extension package that answers
// every tool_call at once, with no MCP server behind it: the floor of the extension side
// of a call (its reader, its worker, its writer and their hand-offs) that testkit/bench/hostsim
// times beside the bridge. It registers one tool, mcp__srv__echo, the name the bridge
// gives the echo tool of hostsim's server, and serves calls on one P as the bridge does.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// handler answers every call with the same text.
type handler struct{}

func (handler) Setup(_ context.Context, s *extension.Session) error {
	var r extension.Registrations
	if err := r.AddTool(extension.Tool{Name: "mcp__srv__echo", Description: "Answers at once."}); err != nil {
		return err
	}
	return s.Register(&r)
}

func (handler) CallTool(context.Context, extension.ToolCall) extension.ToolResult {
	return extension.ToolResult{Content: []extension.Content{{Type: "text", Text: "Echo: hello"}}}
}

func (handler) RunCommand(context.Context, extension.Command) extension.CommandResponse {
	return extension.CommandResponse{Action: "noop"}
}

func main() {
	if err := extension.Run(context.Background(), os.Stdin, os.Stdout, handler{}, extension.Options{Name: "nullext", Version: "0", ServeProcs: 1}); err != nil {
		fmt.Fprintln(os.Stderr, "nullext:", err)
		os.Exit(1)
	}
}
