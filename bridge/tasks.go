package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// Long-running work (MCP tasks, protocol revision 2025-11-25). A tool that the server
// runs as a task is called task-augmented: the server answers at once with a task id and
// works on. One goroutine per task asks tasks/result (which blocks until the task ends)
// and keeps the answer on the taskBoard; the call, and later mcp__task_result, wait for it
// until the call's budget runs out on the injected clock. A call that runs out says the
// task is still running and how to fetch it, instead of losing the work.

// TaskResultToolName is the bridge tool that waits for a task's result.
const TaskResultToolName = "mcp__task_result"

const taskResultDescription = "Wait for the result of a long-running MCP tool call (a task) that an earlier call said is still running. " +
	"It waits up to about a minute; call it again while the task is still running."

var taskResultSchema = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string"},"task":{"type":"string"}},"required":["server","task"],"additionalProperties":false}`)

// taskCancelTimeout bounds the tasks/cancel sent after the call's own context ended.
const taskCancelTimeout = 5 * time.Second

// budgetEndKey carries, in a call's context, when its budget ends on the injected clock.
type budgetEndKey struct{}

// withBudgetEnd records when the call's budget ends on the injected clock, so a task wait
// returns before the host's deadline and tests can end it by advancing a fake clock.
func withBudgetEnd(ctx context.Context, end time.Time) context.Context {
	return context.WithValue(ctx, budgetEndKey{}, end)
}

// taskWaitEnd is when a wait for a task gives up: the budget's end less the margin that
// leaves time to answer, or the zero time when the call has no budget on record.
func taskWaitEnd(ctx context.Context) time.Time {
	end, ok := ctx.Value(budgetEndKey{}).(time.Time)
	if !ok {
		return time.Time{}
	}
	return end.Add(-elicitMargin)
}

// taskBoard holds every server's running tasks, and ended ones whose result nobody has
// fetched yet.
type taskBoard struct {
	mu    sync.Mutex
	tasks map[taskKey]*runningTask
}

type taskKey struct{ server, id string }

// runningTask is one task of one server.
type runningTask struct {
	server, tool, id string
	started          time.Time
	conn             *conn
	log              zerolog.Logger
	stop             context.CancelFunc // ends the tasks/result request

	done chan struct{} // closed when res/err are set
	res  *mcp.CallToolResult
	err  error

	waiting atomic.Int32 // calls waiting for it now (tests wait on this)
}

func newTaskBoard() *taskBoard { return &taskBoard{tasks: map[taskKey]*runningTask{}} }

func (tb *taskBoard) add(t *runningTask) {
	tb.mu.Lock()
	tb.tasks[taskKey{t.server, t.id}] = t
	tb.mu.Unlock()
}

func (tb *taskBoard) get(server, id string) *runningTask {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.tasks[taskKey{server, id}]
}

func (tb *taskBoard) remove(t *runningTask) {
	tb.mu.Lock()
	if tb.tasks[taskKey{t.server, t.id}] == t {
		delete(tb.tasks, taskKey{t.server, t.id})
	}
	tb.mu.Unlock()
}

// list returns the server's tasks, oldest first.
func (tb *taskBoard) list(server string) []*runningTask {
	tb.mu.Lock()
	var out []*runningTask
	for k, t := range tb.tasks {
		if k.server == server {
			out = append(out, t)
		}
	}
	tb.mu.Unlock()
	slices.SortFunc(out, func(a, b *runningTask) int { return a.started.Compare(b.started) })
	return out
}

// ended reports whether the task's result (or failure) is in.
func (t *runningTask) ended() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// taskAugmented reports whether a call to tool on c runs as a task: the server announced
// task-augmented tools/call and the tool's listing allows it.
func (s *Server) taskAugmented(c *conn, tool string) bool {
	if s.d.x == nil {
		return false
	}
	caps := c.sess.Info().Capabilities
	if caps.Tasks == nil || caps.Tasks.Requests == nil || caps.Tasks.Requests.Tools == nil || caps.Tasks.Requests.Tools.Call == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tools {
		if t.Name == tool {
			return t.Execution != nil && (t.Execution.TaskSupport == mcp.TaskSupportOptional || t.Execution.TaskSupport == mcp.TaskSupportRequired)
		}
	}
	return false
}

// createTaskResult is what a server answers a task-augmented request with.
type createTaskResult struct {
	Task *mcp.Task `json:"task"`
}

