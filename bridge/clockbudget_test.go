package bridge

import (
	"context"
	"encoding/json"
	"github.com/zot-mcp/mcp-bridge/resources"
	"github.com/zot-mcp/mcp-bridge/tasks"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// budgetBridge is an in-process bridge whose call budget is one nanosecond of the fake
// clock, which the test never advances: a budget read on the wall clock has run out
// before the request is sent, one on the injected clock never does.
func budgetBridge(t *testing.T, e *inprocEnv) *Bridge {
	return loadBridge(t, Options{ZotHome: e.home, LookupEnv: func(string) (string, bool) { return "", false }, Clock: e.clock,
		Log: zerolog.New(testutil.Log(t)), Resolver: noDNS(), Connect: e.servers.Connect, CallBudget: time.Nanosecond},
		t.TempDir(), extension.GenNew)
}

// TestRequestBudgetsOnInjectedClock: mcp__read_resource and mcp__task_result bound their
// wait by the call budget on the injected clock, as a tool call does, not by a wall-clock
// context beside it: with the fake clock standing still, the resource is read and the
// task's result is returned however much wall time passes.
func TestRequestBudgetsOnInjectedClock(t *testing.T) {
	t.Parallel()
	t.Run("read resource", func(t *testing.T) {
		t.Parallel()
		e := newInprocEnv(t, map[string]map[string]any{"srv": nil})
		e.servers["srv"].SetResource("note://a", "the note")
		b := budgetBridge(t, e)
		args, _ := json.Marshal(map[string]string{"server": "srv", "uri": "note://a"})
		r := b.CallTool(context.Background(), extension.ToolCall{Name: resources.ReadResourceToolName, Args: args})
		if r.IsError || !strings.Contains(textOf(t, r), "the note") {
			t.Fatalf("read within the fake clock's budget: %+v", r)
		}
	})
	t.Run("task result", func(t *testing.T) {
		t.Parallel()
		e := newInprocEnv(t, map[string]map[string]any{"srv": nil})
		b := budgetBridge(t, e)
		task := lifecycle.NewTask("srv", "slow", "task-1", e.clock.Now(), nil, zerolog.Nop(), func() {})
		b.x.tasks.Add(task)
		args, _ := json.Marshal(map[string]string{"server": "srv", "task": "task-1"})
		ch := make(chan extension.ToolResult, 1)
		go func() {
			ch <- b.CallTool(context.Background(), extension.ToolCall{Name: tasks.TaskResultToolName, Args: args})
		}()
		guarded := ctxGuard(t)
		for task.Waiting.Load() == 0 {
			select {
			case r := <-ch:
				t.Fatalf("the wait ended before the task did: %+v", r)
			case <-guarded.Done():
				t.Fatal("the call never waited for the task")
			case <-time.After(5 * time.Millisecond):
			}
		}
		task.Finish(&mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent{Type: "text", Text: "done"}}}, nil)
		if r := <-ch; r.IsError || textOf(t, r) != "done" {
			t.Fatalf("the wait should end with the result, not run out on the wall clock: %+v", r)
		}
	})
}

// TestCommandContextOnInjectedClock: a command's own I/O (a config edit, a logout) is
// bounded by the command wait on the injected clock.
func TestCommandContextOnInjectedClock(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"srv": nil})
	b := e.bridge()
	ctx, cancel := cmdHost{b}.CommandContext(context.Background())
	defer cancel()
	if err := ctx.Err(); err != nil {
		t.Fatalf("the command context ended before the clock moved: %v", err)
	}
	if err := e.clock.AdvanceWhenSet(ctxGuard(t), commandBudget); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	default:
		t.Fatal("the command context is still open after the command wait passed on the clock")
	}
}
