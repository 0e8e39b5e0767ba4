// Package catalog is the tools the bridge knows: the catalog of every tool under its
// registered name (one owner, one change at a time), the names pinned for the life of the
// process, the tools' packed bodies, and the conversions between a tool's types per layer.
package catalog

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/search"
)

// Tool is one MCP tool the bridge knows, under its registered name. What routing needs
// is at hand; the bulky parts (title, description, schemas) are in body, packed once the
// catalog is (see toolbody.go), and read with CacheTool().
type Tool struct {
	Name   string // registered name, mcp__<server>__<tool>
	Server string
	Tool   Head
	body   toolBody // also holds the registered mark, in what would be its padding
}

// Registered reports whether the tool was registered with the host at startup (so
// activation and direct calls work).
func (e *Tool) Registered() bool { return e.body.registered }

// Head is what routing and calling need of a tool.
type Head struct {
	Name        string // MCP tool name as the server knows it
	Annotations *cache.Annotations
}

// Ref is the entry's (server, tool) pair.
func (e *Tool) Ref() ToolRef { return ToolRef{Server: e.Server, Tool: e.Tool.Name} }

// CacheTool returns the whole cache.Tool of the entry, unpacking its body. A body that cannot
// be unpacked (a bug, or the bridge's own removed file of bodies failing to read back)
// gives the tool without description or schema: the server still checks the arguments
// of a call.
func (e *Tool) CacheTool() cache.Tool {
	t, _ := e.body.load()
	t.Name, t.Annotations = e.Tool.Name, e.Tool.Annotations
	return t
}

// Catalog is an immutable snapshot of every known tool, with a search index built on
// first use. Catalogs are made only by Owner.Change.
type Catalog struct {
	Entries []Tool  // sorted by Name; read-only
	byRef   []int32 // entry indices sorted by (Server, Tool)
	// unregistered are the entries of the startup set that were not registered after all,
	// and why (see Unregistered). Almost every catalog has none, so the reason is kept
	// here rather than in a field of every entry.
	unregistered map[ToolRef]string
	*catIndex
}

// Unregistered says why e, a tool of the startup set, was not registered after all (its
// register_tool frame would not fit the host's line): search and activation skip it,
// /mcp <server> names it with this reason. "" for the others. The reason is keyed by
// e's server and tool, so an entry of another catalog gets this catalog's reason for
// that tool. A published catalog is only read: any goroutine may call it.
func (c *Catalog) Unregistered(e *Tool) string { return c.unregistered[e.Ref()] }

// catIndex is a catalog's search index, built once. A catalog that differs from the one
// before only in where its bodies are (Owner.Pack) shares its index: the entries are the
// same tools in the same order.
type catIndex struct {
	once    sync.Once
	index   *search.Index
	indexed chan struct{} // closed once index is built
}

// Indexed is closed once the catalog's search index is built.
func (c *catIndex) Indexed() <-chan struct{} { return c.indexed }

func newCatIndex() *catIndex { return &catIndex{indexed: make(chan struct{})} }

// Change is one change of the catalog.
type Change struct {
	// Replace: Tools is the whole new catalog (startup, recovery); Registered marks the
	// refs registered with the host (nil: all of them). Otherwise Tools replaces the named
	// servers' tools and every other server keeps its tools and registered marks.
	Replace    bool
	Registered map[ToolRef]bool
	// Unregistered are the refs of the startup set that were not registered after all,
	// and why: they are not registered whatever Registered says, and keep the reason
	// through later changes.
	Unregistered map[ToolRef]string
	Tools        map[string][]cache.Tool
	Drop         map[string]bool // servers whose tools leave the catalog
	// PackLater leaves the new tools' bodies unpacked (the startup path, where the catalog
	// is needed at once; the bridge packs it after ready).
	PackLater bool
}

// Owner is the catalog's one owner: it holds the current catalog and the process's Namer,
// and makes every change, one at a time.
type Owner struct {
	cur   atomic.Pointer[Catalog]
	mu    sync.Mutex    // held while a catalog is built and swapped in: one merge at a time
	namer *Namer        // registered names, stable for the life of the process
	ready chan struct{} // closed once cur holds the first catalog
	once  sync.Once
	log   zerolog.Logger
	// bodies is where packed tool bodies are kept (bodyfile.go).
	bodies bodyFile
}

