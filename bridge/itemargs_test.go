package bridge

import (
	"context"
	"encoding/json"
	"github.com/zot-mcp/mcp-bridge/resources"
	"github.com/zot-mcp/mcp-bridge/tasks"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestItemToolArgumentErrors: mcp__read_resource and mcp__task_result read their
// arguments the same way, and each bad call gets its own tool's answer: the expected
// shape, where to find what is missing, the likely server. Nothing is started.
func TestItemToolArgumentErrors(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"srv": e.server()}, nil)
	b := e.bridge(extension.GenNew)
	for _, tc := range []struct {
		tool, args string
		want       []string
	}{
		{resources.ReadResourceToolName, `[1]`, []string{resources.ReadResourceToolName + ": invalid arguments", `Expected {"server": "name", "uri": "scheme://…"}`}},
		{tasks.TaskResultToolName, `[1]`, []string{tasks.TaskResultToolName + ": invalid arguments", `Expected {"server": "name", "task": "id"}`}},
		{resources.ReadResourceToolName, `{"server":"srv","uri":3}`, []string{`invalid arguments: "uri" must be a string`}},
		{tasks.TaskResultToolName, `{"server":true,"task":"x"}`, []string{`invalid arguments: "server" must be a string`}},
		{resources.ReadResourceToolName, `{"server":"srv","uri":"  "}`, []string{"both server and uri are required; find them with " + SearchToolName + "."}},
		{tasks.TaskResultToolName, `{"task":"x"}`, []string{"both server and task are required, as the still-running call result gave them."}},
		{resources.ReadResourceToolName, `null`, []string{"both server and uri are required"}},
		{resources.ReadResourceToolName, `{"server":"sr","uri":"a://b"}`, []string{resources.ReadResourceToolName + `: unknown MCP server "sr".`, `"srv"`, "Servers: srv"}},
		{tasks.TaskResultToolName, `{"server":" nope ","task":"x"}`, []string{tasks.TaskResultToolName + `: unknown MCP server "nope".`}},
		{tasks.TaskResultToolName, `{"server":" srv ","task":" t-9 "}`, []string{`MCP server "srv" has no task "t-9"`}},
	} {
		r := b.CallTool(context.Background(), extension.ToolCall{Name: tc.tool, Args: json.RawMessage(tc.args)})
		text := textOf(t, r)
		for _, w := range tc.want {
			if !r.IsError || !strings.Contains(text, w) {
				t.Errorf("%s %s: %q, want an error containing %q", tc.tool, tc.args, text, w)
			}
		}
	}
}
