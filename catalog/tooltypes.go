package catalog

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/search"
)

// A tool has one type per layer, and the conversions between them are here, except those
// of the registration path, which belong to package startup (PayloadFor, ToolFromPayload):
//
//	mcp.Tool               what a server lists (mcp-go's type)                 → ToCacheTool
//	cache.Tool             what the cache file stores, schemas kept raw        → Tool (newCatalog)
//	Tool                   a catalog tool: names for routing, the rest packed (catalog.go)
//	search.Doc             what the ranker indexes                             ← docFor
//	cache.FrameTool        the startup file's record: MCP name, opaque payload
//	startup.Tool           a tool of the startup set: registered name, payload ← startup.PayloadFor
//	extension.ToolPayload  what the host is told at registration (pre-encoded)

// ToCacheTool converts a live listing's tool into what the cache stores.
func ToCacheTool(t mcp.Tool) cache.Tool {
	in := t.RawInputSchema
	if len(in) == 0 && t.InputSchema.Type != "" {
		// Only a tool built in code has the struct form; a missing schema stays missing
		// (NormalizeSchema makes it the empty object schema) rather than becoming
		// {"type":"","properties":{},"required":[]}.
		in, _ = json.Marshal(t.InputSchema)
	}
	out := t.RawOutputSchema
	if len(out) == 0 && t.OutputSchema.Type != "" {
		out, _ = json.Marshal(t.OutputSchema)
	}
	ct := cache.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: cache.NormalizeSchema(in)}
	if len(out) > 0 {
		ct.OutputSchema = cache.NormalizeSchema(out)
	}
	a := t.Annotations
	if a.Title != "" || a.ReadOnlyHint != nil || a.DestructiveHint != nil || a.IdempotentHint != nil || a.OpenWorldHint != nil {
		ct.Annotations = &cache.Annotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
			IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
	}
	return ct
}

// docFor is a catalog entry as the ranker indexes it. The ID and names are the entry's own
// strings, so the index shares them rather than copying.
func docFor(e *Tool) search.Doc {
	t := e.CacheTool()
	return search.Doc{ID: e.Name, Server: e.Server, Tool: e.Tool.Name, Title: t.Title, Description: t.Description,
		Params: search.ParamsFromSchema(t.InputSchema)}
}
