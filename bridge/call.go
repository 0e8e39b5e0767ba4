package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zot-mcp/mcp-bridge/resources"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/tasks"
	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// CallTool routes one host tool call: the search tool, the proxy call tool, or an MCP tool
// by its registered name.
func (b *Bridge) CallTool(ctx context.Context, call extension.ToolCall) extension.ToolResult {
	switch call.Name {
	case SearchToolName:
		return b.searchWithResources(call.Args)
	case resources.ReadResourceToolName:
		return b.readResourceTool(ctx, call.Args, false)
	case tasks.TaskResultToolName:
		return b.taskResultTool(ctx, call.Args, false)
	case CallToolName:
		if r, ok := b.reservedCall(ctx, call.Args); ok {
			return r
		}
		e, args, bad := b.resolveProxyCall(call.Args)
		if bad != nil {
			return *bad
		}
		return b.callEntry(ctx, e, args)
	}
	cat := b.catalog()
	e, ok := cat.Lookup(call.Name)
	if !ok {
		if r, ok := b.pendingTool(call.Name); ok {
			return r
		}
		if r, ok := b.heldTool(call.Name); ok {
			return r
		}
		return b.unknownTool(call.Name)
	}
	return b.callEntry(ctx, e, call.Args)
}

func (b *Bridge) unknownTool(name string) extension.ToolResult {
	cat := b.catalog()
	cands := make([]string, 0, len(cat.Entries))
	for _, e := range cat.Entries {
		cands = append(cands, e.Name)
	}
	return toolresult.Error("Unknown MCP tool %q.%s Use %s to find the right tool.", name, textdist.Suggest(name, cands), SearchToolName)
}

// callEntry wakes the tool's server if needed, forwards the call under our deadline, and
// converts the result.
func (b *Bridge) callEntry(ctx context.Context, e *catalog.Tool, raw json.RawMessage) extension.ToolResult {
	args, err := objectArgs(raw)
	if err != nil {
		return toolresult.Error("%s: arguments must be a JSON object: %v", e.Name, err)
	}
	srv, ok := b.servers[e.Server]
	if !ok {
		return toolresult.Error("MCP server %q of tool %s is no longer configured; run /reload-ext.", e.Server, e.Name)
	}
	ctx, budget, done := b.callContext(ctx, e, nil)
	defer done()
	watch, unwatch := b.elicits.Watch(ctx, e.Server, b.opts.Clock.Now().Add(budget))
	defer unwatch()
	res, err := srv.Call(ctx, e.Tool.Name, args, catalog.SafeToRepeat(e.Tool.Annotations))
	if msg := watch.ExpiredText(e.Tool.Name); msg != "" {
		if !tasks.IsStillRunning(res) {
			return toolresult.Error("%s", msg)
		}
		// A task's question expires when its call stops waiting, at the same instant:
		// the task works on, so the answer must still name it and how to fetch its
		// result, or the model calls the tool again and the first task is lost.
		res.Content = append(res.Content, mcp.NewTextContent(msg))
	}
	if r, ok := b.urlRequired(e.Server, e.Tool.Name, err); ok {
		return r
	}
	if r, ok := b.interactiveTimeout(e.Server, e.Tool.Name, err); ok {
		return r
	}
	if err != nil {
		var be *lifecycle.Error
		if errors.As(err, &be) {
			return toolresult.Error("%s", be.Msg)
		}
		return toolresult.Error("MCP server %q: %v", e.Server, err)
	}
	return b.withFirstInstructions(srv, b.taskHint(res, toolresult.Convert(res, b.resultBudget())))
}

// callContext is the context of one call of e's tool: its budget on the bridge's clock
// (marked for the tasks that outlive it) and its progress token, whose notifications go
// to sink, or to the user's notes when sink is nil. done ends both.
func (b *Bridge) callContext(ctx context.Context, e *catalog.Tool, sink func(mcp.ProgressNotificationParams)) (_ context.Context, budget time.Duration, done func()) {
	ctx, budget = b.callBudget(ctx, e.Server, e.Tool.Name)
	ctx, cancel := clock.WithTimeout(ctx, b.opts.Clock, budget)
	ctx = lifecycle.WithTaskWaitEnd(ctx, b.opts.Clock.Now().Add(budget-interact.AnswerMargin))
	ctx, end := b.x.progress.BeginFunc(ctx, e.Server, e.Tool.Name, sink)
	return ctx, budget, func() {
		end()
		cancel()
	}
}

// objectArgs checks that raw holds a JSON object and returns it to be sent on as it is:
// decoding it only to have mcp-go encode it again would cost every call both. Absent or
// null arguments are {}.
func objectArgs(raw json.RawMessage) (json.RawMessage, error) {
	t := jsonscan.Args(raw)
	if !gojson.Valid(t) {
		return nil, errors.New("not valid JSON")
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("got %s", jsonKind(t[0]))
	}
	return t, nil
}

// jsonKind names the kind of JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
