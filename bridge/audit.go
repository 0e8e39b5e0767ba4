package bridge

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/internal/words"
	"github.com/zot-mcp/mcp-bridge/toolaudit"
)

// The injection audit (toolaudit) reads a server's text as the cache keeps it,
// as sent: its findings are shown in /mcp <server>, by doctor, and in one note when a
// tool with findings is first seen. It never changes what a tool says or whether it is
// offered.

// maxFindingsNote bounds the findings listed in one note or /mcp <server> line.
const maxFindingsNote = 1500

// CachedToolFindings audits the cached tools of every configured server whose cache entry
// is fresh (what the bridge offers, or would offer once approved), as the cache holds
// them: the findings by server, servers without findings left out.
func (b *Bridge) CachedToolFindings() map[string][]toolaudit.Finding {
	file, _ := cache.Read(b.opts.CachePath) // never nil; a broken cache has no tools
	tools := b.freshTools(file)
	others := toolNames(tools)
	out := map[string][]toolaudit.Finding{}
	for name, ts := range tools {
		if f := toolaudit.Server(name, ts, others); len(f) > 0 {
			out[name] = f
		}
	}
	return out
}

// cachedFindings is CachedToolFindings of one server.
func (b *Bridge) cachedFindings(server string) []toolaudit.Finding {
	file, _ := cache.Read(b.opts.CachePath)
	tools := b.freshTools(file)
	return toolaudit.Server(server, tools[server], toolNames(tools))
}

// LiveToolFindings audits the tools the server listed when it last started (nil when it
// has not), beside the other servers' tools in the catalog (doctor asks for every server
// at once, so the cache file is not read for each).
func (b *Bridge) LiveToolFindings(server string) []toolaudit.Finding {
	s, ok := b.servers[server]
	if !ok {
		return nil
	}
	live := s.Tools()
	if live == nil {
		return nil
	}
	others := map[string][]string{}
	for _, e := range b.catalog().Entries {
		others[e.Server] = append(others[e.Server], e.Tool.Name)
	}
	ts := make([]cache.Tool, 0, len(live))
	for _, t := range live {
		ts = append(ts, catalog.ToCacheTool(t))
	}
	return toolaudit.Server(server, filterTools(ts, s.Config()), others)
}

// freshTools is every configured, usable server's cached tools that its config does not
// hide, from entries made for its configuration.
func (b *Bridge) freshTools(file *cache.File) map[string][]cache.Tool {
	out := map[string][]cache.Tool{}
	for _, name := range b.names {
		c := b.servers[name].Config()
		if e := file.View(b.projectKey)[name]; c.Usable() && e != nil && e.Fingerprint == c.Fingerprint() {
			out[name] = filterTools(e.Tools, c)
		}
	}
	return out
}

// toolNames is the tool names of each server of tools.
func toolNames(tools map[string][]cache.Tool) map[string][]string {
	out := make(map[string][]string, len(tools))
	for name, ts := range tools {
		for _, t := range ts {
			out[name] = append(out[name], t.Name)
		}
	}
	return out
}

// findingsText lists findings in one line, bounded.
func findingsText(fs []toolaudit.Finding) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return textcut.Truncate(strings.Join(parts, "; "), maxFindingsNote)
}

// findingsDetail is the /mcp <server> line of the server's findings ("" when none).
func (b *Bridge) findingsDetail(server string) string {
	fs := b.cachedFindings(server)
	if len(fs) == 0 {
		return ""
	}
	return fmt.Sprintf("\n  flagged:    %s in tool descriptions that may steer the model (a heuristic; the text is offered unchanged): %s",
		words.Count(len(fs), "finding"), findingsText(fs))
}

// newFindings words the findings of tools in put (fresh listings) that the catalog does
// not hold as they are now (tools seen for the first time, or changed) for the refresh's
// note ("" when there are none). It runs before put is merged into the catalog.
func (b *Bridge) newFindings(put map[string]*cache.Server) string {
	cat := b.catalog()
	tools := map[string][]cache.Tool{}
	for i := range cat.Entries {
		e := &cat.Entries[i]
		if _, listed := put[e.Server]; !listed {
			tools[e.Server] = append(tools[e.Server], cache.Tool{Name: e.Tool.Name})
		}
	}
	for name, e := range put {
		tools[name] = filterTools(e.Tools, b.servers[name].Config())
	}
	others := toolNames(tools)
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(put)) {
		byName := map[string]*cache.Tool{}
		unseen := false
		for i := range tools[name] {
			t := &tools[name][i]
			byName[t.Name] = t
			unseen = unseen || !seen(cat, name, t)
		}
		if !unseen {
			continue // nothing new to audit
		}
		var fresh []toolaudit.Finding
		for _, f := range toolaudit.Server(name, tools[name], others) {
			if !seen(cat, name, byName[f.Tool]) {
				fresh = append(fresh, f)
			}
		}
		if len(fresh) > 0 {
			parts = append(parts, fmt.Sprintf("MCP server %q: %s (details: %s).", name, findingsText(fresh), b.opts.Surface.Cmd("", name)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "MCP: some tool descriptions may try to steer the model (a heuristic; nothing was changed or hidden): " + strings.Join(parts, " ")
}

// seen reports whether the catalog holds the server's tool t as it is now (its text as
// shown: the catalog keeps it cleaned).
func seen(cat *catalog.Catalog, server string, t *cache.Tool) bool {
	if t == nil {
		return false
	}
	e, ok := cat.LookupRef(server, t.Name)
	if !ok {
		return false
	}
	old, now := e.CacheTool(), catalog.CleanTool(t)
	return old.Title == now.Title && old.Description == now.Description && bytes.Equal(old.InputSchema, now.InputSchema)
}
