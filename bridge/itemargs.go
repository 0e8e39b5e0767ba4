package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// The bridge's tools that fetch one item of a server, mcp__read_resource (a resource's
// uri) and mcp__task_result (a task's id), read their arguments and word a server's
// failure the same way, each error naming its own tool.

// itemTool says how a tool that takes {"server": …, <key>: …} words a bad call.
type itemTool struct {
	name    string // the tool's name
	key     string // the item's argument
	example string // the item, in the arguments' expected shape
	where   string // where the caller finds both, after "both server and <key> are required"
	// reserved is the tool's reserved name when it is reached through mcp__call_tool
	// (proxy mode), whose arguments then have another shape; "" otherwise.
	reserved string
}

// itemFor is t for the item tool named tool, or, when reserved, for mcp__call_tool with
// its reserved name call.
func itemFor(tool, call string, reserved bool, t itemTool) itemTool {
	t.name = tool
	if reserved {
		t.name, t.reserved = CallToolName+" "+call, call
	}
	return t
}

// shape is the arguments t expects, as the caller writes them.
func (t itemTool) shape() string {
	if t.reserved != "" {
		return fmt.Sprintf(`{"server": "name", "tool": %q, "arguments": {%q: %q}}`, t.reserved, t.key, t.example)
	}
	return fmt.Sprintf(`{"server": "name", %q: %q}`, t.key, t.example)
}

// itemArgs reads raw for t: the server and the item, trimmed and required, the server a
// configured one. A bad call gets t's answer: invalid arguments (with their expected
// shape), a missing one (with where to find it), an unknown server (with the likely one).
func (b *Bridge) itemArgs(raw json.RawMessage, t itemTool) (*lifecycle.Server, string, *extension.ToolResult) {
	fail := func(r extension.ToolResult) (*lifecycle.Server, string, *extension.ToolResult) { return nil, "", &r }
	var a map[string]json.RawMessage
	err := decodeArgs(raw, &a)
	var server, item string
	if err == nil {
		server, err = stringArg(a, "server")
	}
	if err == nil {
		item, err = stringArg(a, t.key)
	}
	if err != nil {
		return fail(toolresult.Error("%s: invalid arguments: %v. Expected %s.", t.name, err, t.shape()))
	}
	if server == "" || item == "" {
		return fail(toolresult.Error("%s: both server and %s are required%s.", t.name, t.key, t.where))
	}
	srv, ok := b.servers[server]
	if !ok {
		return fail(toolresult.Error("%s: unknown MCP server %q.%s Servers: %s", t.name, server, textdist.Suggest(server, b.names), commands.ServerList(b.names)))
	}
	return srv, item, nil
}

// stringArg is the string a[key], trimmed ("" when absent or null).
func stringArg(a map[string]json.RawMessage, key string) (string, error) {
	v, ok := a[key]
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", fmt.Errorf("%q must be a string", key)
	}
	return strings.TrimSpace(s), nil
}

// serverFailure answers a request to server that failed: with the state machine's worded
// error, else with the error as it came.
func serverFailure(server string, err error) extension.ToolResult {
	var be *lifecycle.Error
	if errors.As(err, &be) {
		return toolresult.Error("%s", be.Msg)
	}
	return toolresult.Error("MCP server %q: %v", server, err)
}
