// Package tasks is the board of long-running tool calls (MCP tasks) of every server: the
// tasks that run and the ended ones whose result nobody has fetched yet, the "still
// running" result of a call that ran out of time, and mcp__task_result's definition.
// Starting and following a task is the server's state machine's (lifecycle).
package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// Long-running work (MCP tasks: protocol revision 2025-11-25, and the tasks extension of
// 2026-07-28, SEP-2663). A tool that the server runs as a task is called task-augmented:
// the server answers at once with a task id and works on. One goroutine per task asks
// tasks/result (which blocks until the task ends; on the extension it polls tasks/get)
// and keeps the answer on the Board; the call, and later mcp__task_result, wait for it
// until the call's budget runs out on the injected clock. A call that runs out says the
// task is still running and how to fetch it, instead of losing the work.

// TaskResultToolName is the bridge tool that waits for a task's result.
const TaskResultToolName = "mcp__task_result"

// TaskResultDescription is mcp__task_result's description.
const TaskResultDescription = "Wait for the result of a long-running MCP tool call (a task) that an earlier call said is still running. " +
	"It waits up to about a minute; call it again while the task is still running."

// TaskResultSchema is mcp__task_result's input schema.
var TaskResultSchema = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string"},"task":{"type":"string"}},"required":["server","task"],"additionalProperties":false}`)

// taskCancelTimeout bounds the tasks/cancel sent after the call's own context ended.
const taskCancelTimeout = 5 * time.Second

// Board holds every server's running tasks, and ended ones whose result nobody has
// fetched yet.
type Board struct {
	mu    sync.Mutex
	tasks map[taskKey]*lifecycle.Task
	clock clock.Clock // bounds a tasks/cancel
}

type taskKey struct{ server, id string }

// NewBoard is an empty task board; c bounds the tasks/cancel of a task whose call ended.
func NewBoard(c clock.Clock) *Board { return &Board{tasks: map[taskKey]*lifecycle.Task{}, clock: c} }

// Add puts t on the board.
func (tb *Board) Add(t *lifecycle.Task) {
	tb.mu.Lock()
	tb.tasks[taskKey{t.Server, t.ID}] = t
	tb.mu.Unlock()
}

// Get is the server's task id (nil when the board has none).
func (tb *Board) Get(server, id string) *lifecycle.Task {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.tasks[taskKey{server, id}]
}

// Remove takes t off the board.
func (tb *Board) Remove(t *lifecycle.Task) {
	tb.mu.Lock()
	if tb.tasks[taskKey{t.Server, t.ID}] == t {
		delete(tb.tasks, taskKey{t.Server, t.ID})
	}
	tb.mu.Unlock()
}

// List returns the server's tasks, oldest first.
func (tb *Board) List(server string) []*lifecycle.Task {
	tb.mu.Lock()
	var out []*lifecycle.Task
	for k, t := range tb.tasks {
		if k.server == server {
			out = append(out, t)
		}
	}
	tb.mu.Unlock()
	slices.SortFunc(out, func(a, b *lifecycle.Task) int { return a.Started.Compare(b.Started) })
	return out
}

// Cancel sends tasks/cancel for t, then forgets it.
func (tb *Board) Cancel(ctx context.Context, t *lifecycle.Task) {
	cctx, cancel := clock.WithTimeout(context.WithoutCancel(ctx), tb.clock, taskCancelTimeout)
	defer cancel()
	var err error
	if t.CancelFn != nil {
		err = t.CancelFn(cctx)
	} else {
		err = t.Sess.CancelTask(cctx, mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: t.ID}})
	}
	t.Stop()
	tb.Remove(t)
	if err != nil {
		t.Log.Warn().Str("server", t.Server).Str("task", t.ID).Err(err).Msg("tasks/cancel failed")
	}
}

// maxStatusText bounds a task's status message as the model reads it.
const maxStatusText = 200

// StillRunning is the result of a call that ran out of time while its task works on;
// fetch is the call that gets the result, as the model writes it on this host.
func StillRunning(t *lifecycle.Task, last *mcp.Task, fetch string) *mcp.CallToolResult {
	// The status is the server's text: made safe and cut short before it reaches the
	// model. The id stays as the server gave it: the model hands it back to fetch.
	status := ""
	if last != nil && last.StatusMessage != "" {
		status = " (" + textcut.Truncate(safetext.Sanitize(last.StatusMessage), maxStatusText) + ")"
	}
	text := fmt.Sprintf("MCP server %q is still running %s as task %s%s. Nothing is lost: get the result with %s; it waits up to the call's time limit and can be called again while the task runs.",
		t.Server, t.Tool, t.ID, status, fetch)
	return &mcp.CallToolResult{
		Result:  mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{stillRunningKey: t.ID}}},
		Content: []mcp.Content{mcp.TextContent{Type: "text", Text: text}},
	}
}

// IsStillRunning reports whether res was made by StillRunning.
func IsStillRunning(res *mcp.CallToolResult) bool {
	return res != nil && res.Meta != nil && res.Meta.AdditionalFields[stillRunningKey] != nil
}

// stillRunningKey marks, in a result's _meta, a result made by StillRunning (the bridge's
// own; a server that sets it only makes mcp__task_result visible).
const stillRunningKey = "mcp-bridge/still-running"

// WithHint activates mcp__task_result beside a "still running" result, so a model on
// a host with deferred tools can call it.
func WithHint(res *mcp.CallToolResult, out extension.ToolResult) extension.ToolResult {
	if !IsStillRunning(res) {
		return out
	}
	out.ActivateTools = append(out.ActivateTools, TaskResultToolName)
	return out
}

// Text is the /mcp <server> section listing the server's tasks ("" when there are none),
// their ages as of now; fetch is how the model fetches a result on this host. A task's id
// is the server's text, shown escaped.
func (tb *Board) Text(server string, now time.Time, fetch string) string {
	tasks := tb.List(server)
	if len(tasks) == 0 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Tasks (%d; fetch with %s):\n", len(tasks), fetch)
	for _, t := range tasks {
		state := "running"
		if t.Ended() {
			state = "ended, result not fetched yet"
		}
		fmt.Fprintf(&sb, "  %s  %s  %s, started %s ago\n", safetext.Escape(t.ID), t.Tool, state, now.Sub(t.Started).Round(time.Second))
	}
	return sb.String()
}
