package bridge

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/search"
)

// entry is one MCP tool the bridge knows, under its registered name. What routing needs
// is at hand; the bulky parts (title, description, schemas) are in body, packed once the
// catalog is (see toolbody.go), and read with tool().
type entry struct {
	Name       string // registered name, mcp__<server>__<tool>
	Server     string
	Tool       toolHead
	Registered bool // registered with the host at startup (so activation and direct calls work)
	body       toolBody
}

// toolHead is what routing and calling need of a tool.
type toolHead struct {
	Name        string // MCP tool name as the server knows it
	Annotations *cache.Annotations
}

// ref is the entry's (server, tool) pair.
func (e *entry) ref() ToolRef { return ToolRef{Server: e.Server, Tool: e.Tool.Name} }

// tool returns the whole cache.Tool of the entry, unpacking its body. A body that cannot
// be unpacked (only a bug can damage memory the bridge wrote itself) gives the tool
// without description or schema: the server still checks the arguments of a call.
func (e *entry) tool() cache.Tool {
	t, _ := e.body.load()
	t.Name, t.Annotations = e.Tool.Name, e.Tool.Annotations
	return t
}

// catalog is an immutable snapshot of every known tool, with a search index built on
// first use. Catalogs are made only by Bridge.changeCatalog.
type catalog struct {
	entries []entry // sorted by Name
	byRef   []int32 // entry indices sorted by (Server, Tool)
	*catIndex
}

// catIndex is a catalog's search index, built once. A catalog that differs from the one
// before only in where its bodies are (packCatalog) shares its index: the entries are the
// same tools in the same order.
type catIndex struct {
	once    sync.Once
	index   *search.Index
	indexed chan struct{} // closed once index is built
}

func newCatIndex() *catIndex { return &catIndex{indexed: make(chan struct{})} }

// catalogChange is one change of the catalog.
type catalogChange struct {
	// replace: tools is the whole new catalog (startup, recovery); registered marks the
	// refs registered with the host (nil: all of them). Otherwise tools replaces the named
	// servers' tools and every other server keeps its tools and registered marks.
	replace    bool
	registered map[ToolRef]bool
	tools      map[string][]cache.Tool
	drop       map[string]bool // servers whose tools leave the catalog
	// packLater leaves the new tools' bodies unpacked (the startup path, where the catalog
	// is needed at once; afterReady packs it).
	packLater bool
}

// changeCatalog is the one way the catalog changes: the startup load, refresh merges,
// list_changed, trust changes and packing all come here, one at a time, so none is lost to
// another and no registered name moves (names come from the process's Namer).
// It returns the new catalog and the names that could not be given as wanted.
func (b *Bridge) changeCatalog(ch catalogChange) (*catalog, []Collision) {
	if !ch.replace {
		<-b.catReady // the first catalog is published by a replace; change that one
	}
	b.catMu.Lock()
	defer b.catMu.Unlock()
	var kept []entry
	registered := ch.registered
	var old *catalog
	if !ch.replace {
		old = b.cat.Load()
		registered = make(map[ToolRef]bool, len(old.entries))
		for _, e := range old.entries {
			if e.Registered {
				registered[e.ref()] = true
			}
			if _, put := ch.tools[e.Server]; put || ch.drop[e.Server] {
				continue
			}
			kept = append(kept, e)
		}
	}
	cat, collisions := newCatalog(b.namer, kept, ch.tools, ch.drop, func(r ToolRef) bool { return registered == nil || registered[r] })
	if old != nil && len(ch.tools) == 0 && len(ch.drop) == 0 {
		cat.catIndex = old.catIndex
	}
	if !ch.packLater {
		if err := pack(cat.entries); err != nil {
			b.opts.Log.Warn().Err(err).Msg("tool descriptions not packed; they stay in memory as they are")
		}
	}
	for _, c := range collisions {
		b.opts.Log.Warn().Str("server", c.Ref.Server).Str("tool", c.Ref.Tool).Str("wanted", c.Wanted).Str("assigned", c.Assigned).Msg("tool name collision resolved")
	}
	b.setCatalog(cat)
	return cat, collisions
}

// packCatalog packs the bodies that the startup path left unpacked, keeping every name and
// mark as it is.
func (b *Bridge) packCatalog() *catalog {
	cat, _ := b.changeCatalog(catalogChange{})
	return cat
}

