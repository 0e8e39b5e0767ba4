package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
)

// maxToolPages bounds how many tools/list pages one listing follows, so a server that
// hands out fresh cursors forever cannot keep a refresh busy.
const maxToolPages = 1000

// toolsPage is one tools/list result with each tool left undecoded.
type toolsPage struct {
	Tools      []json.RawMessage `json:"tools"`
	NextCursor mcp.Cursor        `json:"nextCursor"`
	TTLMs      *int64            `json:"ttlMs"`
	CacheScope mcp.CacheScope    `json:"cacheScope"`
}

// CacheHints are the caching hints of a listing (protocol 2026-07-28; a legacy server
// gives none): how long it may be kept before it is listed again, and whether it may be
// shared beyond the authorization context that listed it.
type CacheHints struct {
	// TTL is the ttlMs hint (the smallest of the pages'); nil when the server gave none.
	TTL *time.Duration
	// Private is true when a page said cacheScope "private".
	Private bool
}

// merge adds one page's hints.
func (h *CacheHints) merge(p *toolsPage) {
	if p.TTLMs != nil {
		ms := max(*p.TTLMs, 0)
		d := time.Duration(min(ms, int64(math.MaxInt64/time.Millisecond))) * time.Millisecond
		if h.TTL == nil || d < *h.TTL {
			h.TTL = &d
		}
	}
	if p.CacheScope == mcp.CacheScopePrivate {
		h.Private = true
	}
}

// ToolListHints are the caching hints of the session's last complete tool listing.
func (c *Client) ToolListHints() CacheHints {
	c.hintsMu.Lock()
	defer c.hintsMu.Unlock()
	return c.hints
}

// HintsReporter is a session that keeps its last listing's caching hints (every
// session built on Client).
type HintsReporter interface {
	ToolListHints() CacheHints
}

// rawTool is one listed tool with every field that may be malformed left raw.
type rawTool struct {
	Name         json.RawMessage `json:"name"`
	Title        json.RawMessage `json:"title"`
	Description  json.RawMessage `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  json.RawMessage `json:"annotations"`
	Execution    json.RawMessage `json:"execution"`
}

// listRawTools lists every tool of the server on cl, following pagination.
//
// mcp-go's ListTools decodes each tool into mcp.Tool, whose input schema is a fixed struct:
// one tool with "type": ["object","null"], "required" as a string, or a schema that is not
// an object failed the whole listing, and top-level keywords outside the struct (anyOf,
// definitions, $schema, description) were lost, leaving dangling $refs. So the same
// tools/list request goes through the client's transport (mcp-go's raw request API) and
// each tool is decoded on its own, its schemas kept as the server sent them
// (cache.CheckInputSchema normalizes only what providers require).
func listRawTools(ctx context.Context, c *Client) ([]mcp.Tool, []SkippedTool, error) {
	idBase := "mcp-bridge-tools-" + nonce() + "-"
	var tools []mcp.Tool
	var skipped []SkippedTool
	seen := map[string]bool{}
	cursors := map[mcp.Cursor]bool{}
	var cursor mcp.Cursor
	index := 0
	var hints CacheHints
	for page := 0; ; page++ {
		if page == maxToolPages {
			return nil, nil, fmt.Errorf("tools/list: more than %d pages; the server keeps returning a next cursor", maxToolPages)
		}
		var params any
		if cursor != "" {
			params = mcp.PaginatedParams{Cursor: cursor}
		}
		resp, err := c.send(ctx, mcp.NewRequestId(fmt.Sprintf("%s%d", idBase, page)), string(mcp.MethodToolsList), params)
		if err != nil {
			return nil, nil, err
		}
		if resp.Error != nil {
			return nil, nil, resp.Error.AsError()
		}
		var p toolsPage
		if err := json.Unmarshal(resp.Result, &p); err != nil {
			return nil, nil, fmt.Errorf("tools/list: the result is not an object with a tools list: %w", err)
		}
		hints.merge(&p)
		for _, raw := range p.Tools {
			t, reason := decodeTool(raw)
			if reason == "" {
				reason = c.headerFault(&t)
			}
			switch {
			case reason != "":
				name := t.Name
				if name == "" {
					name = fmt.Sprintf("#%d", index)
				}
				skipped = append(skipped, SkippedTool{Name: safetext.Escape(name), Reason: reason})
			case seen[t.Name]:
				skipped = append(skipped, SkippedTool{Name: t.Name, Reason: "listed twice; the first definition is used"})
			default:
				seen[t.Name] = true
				tools = append(tools, t)
			}
			index++
		}
		if p.NextCursor == "" {
			c.hintsMu.Lock()
			c.hints = hints
			c.hintsMu.Unlock()
			return tools, skipped, nil
		}
		if cursors[p.NextCursor] {
			return nil, nil, errors.New("tools/list: the server returned the same cursor twice")
		}
		cursors[p.NextCursor] = true
		cursor = p.NextCursor
	}
}

// decodeTool decodes one listed tool. It returns a reason when the tool cannot be offered
// (no usable name or input schema); a malformed title, description, output schema or
// annotations are dropped instead.
func decodeTool(raw json.RawMessage) (mcp.Tool, string) {
	var r rawTool
	if err := json.Unmarshal(raw, &r); err != nil {
		return mcp.Tool{}, "not a JSON object"
	}
	var t mcp.Tool
	if json.Unmarshal(r.Name, &t.Name) != nil || t.Name == "" {
		return mcp.Tool{}, "no name"
	}
	if !safetext.Clean(t.Name) {
		// It could be neither shown as it is nor called by a cleaned name (the catalog
		// leaves such a tool out of a cache written before, see catalog.NameOffered).
		return t, "its name carries control or invisible characters"
	}
	_ = json.Unmarshal(r.Title, &t.Title)
	_ = json.Unmarshal(r.Description, &t.Description)
	in, _, err := cache.CheckInputSchema(r.InputSchema)
	if err != nil {
		return t, err.Error()
	}
	t.RawInputSchema = in
	if out, _, err := cache.CheckInputSchema(r.OutputSchema); err == nil && len(r.OutputSchema) > 0 && string(r.OutputSchema) != "null" {
		t.RawOutputSchema = out
	}
	var a mcp.ToolAnnotation
	if json.Unmarshal(r.Annotations, &a) == nil {
		t.Annotations = a
	}
	// Whether the tool runs as a task (tasks.go); kept only on the live listing.
	var ex mcp.ToolExecution
	if json.Unmarshal(r.Execution, &ex) == nil && ex.TaskSupport != "" {
		t.Execution = &ex
	}
	return t, ""
}