// NewOwner returns an Owner with no catalog yet; log hears of name collisions and of
// bodies that could not be packed.
func NewOwner(log zerolog.Logger) *Owner {
	return &Owner{namer: NewNamer(), ready: make(chan struct{}), log: log}
}

// KeepBodiesIn has the owner keep the packed tool bodies of later changes in a file it
// makes in dir (and removes at once, so it goes with the process) rather than on the
// heap. Where that file cannot be made or written, they stay on the heap.
func (o *Owner) KeepBodiesIn(dir string) { o.bodies.setDir(dir) }

// Namer is the process's Namer, which every catalog takes its names from.
func (o *Owner) Namer() *Namer { return o.namer }

// Ready is closed once the first catalog is published.
func (o *Owner) Ready() <-chan struct{} { return o.ready }

// Current returns the current catalog, waiting for the first one to be published.
func (o *Owner) Current() *Catalog {
	<-o.ready
	return o.cur.Load()
}

// Loaded returns the current catalog without waiting (nil before the first).
func (o *Owner) Loaded() *Catalog { return o.cur.Load() }

// Change is the one way the catalog changes: the startup load, refresh merges,
// list_changed, trust changes and packing all come here, one at a time, so none is lost to
// another and no registered name moves (names come from the process's Namer).
// It returns the new catalog and the names that could not be given as wanted.
func (o *Owner) Change(ch Change) (*Catalog, []Collision) {
	if !ch.Replace {
		<-o.ready // the first catalog is published by a replace; change that one
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var kept []Tool
	registered, unregistered := ch.Registered, ch.Unregistered
	var old *Catalog
	if !ch.Replace {
		old = o.cur.Load()
		registered, unregistered = make(map[ToolRef]bool, len(old.Entries)), map[ToolRef]string{}
		for _, e := range old.Entries {
			if e.Registered() {
				registered[e.Ref()] = true
			}
			why := ch.Unregistered[e.Ref()]
			if why != "" {
				e.body.registered = false
			} else {
				why = old.unregistered[e.Ref()]
			}
			if why != "" {
				unregistered[e.Ref()] = why
			}
			if _, put := ch.Tools[e.Server]; put || ch.Drop[e.Server] {
				continue
			}
			kept = append(kept, e)
		}
	}
	cat, collisions, refused := newCatalog(o.namer, kept, ch.Tools, ch.Drop, func(r ToolRef) bool {
		return unregistered[r] == "" && (registered == nil || registered[r])
	})
	for r, why := range unregistered {
		if _, ok := cat.LookupRef(r.Server, r.Tool); ok && why != "" {
			if cat.unregistered == nil {
				cat.unregistered = map[ToolRef]string{}
			}
			cat.unregistered[r] = why
		}
	}
	if old != nil && len(ch.Tools) == 0 && len(ch.Drop) == 0 {
		cat.catIndex = old.catIndex
	}
	if !ch.PackLater {
		if err := pack(cat.Entries, &o.bodies); err != nil {
			o.log.Warn().Err(err).Msg("tool descriptions not packed; they stay in memory as they are")
		}
	}
	for _, r := range refused {
		o.log.Warn().Str("server", r.Server).Str("tool", safetext.Escape(r.Tool)).Msg("tool left out: its name carries control or invisible characters")
	}
	for _, c := range collisions {
		o.log.Warn().Str("server", c.Ref.Server).Str("tool", c.Ref.Tool).Str("wanted", c.Wanted).Str("assigned", c.Assigned).Msg("tool name collision resolved")
	}
	o.cur.Store(cat)
	o.once.Do(func() { close(o.ready) })
	return cat, collisions
}

// Pack packs the bodies that the startup path left unpacked, keeping every name and
// mark as it is.
func (o *Owner) Pack() *Catalog {
	cat, _ := o.Change(Change{})
	return cat
}

// newCatalog builds a catalog of the kept entries (names and bodies as they are) and the
// tools of the servers in tools (except those in drop), named through namer (names given
// earlier in the process are kept, see Namer). registered says which new refs the host
// knows (the caller keeps the reasons of those it was not told of after all). A tool listed twice by one
// server is kept once; a tool whose name may not be offered (NameOffered) is left out and
// returned in refused. The new tools' text is cleaned (CleanTool).
func newCatalog(namer *Namer, kept []Tool, tools map[string][]cache.Tool, drop map[string]bool,
	registered func(ToolRef) bool) (c *Catalog, collisions []Collision, refused []ToolRef) {
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
			if !NameOffered(t.Name) {
				refused = append(refused, ToolRef{Server: server, Tool: t.Name})
				continue
			}
			refs = append(refs, ToolRef{Server: server, Tool: t.Name})
		}
	}
	names := make(map[ToolRef]givenName, len(refs))
	collisions = namer.assign(refs, func(i int, g givenName) { names[refs[i]] = g })
	c = &Catalog{Entries: make([]Tool, 0, len(kept)+len(refs)), catIndex: newCatIndex()}
	c.Entries = append(c.Entries, kept...)
	seen := make(map[ToolRef]bool, len(refs))
	anns := annotationSet{}
	for server, ts := range tools {
		if drop[server] {
			continue
		}
		for i := range ts {
			t := &ts[i]
			ref := ToolRef{Server: server, Tool: t.Name}
			if seen[ref] || !NameOffered(t.Name) {
				continue
			}
			seen[ref] = true
			t = CleanTool(t)
			g := names[ref] // its strings are the Namer's: one copy for every catalog
			c.Entries = append(c.Entries, Tool{Name: g.name, Server: g.ref.Server, Tool: Head{Name: g.ref.Tool, Annotations: anns.intern(t.Annotations)},
				body: toolBody{raw: t, registered: registered(ref)}})
		}
	}
	sort.Slice(c.Entries, func(i, j int) bool { return c.Entries[i].Name < c.Entries[j].Name })
	c.byRef = make([]int32, len(c.Entries))
	for i := range c.byRef {
		c.byRef[i] = int32(i)
	}
	slices.SortFunc(c.byRef, func(i, j int32) int { return CompareRefs(c.Entries[i].Ref(), c.Entries[j].Ref()) })
	return c, collisions, refused
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

