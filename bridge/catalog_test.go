package bridge

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
)

// catalogBridge is a bridge with no servers, for driving catalog changes directly.
func catalogBridge(t *testing.T) *Bridge {
	t.Helper()
	return New(Options{ZotHome: t.TempDir(), Log: zerolog.New(testLog(t))})
}

// tools makes one server's tools, each with a description and schema naming it.
func tools(names ...string) []cache.Tool {
	out := make([]cache.Tool, len(names))
	for i, n := range names {
		out[i] = cache.Tool{Name: n, Description: "does " + n,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"` + n + `":{"type":"string"}}}`)}
	}
	return out
}

// TestCatalogNamesArePinned: whatever sequence of changes reaches the catalog (startup,
// refresh merges that add, remove and re-add tools, trust drops, packing), a registered
// name, once given, always names the same (server, tool), and each entry carries its own
// tool's description and schema.
func TestCatalogNamesArePinned(t *testing.T) {
	t.Parallel()
	steps := []struct {
		name string
		ch   catalogChange
	}{
		{"startup", catalogChange{replace: true, packLater: true, tools: map[string][]cache.Tool{"a": tools("x-y", "z"), "b": tools("q")}}},
		{"pack", catalogChange{}},
		// "x y" sanitises to the name a/x-y holds; it must not take it.
		{"refresh adds a colliding tool", catalogChange{tools: map[string][]cache.Tool{"a": tools("x y", "x-y", "z")}}},
		{"refresh removes the name's owner", catalogChange{tools: map[string][]cache.Tool{"a": tools("x y", "z")}}},
		{"a third tool wants the name", catalogChange{tools: map[string][]cache.Tool{"a": tools("x.y", "x y", "z")}}},
		{"untrust drops a server", catalogChange{drop: map[string]bool{"b": true}}},
		{"the owner comes back", catalogChange{tools: map[string][]cache.Tool{"a": tools("x-y", "x.y", "x y", "z"), "b": tools("q")}}},
	}
	b := catalogBridge(t)
	owner := map[string]ToolRef{}
	for _, st := range steps {
		cat, _ := b.changeCatalog(st.ch)
		for i := range cat.entries {
			e := &cat.entries[i]
			if was, ok := owner[e.Name]; ok && was != e.ref() {
				t.Fatalf("%s: %s moved from %v to %v", st.name, e.Name, was, e.ref())
			}
			owner[e.Name] = e.ref()
			if got := e.tool(); got.Description != "does "+e.Tool.Name || !strings.Contains(string(got.InputSchema), `"`+e.Tool.Name+`"`) {
				t.Fatalf("%s: %s carries %q %s", st.name, e.Name, got.Description, got.InputSchema)
			}
			if found, ok := cat.lookupRef(e.Server, e.Tool.Name); !ok || found != e {
				t.Fatalf("%s: lookupRef(%s, %s) does not find %s", st.name, e.Server, e.Tool.Name, e.Name)
			}
			if found, ok := cat.lookup(e.Name); !ok || found != e {
				t.Fatalf("%s: lookup(%s) fails", st.name, e.Name)
			}
		}
	}
	if got := owner["mcp__a__x_y"]; got != (ToolRef{"a", "x-y"}) {
		t.Fatalf("mcp__a__x_y belongs to %v", got)
	}
	if _, ok := b.catalog().lookup("mcp__b__q"); !ok {
		t.Fatal("the re-added server's tool is missing")
	}
}

// TestPackCatalog: packing moves every body out of its decoded form and changes nothing a
// reader sees: the same tools, names, marks, text and schemas, and the same search index.
func TestPackCatalog(t *testing.T) {
	t.Parallel()
	b := catalogBridge(t)
	long := strings.Repeat("é long description ", 400) // several bodies per block, several blocks
	ts := map[string][]cache.Tool{}
	for s := range 5 {
		var list []cache.Tool
		for i := range 40 {
			tl := cache.Tool{Name: fmt.Sprintf("t%d", i), Title: fmt.Sprintf("Title %d", i), Description: fmt.Sprintf("%d %s", i, long[:i*97]),
				InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"integer"}}}`, i))}
			if i%3 == 0 {
				tl.OutputSchema = json.RawMessage(`{"type":"object"}`)
				yes := true
				tl.Annotations = &cache.Annotations{ReadOnlyHint: &yes}
			}
			if i == 7 {
				tl.Description, tl.Title, tl.InputSchema = "", "", nil
			}
			list = append(list, tl)
		}
		ts[fmt.Sprintf("s%d", s)] = list
	}
	registered := map[ToolRef]bool{{"s1", "t3"}: true}
	before, _ := b.changeCatalog(catalogChange{replace: true, packLater: true, tools: ts, registered: registered})
	want := make([]cache.Tool, len(before.entries))
	for i := range before.entries {
		if before.entries[i].body.packed() {
			t.Fatal("packLater packed")
		}
		want[i] = before.entries[i].tool()
	}
	before.searchIndex()
	after := b.packCatalog()
	if len(after.entries) != len(before.entries) {
		t.Fatalf("%d entries after packing, %d before", len(after.entries), len(before.entries))
	}
	blocks := map[*bodyBlock]bool{}
	for i := range after.entries {
		e, was := &after.entries[i], &before.entries[i]
		if !e.body.packed() || e.body.raw != nil {
			t.Fatalf("%s is not packed", e.Name)
		}
		blocks[e.body.blk] = true
		if e.Name != was.Name || e.Registered != was.Registered || e.Tool != was.Tool {
			t.Fatalf("entry %d: %+v became %+v", i, was, e)
		}
		if got := e.tool(); !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("%s: packed %+v, was %+v", e.Name, got, want[i])
		}
		if e.body.inputSum() != was.body.inputSum() {
			t.Fatalf("%s: the schema sum changed by packing", e.Name)
		}
	}
	if len(blocks) < 2 || len(blocks) >= len(after.entries) {
		t.Fatalf("%d tools in %d blocks; want several tools per block and more than one block", len(after.entries), len(blocks))
	}
	if e, _ := after.lookupRef("s1", "t3"); !e.Registered {
		t.Fatal("the registered mark was lost")
	}
	if after.catIndex != before.catIndex {
		t.Fatal("packing dropped the search index built for the same tools")
	}
}

