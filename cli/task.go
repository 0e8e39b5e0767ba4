package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/zot-mcp/mcp-bridge/tasks"
	"io"
	"os"
	"slices"
	"time"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/plainjson"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
)

// defaultPollInterval is how often a task's status is asked for when the server names no
// interval.
const defaultPollInterval = time.Second

// exitInterrupted is the exit status after Ctrl-C (128 + SIGINT, as shells report it).
const exitInterrupted = 130

// taskCall is one `mcp-bridge call`: a plain call prints its result; a tool the server
// runs as a task is waited for until its result is in, however long that takes.
type taskCall struct {
	b      *bridge.Bridge
	clock  clock.Clock // the bridge's: the status polls run on it
	noWait bool        // print the task's id instead of waiting
	status bool        // show the task's status lines (stderr is a terminal)
	stdout io.Writer
	stderr io.Writer
	// relogin, when set, says whether a result means the call needs an OAuth login first
	// (the server asked for one, or for more scopes): run then keeps the result in held
	// instead of printing it, and returns exitRelogin.
	relogin func(extension.ToolResult) bool
	held    extension.ToolResult
}

// exitRelogin is run's answer when the call is to be made again after a login.
const exitRelogin = -1

// run calls server's tool with args and prints the result. When the call starts a task
// it waits for the task's result: each wait the bridge does lasts at most a call's budget,
// so it asks again (mcp__task_result) while the answer says the task still runs. On a
// terminal it shows the task's status, asked for at the server's poll interval. When ctx
// ends (Ctrl-C) the wait in flight cancels the task on the server (tasks/cancel) and the
// exit status is non-zero.
func (c *taskCall) run(ctx context.Context, server, tool string, args json.RawMessage) int {
	started := make(chan bridge.StartedTask, 1)
	c.b.OnTask(func(t bridge.StartedTask) {
		select {
		case started <- t:
		default: // one call, one task
		}
	})
	results := make(chan extension.ToolResult, 1)
	go func() { results <- c.b.CallByName(ctx, server, tool, args) }()
	var task *bridge.StartedTask
	var poll <-chan struct{}
	var pollTimer clock.Timer
	defer func() {
		if pollTimer != nil {
			pollTimer.Stop()
		}
	}()
	lastStatus := ""
	for {
		select {
		case r := <-results:
			if task != nil && ctx.Err() == nil && slices.Contains(r.ActivateTools, tasks.TaskResultToolName) {
				// The wait ran out of the call's budget; the task works on.
				go func() {
					results <- c.b.CallTool(ctx, extension.ToolCall{Name: tasks.TaskResultToolName, Args: taskArgs(*task)})
				}()
				continue
			}
			if ctx.Err() != nil {
				printResult(r, c.stderr)
				return exitInterrupted
			}
			if c.relogin != nil && c.relogin(r) {
				c.held = r
				return exitRelogin
			}
			return printResult(r, c.stdout)
		case t := <-started:
			task = &t
			if c.noWait {
				fmt.Fprintln(c.stdout, forTerminal(c.stdout, t.ID))
				fmt.Fprintf(c.stderr, "%s runs as task %s on MCP server %q; not waiting for it (--no-wait).\n", t.Tool, forTerminal(c.stderr, t.ID), t.Server)
				return 0
			}
			if c.status {
				fmt.Fprintf(c.stderr, "%s runs as task %s on MCP server %q; waiting for its result (Ctrl-C cancels it).\n", t.Tool, safetext.Escape(t.ID), t.Server)
				now := make(chan struct{})
				close(now)
				poll = now
			}
		case <-poll:
			interval := defaultPollInterval
			st, err := task.Status(ctx)
			if err == nil {
				line := string(st.Status)
				if st.StatusMessage != "" {
					line += ": " + st.StatusMessage
				}
				if line != lastStatus {
					// Status lines are shown on a terminal only (c.status).
					fmt.Fprintf(c.stderr, "task %s: %s\n", safetext.Escape(task.ID), safetext.Escape(line))
					lastStatus = line
				}
				if st.PollInterval != nil && *st.PollInterval > 0 {
					interval = time.Duration(*st.PollInterval) * time.Millisecond
				}
			}
			poll, pollTimer = clock.After(c.clock, interval)
		}
	}
}

// taskArgs are mcp__task_result's arguments for t.
func taskArgs(t bridge.StartedTask) json.RawMessage {
	raw, _ := plainjson.Marshal(map[string]string{"server": t.Server, "task": t.ID})
	return raw
}

// isTerminalWriter says whether w is a terminal (status lines are for a person watching).
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}