// callTask runs req as a task-augmented tools/call on c and waits for its result until
// the call's budget ends. mcp-go's CallTool cannot take the task a server answers with (it
// wants content), so the request goes through the client's transport, as the raw
// tools/list does (toollist.go); tasks/result and tasks/cancel are mcp-go's own.
func (s *Server) callTask(ctx, cctx context.Context, c *conn, req mcp.CallToolRequest, safeRepeat bool) (*mcp.CallToolResult, error) {
	tool := req.Params.Name
	// The wait's timer exists before the task does, so a task that can be seen can
	// also be timed out by the clock.
	var expired <-chan struct{}
	if end := taskWaitEnd(ctx); !end.IsZero() {
		ch, timer := after(s.d.clock, end.Sub(s.d.clock.Now()))
		defer timer.Stop()
		expired = ch
	}
	params := req.Params
	params.Task = &mcp.TaskParams{}
	resp, err := c.sess.Request(cctx, string(mcp.MethodToolsCall), params)
	if err != nil {
		return nil, s.taskCreateErr(ctx, cctx, tool, err, safeRepeat)
	}
	if resp.Error != nil {
		return nil, s.errorf(KindCall, resp.Error.AsError(), "%s failed: %v", tool, resp.Error.AsError())
	}
	var created createTaskResult
	if err := json.Unmarshal(resp.Result, &created); err != nil || created.Task == nil || created.Task.TaskId == "" {
		// The server ran the tool at once after all.
		raw := json.RawMessage(resp.Result)
		res, perr := mcp.ParseCallToolResult(&raw)
		if perr != nil {
			return nil, s.errorf(KindCall, perr, "%s: the server's answer is neither a result nor a task: %v", tool, perr)
		}
		return res, nil
	}
	t, err := s.startTask(c, tool, created.Task)
	if err != nil {
		return nil, err
	}
	return s.d.x.waitTask(ctx, t, expired, created.Task)
}

// taskCreateErr explains a task-augmented tools/call that got no answer. If the server
// created the task anyway, its id never reached us, so the task cannot be fetched.
func (s *Server) taskCreateErr(ctx, cctx context.Context, tool string, err error, safeRepeat bool) error {
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return s.errorf(KindTimeout, err, "%s did not even start as a task before the host's deadline%s", tool, repeatWarning(safeRepeat))
	case ctx.Err() != nil:
		return s.errorf(KindCanceled, err, "call to %s cancelled", tool)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return s.errorf(KindTimeout, err, "%s did not start as a task within requestTimeout (%s)%s", tool, s.cfg.RequestTimeout, repeatWarning(safeRepeat))
	case errors.Is(err, transport.ErrTransportClosed):
		return s.errorf(KindStopped, err, "connection closed during the call to %s (server stopped)%s", tool, repeatWarning(safeRepeat))
	}
	return s.errorf(KindCall, err, "%s failed: %v", tool, err)
}

// startTask puts the task on the board and starts fetching its result. The fetch keeps
// the server awake (one more in-flight use) until the result is in, or until the task's
// time to live has passed (the server may then have deleted it).
func (s *Server) startTask(c *conn, tool string, task *mcp.Task) (*runningTask, error) {
	id := task.TaskId
	ac, err := s.acquire(context.Background())
	if err != nil {
		return nil, err
	}
	if ac != c {
		s.release()
		return nil, s.errorf(KindStopped, nil, "the server restarted while %s started as task %s; the task is lost", tool, id)
	}
	fctx, stop := context.WithCancel(context.Background())
	t := &runningTask{server: s.cfg.Name, tool: tool, id: id, started: s.d.clock.Now(), conn: c, log: s.d.log, stop: stop, done: make(chan struct{})}
	if task.TTL != nil && *task.TTL > 0 && *task.TTL < int64(math.MaxInt64/time.Millisecond) {
		timer := s.d.clock.AfterFunc(time.Duration(*task.TTL)*time.Millisecond, stop)
		context.AfterFunc(fctx, func() { timer.Stop() })
	}
	s.d.x.tasks.add(t)
	go s.fetchTask(fctx, t)
	return t, nil
}

// fetchTask asks tasks/result once; the server answers when the task has ended.
func (s *Server) fetchTask(ctx context.Context, t *runningTask) {
	defer s.release()
	defer t.stop()
	r, err := t.conn.sess.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: t.id}})
	if err != nil {
		t.err = s.errorf(KindCall, err, "task %s of %s ended without a result: %v", t.id, t.tool, err)
	} else {
		t.res = &mcp.CallToolResult{Content: r.Content, StructuredContent: r.StructuredContent, IsError: r.IsError}
	}
	close(t.done)
}

// waitTask waits for t's result until expired fires or ctx ends. A result is handed over
// once (the task then leaves the board). When time runs out, the result says the task is
// still running and how to fetch it; when the call is cancelled (the host's tool_cancel),
// the task is cancelled with tasks/cancel.
func (x *mcpx) waitTask(ctx context.Context, t *runningTask, expired <-chan struct{}, last *mcp.Task) (*mcp.CallToolResult, error) {
	t.waiting.Add(1)
	defer t.waiting.Add(-1)
	select {
	case <-t.done:
		x.tasks.remove(t)
		return t.res, t.err
	case <-expired:
		return stillRunning(t, last), nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return stillRunning(t, last), nil
		}
		if errors.Is(context.Cause(ctx), extension.ErrShutdown) {
			// Stopping the server ends its tasks; a tasks/cancel here could only
			// delay the shutdown past the host's grace period.
			return nil, &Error{Kind: KindCanceled, Msg: fmt.Sprintf("call to %s ended by shutdown", t.tool), Err: ctx.Err()}
		}
		x.cancelTask(ctx, t)
		return nil, &Error{Kind: KindCanceled, Msg: fmt.Sprintf("call to %s cancelled; task %s was cancelled on the server", t.tool, t.id), Err: ctx.Err()}
	}
}

