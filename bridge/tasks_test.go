package bridge

import (
	"context"
	"encoding/json"
	"github.com/zot-mcp/mcp-bridge/resources"
	"github.com/zot-mcp/mcp-bridge/tasks"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// TestTaskResultCalledAgain: mcp__task_result waits up to the budget (on the injected
// clock), says the task is still running when it runs out, and a second call returns the
// result once it is in. Bad arguments and unknown tasks get errors that say what to do.
func TestTaskResultCalledAgain(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"srv": e.server()}, nil)
	b := e.bridge(extension.GenNew)
	task := lifecycle.NewTask("srv", "slow", "task-1", e.clock.Now(), nil, zerolog.Nop(), func() {})
	b.x.tasks.Add(task)
	args, _ := json.Marshal(map[string]string{"server": "srv", "task": "task-1"})

	fetch := func() <-chan extension.ToolResult {
		ch := make(chan extension.ToolResult, 1)
		go func() {
			ch <- b.CallTool(context.Background(), extension.ToolCall{Name: tasks.TaskResultToolName, Args: args})
		}()
		waitTaskWaiter(t, b, "srv")
		return ch
	}
	ch := fetch()
	e.clock.Advance(b.opts.CallBudget)
	r := <-ch
	if r.IsError || !strings.Contains(textOf(t, r), "still running slow as task task-1") || !slices.Contains(r.ActivateTools, tasks.TaskResultToolName) {
		t.Fatalf("first wait should run out and say how to fetch again: %+v", r)
	}

	ch = fetch()
	task.Finish(&mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent{Type: "text", Text: "done at last"}}}, nil)
	r = <-ch
	if r.IsError || textOf(t, r) != "done at last" {
		t.Fatalf("second wait should return the result: %+v", r)
	}

	for _, tc := range []struct {
		args, want string
	}{
		{`{"server":"srv","task":"task-1"}`, "already returned"},
		{`{"server":"srv"}`, "both server and task are required"},
		{`{"server":"nope","task":"x"}`, `unknown MCP server "nope"`},
		{`[1]`, "invalid arguments"},
	} {
		r := b.CallTool(context.Background(), extension.ToolCall{Name: tasks.TaskResultToolName, Args: json.RawMessage(tc.args)})
		if !r.IsError || !strings.Contains(textOf(t, r), tc.want) {
			t.Errorf("%s: %+v, want an error containing %q", tc.args, r, tc.want)
		}
	}
}

// TestTaskResultThroughCallTool: on the released zot (proxy mode) there is no
// mcp__task_result; the still-running answer names the mcp__call_tool call that fetches the
// result, activates nothing, and that call returns the result.
func TestTaskResultThroughCallTool(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"srv": e.server()}, nil)
	b := e.bridge(extension.GenLegacy)
	if b.mode != ModeProxy {
		t.Fatalf("mode %s on the released zot, want proxy", b.mode)
	}
	task := lifecycle.NewTask("srv", "slow", "task-1", e.clock.Now(), nil, zerolog.Nop(), func() {})
	b.x.tasks.Add(task)
	args, _ := json.Marshal(map[string]any{"server": "srv", "tool": TaskResultCall, "arguments": map[string]string{"task": "task-1"}})
	fetch := func() <-chan extension.ToolResult {
		ch := make(chan extension.ToolResult, 1)
		go func() { ch <- b.CallTool(context.Background(), extension.ToolCall{Name: CallToolName, Args: args}) }()
		waitTaskWaiter(t, b, "srv")
		return ch
	}
	ch := fetch()
	e.clock.Advance(b.opts.CallBudget)
	r := <-ch
	want := `mcp__call_tool {"arguments":{"task":"task-1"},"server":"srv","tool":"mcp:task_result"}`
	if r.IsError || !strings.Contains(textOf(t, r), want) || len(r.ActivateTools) != 0 {
		t.Fatalf("still running in proxy mode should name %s and activate nothing: %+v", want, r)
	}
	ch = fetch()
	task.Finish(&mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent{Type: "text", Text: "done at last"}}}, nil)
	if r = <-ch; r.IsError || textOf(t, r) != "done at last" {
		t.Fatalf("the second fetch should return the result: %+v", r)
	}
}

// TestReservedCallWrongArguments: an mcp__call_tool call of a reserved name whose
// arguments are wrong says what it expected in mcp__call_tool's shape, the one the model
// must use on this host; mcp__read_resource and mcp__task_result keep their own.
func TestReservedCallWrongArguments(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"srv": e.server()}, nil)
	b := e.bridge(extension.GenLegacy)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{CallToolName, map[string]any{"server": "srv", "tool": ReadResourceCall, "arguments": map[string]any{"uri": 5}},
			`mcp__call_tool mcp:read_resource: invalid arguments: "uri" must be a string. Expected {"server": "name", "tool": "mcp:read_resource", "arguments": {"uri": "scheme://…"}}.`},
		{CallToolName, map[string]any{"server": "srv", "tool": TaskResultCall, "arguments": map[string]any{"task": true}},
			`mcp__call_tool mcp:task_result: invalid arguments: "task" must be a string. Expected {"server": "name", "tool": "mcp:task_result", "arguments": {"task": "id"}}.`},
		{resources.ReadResourceToolName, map[string]any{"server": "srv", "uri": 5},
			`mcp__read_resource: invalid arguments: "uri" must be a string. Expected {"server": "name", "uri": "scheme://…"}.`},
		{tasks.TaskResultToolName, map[string]any{"server": "srv", "task": true},
			`mcp__task_result: invalid arguments: "task" must be a string. Expected {"server": "name", "task": "id"}.`},
	} {
		args, _ := json.Marshal(tc.args)
		r := b.CallTool(context.Background(), extension.ToolCall{Name: tc.tool, Args: args})
		if !r.IsError || textOf(t, r) != tc.want {
			t.Errorf("%s %s:\n%s\nwant\n%s", tc.tool, args, textOf(t, r), tc.want)
		}
	}
}