// TestBodyDamage: a packed body that does not decode gives an error naming the part, and
// entry.tool() falls back to the names only.
func TestBodyDamage(t *testing.T) {
	t.Parallel()
	es := []entry{{Name: "mcp__a__t", Server: "a", Tool: toolHead{Name: "t"}, body: toolBody{raw: &cache.Tool{Name: "t", Description: "d"}}}}
	if err := pack(es); err != nil {
		t.Fatal(err)
	}
	es[0].body.n = 2
	if _, err := es[0].body.load(); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("load of a cut body: %v", err)
	}
	es[0].body.off = 1 << 20
	if _, err := es[0].body.load(); err == nil || !strings.Contains(err.Error(), "outside its block") {
		t.Fatalf("load past the block: %v", err)
	}
	if got := es[0].tool(); got.Name != "t" || got.Description != "" {
		t.Fatalf("tool() of a damaged body: %+v", got)
	}
}

// TestNamerSharesNames: a name given earlier is handed out again as the same string, not
// a new copy, so every catalog and the Namer hold one copy of each name.
func TestNamerSharesNames(t *testing.T) {
	t.Parallel()
	n := NewNamer()
	refs := []ToolRef{{"srv", "get_item"}, {"srv", "get-item"}, {"a.b", "9x"}}
	first, _ := n.Assign(refs)
	again, _ := n.Assign(refs)
	for _, r := range refs {
		if first[r] != again[r] || unsafe.StringData(first[r]) != unsafe.StringData(again[r]) {
			t.Fatalf("%v: %q then a new copy %q", r, first[r], again[r])
		}
	}
}

// TestCatalogSharesToolStrings: a tool decoded again (the cache after a fast start, a
// refresh) enters the catalog with the strings the Namer already holds, not the new copy.
func TestCatalogSharesToolStrings(t *testing.T) {
	t.Parallel()
	b := catalogBridge(t)
	first, _ := b.changeCatalog(catalogChange{replace: true, tools: map[string][]cache.Tool{"srv": tools(strings.Clone("get_item"))}})
	again, _ := b.changeCatalog(catalogChange{tools: map[string][]cache.Tool{strings.Clone("srv"): tools(strings.Clone("get_item"))}})
	a, b2 := &first.entries[0], &again.entries[0]
	for _, c := range []struct{ what, x, y string }{{"name", a.Name, b2.Name}, {"server", a.Server, b2.Server}, {"tool", a.Tool.Name, b2.Tool.Name}} {
		if c.x != c.y || unsafe.StringData(c.x) != unsafe.StringData(c.y) {
			t.Errorf("%s: %q and a second copy %q", c.what, c.x, c.y)
		}
	}
}

// TestAnnotationsShared: equal annotations of different tools are one copy in the
// catalog; different ones stay apart and keep their values.
func TestAnnotationsShared(t *testing.T) {
	t.Parallel()
	yes, no, yes2 := true, false, true
	ts := tools("a", "b", "c", "d")
	ts[0].Annotations = &cache.Annotations{ReadOnlyHint: &yes}
	ts[1].Annotations = &cache.Annotations{ReadOnlyHint: &yes2}
	ts[2].Annotations = &cache.Annotations{ReadOnlyHint: &no}
	cat, _ := catalogBridge(t).changeCatalog(catalogChange{replace: true, tools: map[string][]cache.Tool{"s": ts}})
	get := func(tool string) *cache.Annotations {
		e, ok := cat.lookupRef("s", tool)
		if !ok {
			t.Fatalf("%s missing", tool)
		}
		return e.Tool.Annotations
	}
	if get("a") != get("b") {
		t.Error("equal annotations are two copies")
	}
	if get("c") == get("a") || *get("c").ReadOnlyHint || !*get("a").ReadOnlyHint {
		t.Error("different annotations were merged")
	}
	if get("d") != nil {
		t.Error("a tool without annotations got some")
	}
}
