package bridge

import (
	"encoding/json"
	"strings"

	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/toolview"
)

// Commands is the bridge as package commands sees it: the CLI's list and get describe
// servers through it, as /mcp does.
func (b *Bridge) Commands() commands.Host { return cmdHost{b} }

// ModeOn is the exposure mode the configuration gives on a host of generation gen, and
// why (doctor reports it for each kind of zot).
func (b *Bridge) ModeOn(gen extension.Generation) (Mode, string) { return chooseMode(b.cfg, gen) }

// SearchHit is one result of SearchTools.
type SearchHit struct {
	Name        string          `json:"name"` // registered name, mcp__<server>__<tool>
	Server      string          `json:"server"`
	Tool        string          `json:"tool"` // the MCP name
	Description string          `json:"description"`
	Hints       []string        `json:"hints,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// Need is the need of a whole task the tool answers, in the request's
	// words ("" for a plain request, or a tool for the request as a whole).
	Need string `json:"need,omitempty"`
}

// SearchTools ranks the cached tools for query as mcp__search_tools does (a whole
// task's tools grouped by the need each answers), for the CLI's search --json. The second result is the text that explains an empty answer (no tools
// cached, being fetched...), "" when tools are known.
func (b *Bridge) SearchTools(query string, limit int) ([]SearchHit, string) {
	cat := b.catalog()
	if len(cat.Entries) == 0 {
		if len(b.names) == 0 {
			return nil, "no MCP servers are configured"
		}
		return nil, b.noToolsText()
	}
	var shown []*catalog.Tool
	var needs []string
	for _, h := range cat.SearchIndex().Search(strings.TrimSpace(query), limit) {
		shown, needs = append(shown, &cat.Entries[h.Doc]), append(needs, h.Need)
	}
	shown, needs = groupByNeed(shown, needs)
	var out []SearchHit
	for i, e := range shown {
		t := e.CacheTool()
		out = append(out, SearchHit{Name: e.Name, Server: e.Server, Tool: t.Name,
			Description: textcut.FirstLine(toolview.FirstNonEmpty(t.Description, t.Title), toolview.PurposeLen*2),
			Hints:       catalog.Hints(t.Annotations), InputSchema: t.InputSchema, Need: needs[i]})
	}
	return out, ""
}
