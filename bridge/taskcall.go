package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/extras"
	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// The bridge's side of MCP tasks (the board is extras.Board): sending a task-augmented
// tools/call, fetching its result while the server is held awake, waiting for it within
// the call's budget, and mcp__task_result.

// TaskResultToolName is the bridge tool that waits for a task's result.
const TaskResultToolName = extras.TaskResultToolName

// taskBoard is the board of running tasks (mcpx.tasks).
type taskBoard = extras.Board

func newTaskBoard() *taskBoard { return extras.NewBoard() }

// tasksText is the /mcp <server> section listing its tasks ("" when there are none).
func (b *Bridge) tasksText(server string) string {
	return b.x.tasks.Text(server, b.opts.Clock.Now())
}

// taskAugmented reports whether a call to tool on c runs as a task: the server announced
// task-augmented tools/call and the tool's listing allows it.
func (s *Server) taskAugmented(c *conn, tool string) bool {
	if s.d.host == nil {
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
	if end := extras.WaitEnd(ctx, elicitMargin); !end.IsZero() {
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
	return s.d.host.waitTask(ctx, t, expired, created.Task)
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
func (s *Server) startTask(c *conn, tool string, task *mcp.Task) (*extras.Task, error) {
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
	t := extras.NewTask(s.cfg.Name, tool, id, s.d.clock.Now(), c.sess, s.d.log, stop)
	if task.TTL != nil && *task.TTL > 0 && *task.TTL < int64(math.MaxInt64/time.Millisecond) {
		timer := s.d.clock.AfterFunc(time.Duration(*task.TTL)*time.Millisecond, stop)
		context.AfterFunc(fctx, func() { timer.Stop() })
	}
	s.d.host.addTask(t)
	go s.fetchTask(fctx, t)
	return t, nil
}

// fetchTask asks tasks/result once; the server answers when the task has ended.
func (s *Server) fetchTask(ctx context.Context, t *extras.Task) {
	defer s.release()
	defer t.Stop()
	r, err := t.Sess.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: t.ID}})
	if err != nil {
		t.Finish(nil, s.errorf(KindCall, err, "task %s of %s ended without a result: %v", t.ID, t.Tool, err))
	} else {
		t.Finish(&mcp.CallToolResult{Content: r.Content, StructuredContent: r.StructuredContent, IsError: r.IsError}, nil)
	}
}

// waitTask waits for t's result until expired fires or ctx ends. A result is handed over
// once (the task then leaves the board). When time runs out, the result says the task is
// still running and how to fetch it; when the call is cancelled (the host's tool_cancel),
// the task is cancelled with tasks/cancel.
func (x *mcpx) waitTask(ctx context.Context, t *extras.Task, expired <-chan struct{}, last *mcp.Task) (*mcp.CallToolResult, error) {
	t.Waiting.Add(1)
	defer t.Waiting.Add(-1)
	select {
	case <-t.Done():
		x.tasks.Remove(t)
		return t.Result()
	case <-expired:
		return extras.StillRunning(t, last), nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return extras.StillRunning(t, last), nil
		}
		if errors.Is(context.Cause(ctx), extension.ErrShutdown) {
			// Stopping the server ends its tasks; a tasks/cancel here could only
			// delay the shutdown past the host's grace period.
			return nil, &Error{Kind: KindCanceled, Msg: fmt.Sprintf("call to %s ended by shutdown", t.Tool), Err: ctx.Err()}
		}
		x.tasks.Cancel(ctx, t)
		return nil, &Error{Kind: KindCanceled, Msg: fmt.Sprintf("call to %s cancelled; task %s was cancelled on the server", t.Tool, t.ID), Err: ctx.Err()}
	}
}

// registerTaskResult registers mcp__task_result like mcp__read_resource: deferred where
// tools are (a "still running" result activates it), directly elsewhere.
func (b *Bridge) registerTaskResult(r *extension.Registrations) error {
	if len(b.names) == 0 {
		return nil
	}
	return r.AddTool(extension.Tool{Name: TaskResultToolName, Description: extras.TaskResultDescription,
		Schema: extras.TaskResultSchema, Deferred: b.mode == ModeDeferred})
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
	t := b.x.tasks.Get(a.Server, a.Task)
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
	return extras.WithHint(res, toolresult.Convert(res, toolresult.DefaultBudget))
}
