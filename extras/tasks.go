// Package extras is what servers offer beyond tools: the resources, resource templates
// and prompts of every server (listed into its cache entry, searched, read) and the
// board of long-running tool calls (MCP tasks). It works over a session.Session and the
// cache; starting servers and wording their failures stay with the bridge.
package extras

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/session"
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

// budgetEndKey carries, in a call's context, when its budget ends on the injected clock.
type budgetEndKey struct{}

// WithBudgetEnd records when the call's budget ends on the injected clock, so a task wait
// returns before the host's deadline and tests can end it by advancing a fake clock.
func WithBudgetEnd(ctx context.Context, end time.Time) context.Context {
	return context.WithValue(ctx, budgetEndKey{}, end)
}

// WaitEnd is when a wait for a task gives up: the budget's end less margin, which leaves
// time to answer, or the zero time when the call has no budget on record.
func WaitEnd(ctx context.Context, margin time.Duration) time.Time {
	end, ok := ctx.Value(budgetEndKey{}).(time.Time)
	if !ok {
		return time.Time{}
	}
	return end.Add(-margin)
}

// Board holds every server's running tasks, and ended ones whose result nobody has
// fetched yet.
type Board struct {
	mu    sync.Mutex
	tasks map[taskKey]*Task
	clock clock.Clock // bounds a tasks/cancel
}

type taskKey struct{ server, id string }

// Task is one task of one server.
type Task struct {
	Server, Tool, ID string
	Started          time.Time
	Sess             session.Session // the session the task runs on
	Log              zerolog.Logger
	Stop             context.CancelFunc // ends the tasks/result request (or the polls)
	// CancelFn sends the cancellation of the task; nil: tasks/cancel through mcp-go
	// (2025-11-25). The tasks extension's acknowledgement has another shape.
	CancelFn func(ctx context.Context) error

	statusMu sync.Mutex
	status   *mcp.Task // the last status seen by the polls (the tasks extension)

	done chan struct{} // closed when res/err are set
	res  *mcp.CallToolResult
	err  error

	Waiting atomic.Int32 // calls waiting for it now (tests wait on this)
}

// NewTask is a task that has not ended yet.
func NewTask(server, tool, id string, started time.Time, sess session.Session, log zerolog.Logger, stop context.CancelFunc) *Task {
	return &Task{Server: server, Tool: tool, ID: id, Started: started, Sess: sess, Log: log, Stop: stop, done: make(chan struct{})}
}

// Finish records the task's result (or why it has none) and ends it; once only.
func (t *Task) Finish(res *mcp.CallToolResult, err error) {
	t.res, t.err = res, err
	close(t.done)
}

// SetStatus records the task's status as the polls last saw it.
func (t *Task) SetStatus(st mcp.Task) {
	t.statusMu.Lock()
	t.status = &st
	t.statusMu.Unlock()
}

// Status is the status the polls last saw; false when nothing polls the task (a
// 2025-11-25 task, whose status is asked for with tasks/get).
func (t *Task) Status() (mcp.Task, bool) {
	t.statusMu.Lock()
	defer t.statusMu.Unlock()
	if t.status == nil {
		return mcp.Task{}, false
	}
	return *t.status, true
}

// Done is closed once the task has ended.
func (t *Task) Done() <-chan struct{} { return t.done }

// Result is what Finish recorded; read it once Done is closed.
func (t *Task) Result() (*mcp.CallToolResult, error) { return t.res, t.err }

// NewBoard is an empty task board; c bounds the tasks/cancel of a task whose call ended.
func NewBoard(c clock.Clock) *Board { return &Board{tasks: map[taskKey]*Task{}, clock: c} }

// Add puts t on the board.
func (tb *Board) Add(t *Task) {
	tb.mu.Lock()
	tb.tasks[taskKey{t.Server, t.ID}] = t
	tb.mu.Unlock()
}

// Get is the server's task id (nil when the board has none).
func (tb *Board) Get(server, id string) *Task {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.tasks[taskKey{server, id}]
}

// Remove takes t off the board.
func (tb *Board) Remove(t *Task) {
	tb.mu.Lock()
	if tb.tasks[taskKey{t.Server, t.ID}] == t {
		delete(tb.tasks, taskKey{t.Server, t.ID})
	}
	tb.mu.Unlock()
}

// List returns the server's tasks, oldest first.
func (tb *Board) List(server string) []*Task {
	tb.mu.Lock()
	var out []*Task
	for k, t := range tb.tasks {
		if k.server == server {
			out = append(out, t)
		}
	}
	tb.mu.Unlock()
	slices.SortFunc(out, func(a, b *Task) int { return a.Started.Compare(b.Started) })
	return out
}

// Ended reports whether the task's result (or failure) is in.
func (t *Task) Ended() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// Cancel sends tasks/cancel for t, then forgets it.
func (tb *Board) Cancel(ctx context.Context, t *Task) {
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

// StillRunning is the result of a call that ran out of time while its task works on;
// fetch is the call that gets the result, as the model writes it on this host.
func StillRunning(t *Task, last *mcp.Task, fetch string) *mcp.CallToolResult {
	status := ""
	if last != nil && last.StatusMessage != "" {
		status = " (" + last.StatusMessage + ")"
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
