package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
)

// The tasks extension of 2026-07-28 (SEP-2663). The server decides per call whether a
// tools/call becomes a task (resultType "task"), so on a connection that speaks the
// extension every call is sent ready for one. A task is polled with tasks/get at the
// interval the server asks for; a task that waits for input is answered with
// tasks/update, from the same Inputs as a result's input (session.Inputs); tasks/cancel
// cancels it. On the board, to the host and to the CLI, such a task is the same as a
// 2025-11-25 one.

// Poll intervals: the default when the server names none, and the bounds of what it asks.
const (
	defaultTaskPoll = time.Second
	minTaskPoll     = 100 * time.Millisecond
	maxTaskPoll     = 30 * time.Second
	// taskCancelTimeout bounds the tasks/cancel of a task whose input cannot be given.
	taskCancelTimeout = 5 * time.Second
)

// extTask is a task as the extension shapes it (CreateTaskResult, the tasks/get result).
type extTask struct {
	TaskID         string          `json:"taskId"`
	Status         mcp.TaskStatus  `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          *int64          `json:"ttlMs"`
	PollIntervalMs *int64          `json:"pollIntervalMs,omitempty"`
	InputRequests  json.RawMessage `json:"inputRequests,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          json.RawMessage `json:"error,omitempty"`
}

// mcpTask is t in mcp-go's shape, for the board and the CLI's status lines.
func (t *extTask) mcpTask() mcp.Task {
	return mcp.Task{TaskId: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTLMs, PollInterval: t.PollIntervalMs}
}

// pollEvery is the wait before the next tasks/get.
func (t *extTask) pollEvery() time.Duration {
	if t.PollIntervalMs == nil || *t.PollIntervalMs <= 0 || *t.PollIntervalMs > maxTaskPoll.Milliseconds() {
		if t.PollIntervalMs != nil && *t.PollIntervalMs > maxTaskPoll.Milliseconds() {
			return maxTaskPoll
		}
		return defaultTaskPoll
	}
	return max(time.Duration(*t.PollIntervalMs)*time.Millisecond, minTaskPoll)
}

// callExtTask runs req on c, which speaks the extension, and waits for the task it may
// become until the call's budget ends (as callTask does for a 2025-11-25 task).
func (s *Server) callExtTask(ctx, cctx context.Context, c *conn, req mcp.CallToolRequest, safeRepeat bool) (*mcp.CallToolResult, error) {
	tool := req.Params.Name
	expired, stop := s.waitTimer(ctx)
	defer stop()
	resp, err := s.sendTaskCall(cctx, c, req.Params, true)
	if err != nil {
		s.retireIfEnded(c, err)
		return nil, s.callErr(ctx, cctx, tool, safeRepeat, err)
	}
	if resp.Error != nil {
		return nil, s.Errorf(session.KindCall, resp.Error.AsError(), "%s failed: %v", tool, resp.Error.AsError())
	}
	var head struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(resp.Result, &head)
	if head.ResultType != session.ResultTask {
		raw := json.RawMessage(resp.Result)
		res, perr := mcp.ParseCallToolResult(&raw)
		if perr != nil {
			return nil, s.Errorf(session.KindCall, perr, "%s: the server's answer is neither a result nor a task: %v", tool, perr)
		}
		return res, nil
	}
	var created extTask
	if err := json.Unmarshal(resp.Result, &created); err != nil || created.TaskID == "" {
		return nil, s.Errorf(session.KindCall, err, "%s: the server answered with a task without an id; its result cannot be fetched", tool)
	}
	t, err := s.startExtTask(c, tool, &created, s.callMeta(ctx))
	if err != nil {
		return nil, err
	}
	last := created.mcpTask()
	return s.d.Host.WaitTask(ctx, t, expired, &last)
}

// startExtTask puts the task on the board and starts polling it, keeping the server
// awake until the task ends or its time to live has passed.
func (s *Server) startExtTask(c *conn, tool string, task *extTask, progress *mcp.Meta) (*Task, error) {
	ac, err := s.acquire(context.Background())
	if err != nil {
		return nil, err
	}
	if ac != c {
		s.release()
		return nil, s.Errorf(KindStopped, nil, "the server restarted while %s started as task %s; the task is lost", tool, task.TaskID)
	}
	fctx, stop := context.WithCancel(context.Background())
	// A task without a time to live is polled for as long as a person may wait.
	live := InteractiveBudget
	if task.TTLMs != nil && *task.TTLMs > 0 && *task.TTLMs < int64(math.MaxInt64/time.Millisecond) {
		live = min(live, time.Duration(*task.TTLMs)*time.Millisecond)
	}
	timer := s.d.Clock.AfterFunc(live, stop)
	context.AfterFunc(fctx, func() { timer.Stop() })
	t := NewTask(s.cfg.Name, tool, task.TaskID, s.d.Clock.Now(), c.sess, s.d.Log, stop)
	sess, id := c.sess, task.TaskID
	t.CancelFn = func(ctx context.Context) error {
		resp, err := sess.Request(ctx, string(mcp.MethodTasksCancel), map[string]any{"taskId": id})
		if err == nil && resp.Error != nil {
			err = resp.Error.AsError()
		}
		return err
	}
	t.SetStatus(task.mcpTask())
	s.d.Host.AddTask(t)
	go s.pollExtTask(fctx, t, c, *task, progress)
	return t, nil
}

