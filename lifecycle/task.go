package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
)

// taskAugmented reports whether a call to tool on c runs as a task: the server announced
// task-augmented tools/call and the tool's listing allows it, or the connection speaks
// the tasks extension.
func (s *Server) taskAugmented(c *conn, tool string) bool {
	if s.d.Host == nil {
		return false
	}
	if c.sess.Info().Tasks {
		// The tasks extension: the server decides, call by call (taskext.go).
		return true
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

// waitTimer is the timer of a task call's wait, which ends when the call recorded
// (WithTaskWaitEnd; a nil channel: no budget). It exists before the task does, so a task
// that can be seen can also be timed out by the clock.
func (s *Server) waitTimer(ctx context.Context) (expired <-chan struct{}, stop func()) {
	end := taskWaitEnd(ctx)
	if end.IsZero() {
		return nil, func() {}
	}
	ch, timer := clock.After(s.d.Clock, end.Sub(s.d.Clock.Now()))
	return ch, func() { timer.Stop() }
}

// sendTaskCall sends a tools/call that may become a task on c, settled on the clock;
// accept marks it as one that takes the tasks extension's task result.
func (s *Server) sendTaskCall(cctx context.Context, c *conn, params any, accept bool) (*transport.JSONRPCResponse, error) {
	sctx, release := settled(cctx, s.d.Clock)
	defer release()
	if accept {
		sctx = session.AcceptTasks(sctx)
	}
	return c.sess.Request(sctx, string(mcp.MethodToolsCall), params)
}

// callTask runs req as a task-augmented tools/call on c and waits for its result until
// the call's budget ends. mcp-go's CallTool cannot take the task a server answers with (it
// wants content), so the request goes through the client's transport, as Request
// allows; tasks/result and tasks/cancel are mcp-go's own.
func (s *Server) callTask(ctx, cctx context.Context, c *conn, req mcp.CallToolRequest, safeRepeat bool) (*mcp.CallToolResult, error) {
	if c.sess.Info().Tasks {
		return s.callExtTask(ctx, cctx, c, req, safeRepeat)
	}
	tool := req.Params.Name
	expired, stop := s.waitTimer(ctx)
	defer stop()
	params := req.Params
	params.Task = &mcp.TaskParams{}
	resp, err := s.sendTaskCall(cctx, c, params, false)
	if err != nil {
		s.retireIfEnded(c, err)
		return nil, s.taskCreateErr(ctx, cctx, tool, err, safeRepeat)
	}
	if resp.Error != nil {
		return nil, s.Errorf(session.KindCall, resp.Error.AsError(), "%s failed: %v", tool, resp.Error.AsError())
	}
	var created createTaskResult
	if err := json.Unmarshal(resp.Result, &created); err != nil || created.Task == nil || created.Task.TaskId == "" {
		// The server ran the tool at once after all.
		raw := json.RawMessage(resp.Result)
		res, perr := mcp.ParseCallToolResult(&raw)
		if perr != nil {
			return nil, s.Errorf(session.KindCall, perr, "%s: the server's answer is neither a result nor a task: %v", tool, perr)
		}
		return res, nil
	}
	t, err := s.startTask(c, tool, created.Task)
	if err != nil {
		return nil, err
	}
	return s.d.Host.WaitTask(ctx, t, expired, created.Task)
}

// taskCreateErr explains a task-augmented tools/call that got no answer. If the server
// created the task anyway, its id never reached us, so the task cannot be fetched.
func (s *Server) taskCreateErr(ctx, cctx context.Context, tool string, err error, safeRepeat bool) error {
	var ended *session.EndedError
	switch {
	case errors.As(err, &ended):
		// As a plain call's (callErr): an exit brings its stderr and "the next call
		// starts it again", a lost transport that the next call reconnects.
		return s.endedErr(ended.End, err, tool, safeRepeat)
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return s.Errorf(session.KindTimeout, err, "%s did not even start as a task before the host's deadline%s", tool, repeatWarning(safeRepeat))
	case ctx.Err() != nil:
		return s.Errorf(session.KindCanceled, err, "call to %s cancelled", tool)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return s.Errorf(session.KindTimeout, err, "%s did not start as a task within requestTimeout (%s)%s", tool, s.cfg.RequestTimeout, repeatWarning(safeRepeat))
	}
	return s.Errorf(session.KindCall, err, "%s failed: %v", tool, err)
}

// startTask puts the task on the board and starts fetching its result. The fetch keeps
// the server awake (one more in-flight use) until the result is in, or until the task's
// time to live has passed (the server may then have deleted it).
func (s *Server) startTask(c *conn, tool string, task *mcp.Task) (*Task, error) {
	id := task.TaskId
	ac, err := s.acquire(context.Background())
	if err != nil {
		return nil, err
	}
	if ac != c {
		s.release()
		return nil, s.Errorf(KindStopped, nil, "the server restarted while %s started as task %s; the task is lost", tool, id)
	}
	fctx, stop := context.WithCancel(context.Background())
	t := NewTask(s.cfg.Name, tool, id, s.d.Clock.Now(), c.sess, s.d.Log, stop)
	if task.TTL != nil && *task.TTL > 0 && *task.TTL < int64(math.MaxInt64/time.Millisecond) {
		timer := s.d.Clock.AfterFunc(time.Duration(*task.TTL)*time.Millisecond, stop)
		context.AfterFunc(fctx, func() { timer.Stop() })
	}
	s.d.Host.AddTask(t)
	go s.fetchTask(fctx, t)
	return t, nil
}

// fetchTask asks tasks/result once; the server answers when the task has ended.
func (s *Server) fetchTask(ctx context.Context, t *Task) {
	defer s.release()
	defer t.Stop()
	r, err := t.Sess.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: t.ID}})
	if err != nil {
		t.Finish(nil, s.Errorf(session.KindCall, err, "task %s of %s ended without a result: %v", t.ID, t.Tool, err))
	} else {
		t.Finish(&mcp.CallToolResult{Content: r.Content, StructuredContent: r.StructuredContent, IsError: r.IsError}, nil)
	}
}
