package bridge

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// The command line's hooks for tasks. `mcp-bridge call` has no host deadline: it learns
// of the task its call started (OnTask), shows the task's status (StartedTask.Status),
// and waits for the result with mcp__task_result as often as the call's budget makes a
// wait return "still running"; Ctrl-C ends the wait's context, which cancels the task.

// StartedTask is a task a call started.
type StartedTask struct {
	Server, Tool, ID string
	t                *lifecycle.Task
}

// OnTask has f told of every task a call starts, as soon as the server created it. Set
// it before calls run: the CLI's call sets it once.
func (b *Bridge) OnTask(f func(StartedTask)) {
	b.deps.Host = taskHost{Host: b.deps.Host, started: f}
}

// taskHost is the bridge's lifecycle.Host, telling OnTask's f of every task.
type taskHost struct {
	lifecycle.Host
	started func(StartedTask)
}

func (h taskHost) AddTask(t *lifecycle.Task) {
	h.Host.AddTask(t)
	h.started(StartedTask{Server: t.Server, Tool: t.Tool, ID: t.ID, t: t})
}

// Status asks the server for the task's status (tasks/get): its state, message and the
// poll interval it wants.
func (t StartedTask) Status(ctx context.Context) (*mcp.GetTaskResult, error) {
	if st, ok := t.t.Status(); ok {
		// The tasks extension: the bridge polls the task already; its last answer is
		// the status.
		return &mcp.GetTaskResult{Task: st}, nil
	}
	c, ok := t.t.Sess.(interface{ MCP() *client.Client })
	if !ok {
		return nil, errors.New("this connection cannot ask for a task's status")
	}
	return c.MCP().GetTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: t.ID}})
}

// Done is closed once the task's result (or failure) is in.
func (t StartedTask) Done() <-chan struct{} { return t.t.Done() }
