package bridge

import (
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/search"
)

// entry is one MCP tool the bridge knows, under its registered name.
type entry struct {
	Name       string // registered name, mcp__<server>__<tool>
	Server     string
	Tool       cache.Tool
	Registered bool // registered with the host at startup (so activation and direct calls work)
}

// catalog is an immutable snapshot of every known tool, with a search index built on
// first use. A refresh builds a new catalog and swaps it in.
type catalog struct {
	entries []entry // sorted by Name
	byName  map[string]int
	byRef   map[ToolRef]int

	once    sync.Once
	index   *search.Index
	indexed chan struct{} // closed once index is built
}

// newCatalog names the tools of every server through namer (names given earlier in the
// process are kept, see Namer). registered marks the refs that were registered with the
// host (nil: all of them). A tool listed twice by one server is kept once.
func newCatalog(namer *Namer, tools map[string][]cache.Tool, registered map[ToolRef]bool) (*catalog, []Collision) {
	var refs []ToolRef
	for server, ts := range tools {
		for _, t := range ts {
			refs = append(refs, ToolRef{Server: server, Tool: t.Name})
		}
	}
	names, collisions := namer.Assign(refs)
	c := &catalog{byName: make(map[string]int, len(names)), byRef: make(map[ToolRef]int, len(names)), indexed: make(chan struct{})}
	seen := make(map[ToolRef]bool, len(refs))
	for server, ts := range tools {
		for _, t := range ts {
			ref := ToolRef{Server: server, Tool: t.Name}
			if seen[ref] {
				continue
			}
			seen[ref] = true
			reg := registered == nil || registered[ref]
			c.entries = append(c.entries, entry{Name: names[ref], Server: server, Tool: t, Registered: reg})
		}
	}
	sort.Slice(c.entries, func(i, j int) bool { return c.entries[i].Name < c.entries[j].Name })
	for i, e := range c.entries {
		c.byName[e.Name] = i
		c.byRef[ToolRef{Server: e.Server, Tool: e.Tool.Name}] = i
	}
	return c, collisions
}

func (c *catalog) lookup(name string) (*entry, bool) {
	i, ok := c.byName[name]
	if !ok {
		return nil, false
	}
	return &c.entries[i], true
}

func (c *catalog) lookupRef(server, tool string) (*entry, bool) {
	i, ok := c.byRef[ToolRef{Server: server, Tool: tool}]
	if !ok {
		return nil, false
	}
	return &c.entries[i], true
}

// searchIndex builds the index on first use (never on the startup path: afterReady
// starts it in the background, so a search usually finds it built).
func (c *catalog) searchIndex() *search.Index {
	c.once.Do(func() {
		docs := make([]search.Doc, len(c.entries))
		for i := range c.entries {
			docs[i] = docFor(&c.entries[i])
		}
		c.index = search.New(docs)
		close(c.indexed)
	})
	return c.index
}

// servers returns the sorted server names with their tool counts.
func (c *catalog) servers() ([]string, map[string]int) {
	counts := map[string]int{}
	for _, e := range c.entries {
		counts[e.Server]++
	}
	names := slices.Sorted(maps.Keys(counts))
	return names, counts
}

// Tools lists the cached tools of one server (or all when server is ""), sorted by name.
func (b *Bridge) Tools(server string) []ToolInfo {
	cat := b.catalog()
	var out []ToolInfo
	for _, e := range cat.entries {
		if server == "" || e.Server == server {
			out = append(out, ToolInfo{Name: e.Name, Server: e.Server, Tool: e.Tool.Name, Description: e.Tool.Description})
		}
	}
	return out
}

// ToolInfo describes one catalog tool for listings.
type ToolInfo struct {
	Name, Server, Tool, Description string
}