// pollExtTask follows the task until it ends: tasks/get at the server's interval, its
// questions answered once each (tasks/update), its status message shown as the call's
// progress.
func (s *Server) pollExtTask(ctx context.Context, t *Task, c *conn, cur extTask, progress *mcp.Meta) {
	defer s.release()
	defer t.Stop()
	in := s.inputs()
	answered := map[string]bool{}
	rounds := 0
	shown := ""
	for {
		t.SetStatus(cur.mcpTask())
		if progress != nil && cur.StatusMessage != "" && cur.StatusMessage != shown && s.d.Host != nil {
			shown = cur.StatusMessage
			s.d.Host.Progress(s.cfg.Name, mcp.ProgressNotificationParams{ProgressToken: progress.ProgressToken, Message: cur.StatusMessage})
		}
		switch cur.Status {
		case mcp.TaskStatusCompleted:
			raw := cur.Result
			res, err := mcp.ParseCallToolResult(&raw)
			if err != nil {
				t.Finish(nil, s.Errorf(session.KindCall, err, "task %s of %s ended with a result that cannot be read: %v", t.ID, t.Tool, err))
			} else {
				t.Finish(res, nil)
			}
			return
		case mcp.TaskStatusFailed:
			t.Finish(nil, s.Errorf(session.KindCall, nil, "task %s of %s failed: %s", t.ID, t.Tool, taskFailure(&cur)))
			return
		case mcp.TaskStatusCancelled:
			t.Finish(nil, s.Errorf(session.KindCall, nil, "task %s of %s was cancelled by the server%s", t.ID, t.Tool, suffix(cur.StatusMessage)))
			return
		case mcp.TaskStatusInputRequired:
			if err := s.answerTask(ctx, c, t, &cur, in, answered, &rounds); err != nil {
				t.Finish(nil, err)
				return
			}
		default:
			// The answers were taken: a later round of questions may reuse their keys.
			clear(answered)
		}
		wait, timer := clock.After(s.d.Clock, cur.pollEvery())
		select {
		case <-ctx.Done():
			timer.Stop()
			t.Finish(nil, s.Errorf(session.KindCall, ctx.Err(), "task %s of %s ended without a result: it was cancelled, the server stopped, or its time to live passed", t.ID, t.Tool))
			return
		case <-wait:
		}
		next, err := s.getExtTask(ctx, c, t.ID)
		if err != nil {
			t.Finish(nil, s.Errorf(session.KindCall, err, "task %s of %s ended without a result: %v", t.ID, t.Tool, err))
			return
		}
		cur = *next
	}
}

// answerTask answers the task's requests that were not answered yet (a poll repeats the
// outstanding ones) with tasks/update. A task that keeps asking is cancelled after
// session.MaxInputRounds rounds, as is one whose input cannot be given.
func (s *Server) answerTask(ctx context.Context, c *conn, t *Task, cur *extTask, in session.Inputs, answered map[string]bool, rounds *int) error {
	var reqs map[string]json.RawMessage
	if err := json.Unmarshal(cur.InputRequests, &reqs); err != nil {
		reqs = nil
	}
	fresh := map[string]json.RawMessage{}
	for k, r := range reqs {
		if !answered[k] {
			fresh[k] = r
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	fail := func(err error) error {
		// Best effort: the task cannot go on without its input.
		cctx, cancel := clock.WithTimeout(context.WithoutCancel(ctx), s.d.Clock, taskCancelTimeout)
		defer cancel()
		_ = t.CancelFn(cctx)
		return s.Errorf(session.KindCall, err, "task %s of %s was cancelled: %v", t.ID, t.Tool, err)
	}
	if *rounds++; *rounds > session.MaxInputRounds {
		return fail(&session.InputError{Kind: session.InputEndless, Method: string(mcp.MethodToolsCall), N: session.MaxInputRounds})
	}
	raw, _ := json.Marshal(fresh)
	answers, err := in.Answer(ctx, raw)
	if err != nil {
		return fail(err)
	}
	resp, err := c.sess.Request(ctx, "tasks/update", map[string]any{"taskId": t.ID, "inputResponses": answers})
	if err == nil && resp.Error != nil {
		err = resp.Error.AsError()
	}
	if err != nil {
		return s.Errorf(session.KindCall, err, "task %s of %s: the server did not take the answers to its questions: %v", t.ID, t.Tool, err)
	}
	for k := range fresh {
		answered[k] = true
	}
	return nil
}

// getExtTask asks for the task's status.
func (s *Server) getExtTask(ctx context.Context, c *conn, id string) (*extTask, error) {
	resp, err := c.sess.Request(ctx, string(mcp.MethodTasksGet), map[string]any{"taskId": id})
	if err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	var t extTask
	if err := json.Unmarshal(resp.Result, &t); err != nil {
		return nil, fmt.Errorf("the task's status cannot be read: %w", err)
	}
	if t.TaskID != "" && t.TaskID != id {
		return nil, fmt.Errorf("the server answered with the status of another task (%q)", t.TaskID)
	}
	return &t, nil
}

// taskFailure is what a failed task says of its error.
func taskFailure(t *extTask) string {
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(t.Error, &e) == nil && e.Message != "" {
		return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
	}
	if t.StatusMessage != "" {
		return t.StatusMessage
	}
	return "the server gave no reason"
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}