// newCatalog builds a catalog of the kept entries (names and bodies as they are) and the
// tools of the servers in tools (except those in drop), named through namer (names given
// earlier in the process are kept, see Namer). registered says which new refs the host
// knows. A tool listed twice by one server is kept once.
func newCatalog(namer *Namer, kept []entry, tools map[string][]cache.Tool, drop map[string]bool, registered func(ToolRef) bool) (*catalog, []Collision) {
	n := 0
	for _, ts := range tools {
		n += len(ts)
	}
	refs := make([]ToolRef, 0, n) // the new tools; kept entries keep their names
	for server, ts := range tools {
		if drop[server] {
			continue
		}
		for _, t := range ts {
			refs = append(refs, ToolRef{Server: server, Tool: t.Name})
		}
	}
	names := make(map[ToolRef]givenName, len(refs))
	collisions := namer.assign(refs, func(r ToolRef, g givenName) { names[r] = g })
	c := &catalog{entries: make([]entry, 0, len(kept)+len(refs)), catIndex: newCatIndex()}
	c.entries = append(c.entries, kept...)
	seen := make(map[ToolRef]bool, len(refs))
	anns := annotationSet{}
	for server, ts := range tools {
		if drop[server] {
			continue
		}
		for i := range ts {
			t := &ts[i]
			ref := ToolRef{Server: server, Tool: t.Name}
			if seen[ref] {
				continue
			}
			seen[ref] = true
			g := names[ref] // its strings are the Namer's: one copy for every catalog
			c.entries = append(c.entries, entry{Name: g.name, Server: g.ref.Server, Tool: toolHead{Name: g.ref.Tool, Annotations: anns.intern(t.Annotations)},
				Registered: registered(ref), body: toolBody{raw: t}})
		}
	}
	sort.Slice(c.entries, func(i, j int) bool { return c.entries[i].Name < c.entries[j].Name })
	c.byRef = make([]int32, len(c.entries))
	for i := range c.byRef {
		c.byRef[i] = int32(i)
	}
	slices.SortFunc(c.byRef, func(i, j int32) int { return compareRefs(c.entries[i].ref(), c.entries[j].ref()) })
	return c, collisions
}

// annotationSet holds one copy of each distinct set of annotations: most tools of a
// catalog share one of a few, and each decoded copy is five small allocations.
type annotationSet map[annotationKey]*cache.Annotations

type annotationKey struct {
	title string
	hints [4]int8 // per hint: 0 unset, 1 false, 2 true
}

// intern returns the set's copy of a (nil stays nil). The annotations are never
// modified once in a catalog, so sharing them is safe.
func (s annotationSet) intern(a *cache.Annotations) *cache.Annotations {
	if a == nil {
		return nil
	}
	k := annotationKey{title: a.Title}
	for i, h := range []*bool{a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint} {
		switch {
		case h == nil:
		case *h:
			k.hints[i] = 2
		default:
			k.hints[i] = 1
		}
	}
	if c, ok := s[k]; ok {
		return c
	}
	s[k] = a
	return a
}

// compareRefs orders refs by server, then tool.
func compareRefs(a, b ToolRef) int {
	if c := strings.Compare(a.Server, b.Server); c != 0 {
		return c
	}
	return strings.Compare(a.Tool, b.Tool)
}

func (c *catalog) lookup(name string) (*entry, bool) {
	i, ok := slices.BinarySearchFunc(c.entries, name, func(e entry, n string) int { return strings.Compare(e.Name, n) })
	if !ok {
		return nil, false
	}
	return &c.entries[i], true
}

func (c *catalog) lookupRef(server, tool string) (*entry, bool) {
	want := ToolRef{Server: server, Tool: tool}
	i, ok := slices.BinarySearchFunc(c.byRef, want, func(i int32, r ToolRef) int { return compareRefs(c.entries[i].ref(), r) })
	if !ok {
		return nil, false
	}
	return &c.entries[c.byRef[i]], true
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
	for i := range cat.entries {
		e := &cat.entries[i]
		if server == "" || e.Server == server {
			out = append(out, ToolInfo{Name: e.Name, Server: e.Server, Tool: e.Tool.Name, Description: e.tool().Description})
		}
	}
	return out
}

// ToolInfo describes one catalog tool for listings.
type ToolInfo struct {
	Name, Server, Tool, Description string
}
