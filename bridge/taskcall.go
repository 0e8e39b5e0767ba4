package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zot-mcp/mcp-bridge/session"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/tasks"
	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// The bridge's side of MCP tasks (the board is tasks.Board): sending a task-augmented
// tools/call, fetching its result while the server is held awake, waiting for it within
// the call's budget, and mcp__task_result.

// tasksText is the /mcp <server> section listing its tasks ("" when there are none).
func (b *Bridge) tasksText(server string) string {
	return b.x.tasks.Text(server, b.opts.Clock.Now(), b.itemShape(tasks.TaskResultToolName, "task"))
}

// waitTask waits for t's result until expired fires or ctx ends. A result is handed over
// once (the task then leaves the board). When time runs out, the result says the task is
// still running and how to fetch it; when the call is cancelled (the host's tool_cancel),
// the task is cancelled with tasks/cancel.
func (b *Bridge) waitTask(ctx context.Context, t *lifecycle.Task, expired <-chan struct{}, last *mcp.Task) (*mcp.CallToolResult, error) {
	x := b.x
	fetch := b.itemCall(tasks.TaskResultToolName, t.Server, "task", t.ID)
	t.Waiting.Add(1)
	defer t.Waiting.Add(-1)
	select {
	case <-t.Done():
		x.tasks.Remove(t)
		return t.Result()
	case <-expired:
		return tasks.StillRunning(t, last, fetch), nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return tasks.StillRunning(t, last, fetch), nil
		}
		if errors.Is(context.Cause(ctx), extension.ErrShutdown) {
			// Stopping the server ends its tasks; a tasks/cancel here could only
			// delay the shutdown past the host's grace period.
			return nil, &lifecycle.Error{Kind: session.KindCanceled, Msg: fmt.Sprintf("call to %s ended by shutdown", t.Tool), Err: ctx.Err()}
		}
		x.tasks.Cancel(ctx, t)
		return nil, &lifecycle.Error{Kind: session.KindCanceled, Msg: fmt.Sprintf("call to %s cancelled; task %s was cancelled on the server", t.Tool, t.ID), Err: ctx.Err()}
	}
}

// registerTaskResult registers mcp__task_result like mcp__read_resource: deferred where
// tools are (a "still running" result activates it), directly elsewhere.
func (b *Bridge) registerTaskResult(r *extension.Registrations) error {
	if len(b.names) == 0 || !b.itemTools() {
		return nil
	}
	return r.AddTool(extension.Tool{Name: tasks.TaskResultToolName, Description: tasks.TaskResultDescription,
		Schema: tasks.TaskResultSchema, Deferred: b.mode == ModeDeferred})
}

// taskResultTool answers mcp__task_result: the task's result, or "still running" once the
// call's budget is spent; with reserved, the answer to mcp__call_tool with TaskResultCall.
func (b *Bridge) taskResultTool(ctx context.Context, raw json.RawMessage, reserved bool) extension.ToolResult {
	it := itemFor(tasks.TaskResultToolName, TaskResultCall, reserved, itemTool{key: "task", example: "id",
		where: ", as the still-running call result gave them"})
	srv, id, bad := b.itemArgs(raw, it)
	if bad != nil {
		return *bad
	}
	server := srv.Name()
	t := b.x.tasks.Get(server, id)
	if t == nil {
		return toolresult.Error("%s: MCP server %q has no task %q in this session: its result was already returned, it was cancelled, or the bridge restarted since (a restart loses running tasks). Call the tool again if you still need its result.", it.name, server, id)
	}
	ctx, cancel := clock.WithTimeout(ctx, b.opts.Clock, b.opts.CallBudget)
	defer cancel()
	expired, timer := clock.After(b.opts.Clock, b.opts.CallBudget-interact.AnswerMargin)
	defer timer.Stop()
	res, err := b.waitTask(ctx, t, expired, nil)
	if err != nil {
		return serverFailure(server, err)
	}
	return b.taskHint(res, toolresult.Convert(res, b.resultBudget()))
}

// taskHint activates mcp__task_result beside a "still running" result where it is a
// deferred tool; elsewhere the host shows it already, or it is not registered (proxy mode).
func (b *Bridge) taskHint(res *mcp.CallToolResult, out extension.ToolResult) extension.ToolResult {
	if b.mode != ModeDeferred {
		return out
	}
	return tasks.WithHint(res, out)
}
