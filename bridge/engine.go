package bridge

import (
	"context"
	"encoding/json"
	"github.com/zot-mcp/mcp-bridge/session"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// This file is the bridge as an engine behind a second front end (serve: the catalog as
// one MCP server for other clients). The front end gets the catalog, the search, and
// the calls of the same servers, lifecycle, approvals and OAuth tokens as zot, with
// the servers' own results rather than zot's content blocks.

// Front is what a second front end is told about the servers while it serves; its
// methods are called from the bridge's goroutines: CatalogChanged and ServerLog must not
// block; Elicit may, as it says.
type Front interface {
	// CatalogChanged: the tool catalog or the resources and prompts changed (a refresh,
	// a server's list change).
	CatalogChanged()
	// ServerLog is a log message of a server (redacted), for the client of the call it
	// belongs to.
	ServerLog(server string, line lifecycle.LogLine)
	// Elicit asks the client of the call the question belongs to (ctx is the call's when
	// the server asked inside its result, the connection's otherwise); it may block
	// until the client answers or ctx ends.
	Elicit(ctx context.Context, server string, p mcp.ElicitationParams) (*mcp.ElicitationResult, error)
}

// WaitCatalog returns the catalog once it is loaded (Load builds it; after a fast zot
// start it is decoded in the background).
func (b *Bridge) WaitCatalog(ctx context.Context) (*catalog.Catalog, error) {
	select {
	case <-b.cats.Ready():
		return b.catalog(), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Extras is the current snapshot of every usable server's resources, templates and
// prompts.
func (b *Bridge) Extras() map[string]*cache.Server { return b.extras().Servers }

// StaleServers are the usable servers whose cache entry is missing or due: a front end
// that serves the catalog lists them first (RefreshEach).
func (b *Bridge) StaleServers() []string { return append([]string(nil), b.stale...) }

// SearchFor answers the search tool's arguments as the proxy mode does and returns the
// entries it showed, which a front end may offer directly.
func (b *Bridge) SearchFor(raw json.RawMessage) (extension.ToolResult, []*catalog.Tool) {
	return b.search(raw)
}

// ResolveCall checks the call tool's arguments (server, tool, arguments) as
// mcp__call_tool does, without reaching any server; bad is the answer for the model
// when they do not name a callable tool or do not fit its schema.
func (b *Bridge) ResolveCall(raw json.RawMessage) (e *catalog.Tool, args json.RawMessage, bad *extension.ToolResult) {
	return b.resolveProxyCall(raw)
}

// ProgressFunc receives a server's progress notifications of one forwarded call.
type ProgressFunc func(mcp.ProgressNotificationParams)

// ForwardOptions are what a forwarded call carries from the front end's client.
type ForwardOptions struct {
	// Progress, when set, receives the server's progress of the call.
	Progress ProgressFunc
	// LogLevel asks the server for the call's log messages at this level and above
	// (Front.ServerLog receives them); "": none.
	LogLevel mcp.LoggingLevel
}

// Forward calls e's tool with args (a JSON object, sent on as it is) on its server,
// waking it if it sleeps, under the call budget, and returns the server's result as
// the server gave it, with what o asks of it.
// A failure is a *lifecycle.Error (its Msg is for the model) or one of the server's
// JSON-RPC errors, which errors.Is finds as mcp-go's sentinels.
func (b *Bridge) Forward(ctx context.Context, e *catalog.Tool, args json.RawMessage, o ForwardOptions) (*mcp.CallToolResult, error) {
	srv, err := b.usableServer(e.Server)
	if err != nil {
		return nil, err
	}
	args, err = objectArgs(args)
	if err != nil {
		return nil, &lifecycle.Error{Kind: session.KindCall, Msg: e.Name + ": arguments must be a JSON object: " + err.Error()}
	}
	ctx, _, done := b.callContext(interact.WithLogLevel(ctx, o.LogLevel), e, o.Progress)
	defer done()
	return srv.Call(ctx, e.Tool.Name, args, catalog.SafeToRepeat(e.Tool.Annotations))
}

// usableServer is the named server when it may be started on a front end's request.
func (b *Bridge) usableServer(name string) (*lifecycle.Server, error) {
	s, ok := b.servers[name]
	switch {
	case !ok:
		return nil, &lifecycle.Error{Kind: lifecycle.KindDisabled, Msg: "no MCP server " + name + " is configured"}
	case s.Pending():
		return nil, s.ApprovalErr()
	case !s.Config().Usable():
		return nil, s.DisabledErr()
	}
	return s, nil
}

// ReadResource reads uri on the named server (starting it if asleep).
func (b *Bridge) ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	s, err := b.usableServer(server)
	if err != nil {
		return nil, err
	}
	return s.ReadResource(ctx, uri)
}

// GetPrompt gets the named server's prompt (starting it if asleep).
func (b *Bridge) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	s, err := b.usableServer(server)
	if err != nil {
		return nil, err
	}
	return s.GetPrompt(ctx, name, args)
}

// Complete sends completion/complete with params to the named server (starting it if
// asleep) and returns its raw result. Only this method: any other would pass by the
// checks a call gets (filters, pins, approvals).
func (b *Bridge) Complete(ctx context.Context, server string, params any) (json.RawMessage, error) {
	s, err := b.usableServer(server)
	if err != nil {
		return nil, err
	}
	return s.Request(ctx, string(mcp.MethodCompletionComplete), params)
}

// SearchSchema is the search tool's input schema.
func SearchSchema() json.RawMessage { return searchSchema }

// CallSchema is the call tool's input schema.
func CallSchema() json.RawMessage { return callSchema }

// CallDescription is the call tool's description.
func CallDescription() string { return callToolDescription }

// SearchDescription is the search tool's description over the current catalog, with its
// directory of servers.
func (b *Bridge) SearchDescription() string {
	cat := b.catalog()
	refs := make([]catalog.ToolRef, len(cat.Entries))
	for i := range cat.Entries {
		refs[i] = cat.Entries[i].Ref()
	}
	return b.searchDescription(refs)
}