// cancelTask sends tasks/cancel for t, then forgets it.
func (x *mcpx) cancelTask(ctx context.Context, t *runningTask) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), taskCancelTimeout)
	defer cancel()
	err := t.conn.sess.CancelTask(cctx, mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: t.id}})
	t.stop()
	x.tasks.remove(t)
	if err != nil {
		t.log.Warn().Str("server", t.server).Str("task", t.id).Err(err).Msg("tasks/cancel failed")
	}
}

// stillRunning is the result of a call that ran out of time while its task works on.
func stillRunning(t *runningTask, last *mcp.Task) *mcp.CallToolResult {
	status := ""
	if last != nil && last.StatusMessage != "" {
		status = " (" + last.StatusMessage + ")"
	}
	args, _ := json.Marshal(map[string]string{"server": t.server, "task": t.id})
	text := fmt.Sprintf("MCP server %q is still running %s as task %s%s. Nothing is lost: get the result with %s %s; it waits up to the call's time limit and can be called again while the task runs.",
		t.server, t.tool, t.id, status, TaskResultToolName, args)
	return &mcp.CallToolResult{
		Result:  mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{stillRunningKey: t.id}}},
		Content: []mcp.Content{mcp.TextContent{Type: "text", Text: text}},
	}
}

// stillRunningKey marks, in a result's _meta, a result made by stillRunning (the bridge's
// own; a server that sets it only makes mcp__task_result visible).
const stillRunningKey = "mcp-bridge/still-running"

// withTaskHint activates mcp__task_result beside a "still running" result, so a model on
// a host with deferred tools can call it.
func withTaskHint(res *mcp.CallToolResult, out extension.ToolResult) extension.ToolResult {
	if res == nil || res.Meta == nil || res.Meta.AdditionalFields[stillRunningKey] == nil {
		return out
	}
	out.ActivateTools = append(out.ActivateTools, TaskResultToolName)
	return out
}

// registerTaskResult registers mcp__task_result like mcp__read_resource: deferred where
// tools are (a "still running" result activates it), directly elsewhere.
func (b *Bridge) registerTaskResult(r *extension.Registrations) error {
	if len(b.names) == 0 {
		return nil
	}
	return r.AddTool(extension.Tool{Name: TaskResultToolName, Description: taskResultDescription,
		Schema: taskResultSchema, Deferred: b.mode == ModeDeferred})
}

type taskResultArgs struct {
	Server string `json:"server"`
	Task   string `json:"task"`
}

// taskResultTool answers mcp__task_result: the task's result, or "still running" once the
// call's budget is spent.
func (b *Bridge) taskResultTool(ctx context.Context, raw json.RawMessage) extension.ToolResult {
	var a taskResultArgs
	if err := decodeArgs(raw, &a); err != nil {
		return ErrorResult("%s: invalid arguments: %v. Expected {\"server\": \"name\", \"task\": \"id\"}.", TaskResultToolName, err)
	}
	a.Server, a.Task = strings.TrimSpace(a.Server), strings.TrimSpace(a.Task)
	if a.Server == "" || a.Task == "" {
		return ErrorResult("%s: both server and task are required, as the still-running call result gave them.", TaskResultToolName)
	}
	if _, ok := b.servers[a.Server]; !ok {
		return ErrorResult("%s: unknown MCP server %q.%s Servers: %s", TaskResultToolName, a.Server, suggest(a.Server, b.names), b.serverList())
	}
	t := b.x.tasks.get(a.Server, a.Task)
	if t == nil {
		return ErrorResult("%s: MCP server %q has no task %q in this session: its result was already returned, it was cancelled, or the bridge restarted since (a restart loses running tasks). Call the tool again if you still need its result.", TaskResultToolName, a.Server, a.Task)
	}
	ctx, cancel := context.WithTimeout(ctx, b.opts.CallBudget)
	defer cancel()
	expired, timer := after(b.opts.Clock, b.opts.CallBudget-elicitMargin)
	defer timer.Stop()
	res, err := b.x.waitTask(ctx, t, expired, nil)
	if err != nil {
		var be *Error
		if errors.As(err, &be) {
			return ErrorResult("%s", be.Msg)
		}
		return ErrorResult("MCP server %q: %v", a.Server, err)
	}
	return withTaskHint(res, ConvertResult(res, DefaultBudget))
}

// tasksText is the /mcp <server> section listing its tasks ("" when there are none).
func (b *Bridge) tasksText(server string) string {
	tasks := b.x.tasks.list(server)
	if len(tasks) == 0 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Tasks (%d; fetch with %s):\n", len(tasks), TaskResultToolName)
	now := b.opts.Clock.Now()
	for _, t := range tasks {
		state := "running"
		if t.ended() {
			state = "ended, result not fetched yet"
		}
		fmt.Fprintf(&sb, "  %s  %s  %s, started %s ago\n", t.id, t.tool, state, now.Sub(t.started).Round(time.Second))
	}
	return sb.String()
}