// CompareRefs orders refs by server, then tool.
func CompareRefs(a, b ToolRef) int {
	if c := strings.Compare(a.Server, b.Server); c != 0 {
		return c
	}
	return strings.Compare(a.Tool, b.Tool)
}

// Lookup finds the entry of a registered name.
func (c *Catalog) Lookup(name string) (*Tool, bool) {
	i, ok := slices.BinarySearchFunc(c.Entries, name, func(e Tool, n string) int { return strings.Compare(e.Name, n) })
	if !ok {
		return nil, false
	}
	return &c.Entries[i], true
}

// LookupRef finds the entry of a server's tool.
func (c *Catalog) LookupRef(server, tool string) (*Tool, bool) {
	want := ToolRef{Server: server, Tool: tool}
	i, ok := slices.BinarySearchFunc(c.byRef, want, func(i int32, r ToolRef) int { return CompareRefs(c.Entries[i].Ref(), r) })
	if !ok {
		return nil, false
	}
	return &c.Entries[c.byRef[i]], true
}

// SearchIndex builds the index on first use (never on the startup path: the bridge
// starts it in the background after ready, so a search usually finds it built). Hit
// i.Doc is Entries[i].
func (c *Catalog) SearchIndex() *search.Index {
	c.once.Do(func() {
		docs := make([]search.Doc, len(c.Entries))
		for i := range c.Entries {
			docs[i] = docFor(&c.Entries[i])
		}
		c.index = search.New(docs)
		close(c.indexed)
	})
	return c.index
}

// Servers returns the sorted server names with their tool counts.
func (c *Catalog) Servers() ([]string, map[string]int) {
	counts := map[string]int{}
	for _, e := range c.Entries {
		counts[e.Server]++
	}
	names := slices.Sorted(maps.Keys(counts))
	return names, counts
}
