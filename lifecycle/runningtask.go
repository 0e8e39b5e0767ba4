package lifecycle

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/session"
)

// A task-augmented call's task, as the state machine starts and follows it and the host's
// board (package tasks) keeps it until its result is fetched.

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

// Ended reports whether the task's result (or failure) is in.
func (t *Task) Ended() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}
