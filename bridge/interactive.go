package bridge

import (
	"context"
	"errors"
	"github.com/zot-mcp/mcp-bridge/session"
	"time"

	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// Tools that wait for a person (a server entry's "interactiveTools") cannot live with the
// budget every other call has. A host that announces capabilities takes them as
// interactive tools with no reply deadline, so there the bridge lifts its own limits too
// (lifecycle.InteractiveBudget); other hosts keep their 60 s deadline, so there a call keeps the
// budget and, if it runs out, says why it could not wait.

// interactiveHost reports whether the host takes tools registered as interactive: it
// announces capabilities, and the tools are registered by their own names (not behind
// the proxy's mcp__call_tool).
func (b *Bridge) interactiveHost() bool {
	return b.host.Generation() == extension.GenNew && b.mode != ModeProxy
}

// interactive reports whether the server's tool is configured as waiting for a person.
func (b *Bridge) interactive(server, tool string) bool {
	srv, ok := b.servers[server]
	return ok && srv.Config().Interactive(tool)
}

// toolPayload is a tool's pre-encoded registration payload as this host takes it
// (hostPayload), and whether to register it as interactive (where the host honours it).
func (b *Bridge) toolPayload(ref catalog.ToolRef, payload extension.ToolPayload) (extension.ToolPayload, bool) {
	return b.hostPayload(payload), b.registeredInteractive(ref)
}

// registeredInteractive says whether to register the tool as interactive (where the host
// honours it).
func (b *Bridge) registeredInteractive(ref catalog.ToolRef) bool {
	return b.interactiveHost() && b.interactive(ref.Server, ref.Tool)
}

// callBudget is the budget of one call of the server's tool, and ctx marked when the
// limits are lifted for it.
func (b *Bridge) callBudget(ctx context.Context, server, tool string) (context.Context, time.Duration) {
	if b.interactiveHost() && b.interactive(server, tool) {
		return lifecycle.LiftLimits(ctx), lifecycle.InteractiveBudget
	}
	return ctx, b.opts.CallBudget
}

// interactiveTimeout explains a timed-out call of an interactive tool on a host that
// gives it the usual deadline.
func (b *Bridge) interactiveTimeout(server, tool string, err error) (extension.ToolResult, bool) {
	var be *lifecycle.Error
	if b.interactiveHost() || !b.interactive(server, tool) || !errors.As(err, &be) || be.Kind != session.KindTimeout {
		return extension.ToolResult{}, false
	}
	why := "this zot version gives every extension tool call at most 60 s and cannot wait for a person longer"
	if b.host.Generation() == extension.GenNew {
		why = "in proxy mode (mcp__call_tool) zot gives every call at most 60 s and cannot wait for a person longer; use \"toolExposure\": \"auto\" so the tool is registered as interactive"
	}
	return toolresult.Error("%s of MCP server %q waits for a person (it is listed in \"interactiveTools\"), but %s, so the bridge ended the call before zot's deadline (%s) Tell the user: they must answer within that time, or use a zot version that announces capabilities, where such tools have no deadline.",
		tool, server, why, be.Msg), true
}
