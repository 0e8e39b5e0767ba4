package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/zot-mcp/mcp-bridge/tasks"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/plainjson"
)

// On a host that shows the model every registered tool at once (proxy mode, the released
// zot), the bridge registers only the search and call tools. Resources and task results are
// then reached through mcp__call_tool under these tool names, which the answers that need
// them spell out. An MCP tool name holds only letters, digits, '_', '-' and '.', so no
// server's tool can take a name with a ':'.
const (
	ReadResourceCall = "mcp:read_resource"
	TaskResultCall   = "mcp:task_result"
)

// itemTools reports whether the host gets mcp__read_resource and mcp__task_result as tools
// of their own (deferred or direct mode) rather than through mcp__call_tool.
func (b *Bridge) itemTools() bool { return b.mode != ModeProxy }

// itemCall is how the model calls a bridge item tool (tool is resources.ReadResourceToolName or
// tasks.TaskResultToolName) for server and key=value on this host, as a line it can copy.
func (b *Bridge) itemCall(tool, server, key, value string) string {
	if b.itemTools() {
		args, _ := plainjson.Marshal(map[string]string{"server": server, key: value})
		return tool + " " + string(args)
	}
	args, _ := plainjson.Marshal(map[string]any{"server": server, "tool": reservedName(tool), "arguments": map[string]string{key: value}})
	return CallToolName + " " + string(args)
}

// itemShape is itemCall with placeholders, for a sentence that introduces several items.
func (b *Bridge) itemShape(tool, key string) string {
	if b.itemTools() {
		return tool + ` {"server": …, "` + key + `": …}`
	}
	return CallToolName + ` {"server": …, "tool": "` + reservedName(tool) + `", "arguments": {"` + key + `": …}}`
}

func reservedName(tool string) string {
	if tool == tasks.TaskResultToolName {
		return TaskResultCall
	}
	return ReadResourceCall
}

// reservedCall answers an mcp__call_tool whose tool is a reserved name (ok is false for
// any other): the arguments with the server added are what the item tool itself takes.
func (b *Bridge) reservedCall(ctx context.Context, raw json.RawMessage) (res extension.ToolResult, ok bool) {
	// Every proxy call passes here: only one whose bytes can spell a reserved name (a ':'
	// written plainly or escaped) is decoded twice.
	if !bytes.Contains(raw, []byte("mcp:")) && !bytes.Contains(raw, []byte(`\u`)) {
		return extension.ToolResult{}, false
	}
	var a callArgs
	if decodeArgs(raw, &a) != nil || (a.Tool != ReadResourceCall && a.Tool != TaskResultCall) {
		return extension.ToolResult{}, false
	}
	args := map[string]json.RawMessage{}
	if len(a.Arguments) > 0 && string(a.Arguments) != "null" {
		if err := json.Unmarshal(a.Arguments, &args); err != nil {
			args = map[string]json.RawMessage{} // itemArgs then says what is missing
		}
	}
	server, _ := json.Marshal(a.Server)
	args["server"] = server
	inner, _ := json.Marshal(args)
	if a.Tool == TaskResultCall {
		return b.taskResultTool(ctx, inner, true), true
	}
	return b.readResourceTool(ctx, inner, true), true
}
