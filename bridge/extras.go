package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
	"github.com/zot-mcp/mcp-bridge/resources"
	reqneeds "github.com/zot-mcp/mcp-bridge/search/needs"
	"github.com/zot-mcp/mcp-bridge/toolresult"
	"github.com/zot-mcp/mcp-bridge/toolview"
)

// The bridge's side of resources and prompts (their catalog is resources.Catalog):
// registering and answering mcp__read_resource, adding resources to a search's answer,
// and the requests beyond tools/call a server answers once started.

// registerReadResource registers mcp__read_resource: deferred where tools are (a search
// that finds a resource activates it), eagerly on hosts without deferred tools. It is
// registered whenever servers are configured: at startup the bridge reads only the
// startup file, which does not say which servers have resources.
func (b *Bridge) registerReadResource(r *extension.Registrations) error {
	if len(b.names) == 0 || !b.itemTools() {
		return nil // no server, no resource; in proxy mode mcp__call_tool reads them
	}
	return r.AddTool(extension.Tool{Name: resources.ReadResourceToolName, Description: resources.ReadResourceDescription,
		Schema: resources.ReadResourceSchema, Deferred: b.mode == ModeDeferred})
}

// extras returns the current resources and prompts. After a fast startup they come with
// the full catalog, decoded in the background right after ready; a /mcp prompts or a
// search that comes before it waits for it, as tool lookups do (catalog).
func (b *Bridge) extras() *resources.Catalog {
	<-b.cats.Ready()
	return b.x.extras.Load()
}

// searchResources returns the resources and templates that match q, best first.
func (b *Bridge) searchResources(q string, limit int) []resources.Doc {
	return b.extras().Search(q, limit, func(server string) bool {
		_, ok := b.servers[server]
		return ok && b.runnable(server)
	})
}

// searchWithResources is mcp__search_tools: the tool search, followed by the resources
// that match the same query and how to read them. A search that shows a resource
// activates mcp__read_resource on hosts with deferred tools.
func (b *Bridge) searchWithResources(raw json.RawMessage) extension.ToolResult {
	res, shown := b.search(raw)
	if res.IsError {
		return res
	}
	var a searchArgs
	if decodeArgs(raw, &a) != nil {
		return res
	}
	// Pasted data carries no words a resource is described by, and the
	// answer quotes a long request cut, as the tool part does.
	q := strings.TrimSpace(a.Query)
	found := b.searchResources(reqneeds.Clean(q), resources.SearchLimit)
	if len(found) == 0 {
		return res
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "MCP resources matching %s — read one with %s:\n", echoRequest(q), b.itemShape(resources.ReadResourceToolName, "uri"))
	for _, d := range found {
		sb.WriteString(resources.Line(d, toolview.PurposeLen))
	}
	text := sb.String()
	if len(shown) == 0 {
		res.Content = []extension.Content{{Type: "text", Text: text}} // no tool matched, or none is cached: the resources are the answer
	} else {
		res.Content = append(res.Content, extension.Content{Type: "text", Text: text})
	}
	if b.mode == ModeDeferred {
		res.ActivateTools = append(res.ActivateTools, resources.ReadResourceToolName)
	}
	return res
}

// readResourceTool answers mcp__read_resource, or mcp__call_tool with the reserved name
// ReadResourceCall when reserved is set (its answers name the tool as it was called).
func (b *Bridge) readResourceTool(ctx context.Context, raw json.RawMessage, reserved bool) extension.ToolResult {
	srv, uri, bad := b.itemArgs(raw, itemFor(resources.ReadResourceToolName, ReadResourceCall, reserved, itemTool{key: "uri", example: "scheme://…",
		where: "; find them with " + SearchToolName}))
	if bad != nil {
		return *bad
	}
	ctx, cancel := clock.WithTimeout(ctx, b.opts.Clock, b.opts.CallBudget)
	defer cancel()
	res, err := srv.ReadResource(ctx, uri)
	if err != nil {
		return serverFailure(srv.Name(), err)
	}
	return toolresult.Convert(resources.AsResult(res), b.resultBudget())
}

// getPromptText fetches a prompt of the named server and returns its messages as one text.
func (b *Bridge) getPromptText(ctx context.Context, server, name string, args map[string]string) (string, error) {
	srv, ok := b.servers[server]
	if !ok {
		return "", fmt.Errorf("unknown server %q.%s Servers: %s", server, textdist.Suggest(server, b.names), commands.ServerList(b.names))
	}
	res, err := srv.GetPrompt(ctx, name, args)
	if err != nil {
		return "", err
	}
	return resources.PromptText(res), nil
}
