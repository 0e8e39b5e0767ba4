package serve

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A client may run any served call as a task (2025-11-25 tasks): mcp-go creates the
// task, answers tasks/get, tasks/result and tasks/list, and runs the tool's handler in
// the background. It runs it under a context derived from the request's, which
// HandleMessage cancels as soon as it has answered the request with the created task: a
// handler that honours its context ends every task at once. This file is the one place
// that works around it. A task's call ignores that context and ends on the task's own
// cancellation instead, which mcp-go reports through its task hooks by task id; the hooks
// that see the task created and the request that carries its params run on the same
// request context, which ties the two.

// taskBoard links mcp-go's tasks to the calls they run. Safe for concurrent use.
type taskBoard struct {
	mu sync.Mutex
	// pending are the task params of requests whose task is being created, by the
	// request's context.
	pending map[context.Context]*mcp.TaskParams
	// ids are the task ids of the params, once created.
	ids map[*mcp.TaskParams]string
	// cancelled are closed when their task is cancelled (tasks/cancel, its TTL).
	cancelled map[string]chan struct{}
}

func newTaskBoard() *taskBoard {
	return &taskBoard{pending: map[context.Context]*mcp.TaskParams{}, ids: map[*mcp.TaskParams]string{},
		cancelled: map[string]chan struct{}{}}
}

// hooks installs the board's hooks on the MCP server's options.
func (tb *taskBoard) hooks() []server.ServerOption {
	h := &server.Hooks{}
	h.AddBeforeCallTool(func(ctx context.Context, _ any, req *mcp.CallToolRequest) {
		if req.Params.Task == nil {
			return
		}
		tb.mu.Lock()
		tb.pending[ctx] = req.Params.Task
		tb.mu.Unlock()
	})
	forget := func(ctx context.Context) {
		tb.mu.Lock()
		delete(tb.pending, ctx)
		tb.mu.Unlock()
	}
	h.AddAfterCallTool(func(ctx context.Context, _ any, _ *mcp.CallToolRequest, _ any) { forget(ctx) })
	h.AddOnError(func(ctx context.Context, _ any, method mcp.MCPMethod, _ any, _ error) {
		if method == mcp.MethodToolsCall {
			forget(ctx)
		}
	})
	th := &server.TaskHooks{}
	th.AddOnTaskCreated(func(ctx context.Context, m server.TaskMetrics) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		if p := tb.pending[ctx]; p != nil {
			tb.ids[p] = m.TaskID
			tb.cancelled[m.TaskID] = make(chan struct{})
			delete(tb.pending, ctx)
		}
	})
	th.AddOnTaskCancelled(func(_ context.Context, m server.TaskMetrics) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		// Closed, not forgotten: a call that reaches clientContext only now must still
		// see it (its done forgets it).
		if ch, ok := tb.cancelled[m.TaskID]; ok {
			select {
			case <-ch:
			default:
				close(ch)
			}
		}
	})
	return []server.ServerOption{server.WithHooks(h), server.WithTaskHooks(th)}
}

// clientContext is the context a call answers: for a call run as a task, one that ends
// with the task's cancellation (and keeps the request's values: its session asks the
// task's questions); otherwise ctx. done releases the task's entries.
func (tb *taskBoard) clientContext(ctx context.Context, req mcp.CallToolRequest) (_ context.Context, done func()) {
	if req.Params.Task == nil {
		return ctx, func() {}
	}
	tb.mu.Lock()
	id, ok := tb.ids[req.Params.Task]
	ch := tb.cancelled[id]
	tb.mu.Unlock()
	if !ok {
		return ctx, func() {}
	}
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
		case <-stop:
		}
	}()
	return tctx, func() {
		close(stop)
		cancel()
		tb.mu.Lock()
		delete(tb.ids, req.Params.Task)
		delete(tb.cancelled, id)
		tb.mu.Unlock()
	}
}
