package catalog

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
)

// catalogOwner is an Owner with no catalog yet, logging to the test.
func catalogOwner(t *testing.T) *Owner {
	t.Helper()
	return NewOwner(zerolog.New(zerolog.NewTestWriter(t)))
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
	steps := []struct {
		name string
		ch   Change
	}{
		{"startup", Change{Replace: true, PackLater: true, Tools: map[string][]cache.Tool{"a": tools("x-y", "z"), "b": tools("q")}}},
		{"pack", Change{}},
		// "x y" sanitises to the name a/x-y holds; it must not take it.
		{"refresh adds a colliding tool", Change{Tools: map[string][]cache.Tool{"a": tools("x y", "x-y", "z")}}},
		{"refresh removes the name's owner", Change{Tools: map[string][]cache.Tool{"a": tools("x y", "z")}}},
		{"a third tool wants the name", Change{Tools: map[string][]cache.Tool{"a": tools("x.y", "x y", "z")}}},
		{"untrust drops a server", Change{Drop: map[string]bool{"b": true}}},
		{"the owner comes back", Change{Tools: map[string][]cache.Tool{"a": tools("x-y", "x.y", "x y", "z"), "b": tools("q")}}},
	}
	b := catalogOwner(t)
	owner := map[string]ToolRef{}
	for _, st := range steps {
		cat, _ := b.Change(st.ch)
		for i := range cat.Entries {
			e := &cat.Entries[i]
			if was, ok := owner[e.Name]; ok && was != e.Ref() {
				t.Fatalf("%s: %s moved from %v to %v", st.name, e.Name, was, e.Ref())
			}
			owner[e.Name] = e.Ref()
			if got := e.CacheTool(); got.Description != "does "+e.Tool.Name || !strings.Contains(string(got.InputSchema), `"`+e.Tool.Name+`"`) {
				t.Fatalf("%s: %s carries %q %s", st.name, e.Name, got.Description, got.InputSchema)
			}
			if found, ok := cat.LookupRef(e.Server, e.Tool.Name); !ok || found != e {
				t.Fatalf("%s: lookupRef(%s, %s) does not find %s", st.name, e.Server, e.Tool.Name, e.Name)
			}
			if found, ok := cat.Lookup(e.Name); !ok || found != e {
				t.Fatalf("%s: lookup(%s) fails", st.name, e.Name)
			}
		}
	}
	if got := owner["mcp__a__x_y"]; got != (ToolRef{"a", "x-y"}) {
		t.Fatalf("mcp__a__x_y belongs to %v", got)
	}
	if _, ok := b.Current().Lookup("mcp__b__q"); !ok {
		t.Fatal("the re-added server's tool is missing")
	}
}

// TestPackCatalog: packing moves every body out of its decoded form and changes nothing a
// reader sees: the same tools, names, marks, text and schemas, and the same search index.
func TestPackCatalog(t *testing.T) {
	b := catalogOwner(t)
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
	before, _ := b.Change(Change{Replace: true, PackLater: true, Tools: ts, Registered: registered})
	want := make([]cache.Tool, len(before.Entries))
	for i := range before.Entries {
		if before.Entries[i].body.packed() {
			t.Fatal("packLater packed")
		}
		want[i] = before.Entries[i].CacheTool()
	}
	before.SearchIndex()
	after := b.Pack()
	if len(after.Entries) != len(before.Entries) {
		t.Fatalf("%d entries after packing, %d before", len(after.Entries), len(before.Entries))
	}
	blocks := map[*bodyBlock]bool{}
	for i := range after.Entries {
		e, was := &after.Entries[i], &before.Entries[i]
		if !e.body.packed() || e.body.raw != nil {
			t.Fatalf("%s is not packed", e.Name)
		}
		blocks[e.body.blk] = true
		if e.Name != was.Name || e.Registered() != was.Registered() || e.Tool != was.Tool {
			t.Fatalf("entry %d: %+v became %+v", i, was, e)
		}
		if got := e.CacheTool(); !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("%s: packed %+v, was %+v", e.Name, got, want[i])
		}
		if e.body.inputSum() != was.body.inputSum() {
			t.Fatalf("%s: the schema sum changed by packing", e.Name)
		}
	}
	if len(blocks) < 2 || len(blocks) >= len(after.Entries) {
		t.Fatalf("%d tools in %d blocks; want several tools per block and more than one block", len(after.Entries), len(blocks))
	}
	if e, _ := after.LookupRef("s1", "t3"); !e.Registered() {
		t.Fatal("the registered mark was lost")
	}
	if after.catIndex != before.catIndex {
		t.Fatal("packing dropped the search index built for the same tools")
	}
}

// TestBodyDamage: a packed body that does not decode gives an error naming the part, and
// entry.CacheTool() falls back to the names only.
func TestBodyDamage(t *testing.T) {
	es := []Tool{{Name: "mcp__a__t", Server: "a", Tool: Head{Name: "t"}, body: toolBody{raw: &cache.Tool{Name: "t", Description: "d"}}}}
	if err := pack(es, nil); err != nil {
		t.Fatal(err)
	}
	es[0].body.n = 2
	if _, err := es[0].body.load(); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("load of a cut body: %v", err)
	}
	es[0].body.off = 1<<16 - 1
	if _, err := es[0].body.load(); err == nil || !strings.Contains(err.Error(), "outside its block") {
		t.Fatalf("load past the block: %v", err)
	}
	if got := es[0].CacheTool(); got.Name != "t" || got.Description != "" {
		t.Fatalf("tool() of a damaged body: %+v", got)
	}
}

// TestNamerSharesNames: a name given earlier is handed out again as the same string, not
// a new copy, so every catalog and the Namer hold one copy of each name.
func TestNamerSharesNames(t *testing.T) {
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
	b := catalogOwner(t)
	first, _ := b.Change(Change{Replace: true, Tools: map[string][]cache.Tool{"srv": tools(strings.Clone("get_item"))}})
	again, _ := b.Change(Change{Tools: map[string][]cache.Tool{strings.Clone("srv"): tools(strings.Clone("get_item"))}})
	a, b2 := &first.Entries[0], &again.Entries[0]
	for _, c := range []struct{ what, x, y string }{{"name", a.Name, b2.Name}, {"server", a.Server, b2.Server}, {"tool", a.Tool.Name, b2.Tool.Name}} {
		if c.x != c.y || unsafe.StringData(c.x) != unsafe.StringData(c.y) {
			t.Errorf("%s: %q and a second copy %q", c.what, c.x, c.y)
		}
	}
}

// TestAnnotationsShared: equal annotations of different tools are one copy in the
// catalog; different ones stay apart and keep their values.
func TestAnnotationsShared(t *testing.T) {
	yes, no, yes2 := true, false, true
	ts := tools("a", "b", "c", "d")
	ts[0].Annotations = &cache.Annotations{ReadOnlyHint: &yes}
	ts[1].Annotations = &cache.Annotations{ReadOnlyHint: &yes2}
	ts[2].Annotations = &cache.Annotations{ReadOnlyHint: &no}
	cat, _ := catalogOwner(t).Change(Change{Replace: true, Tools: map[string][]cache.Tool{"s": ts}})
	get := func(tool string) *cache.Annotations {
		e, ok := cat.LookupRef("s", tool)
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

// TestToolEntryIsSmall: an idle bridge holds one Tool per tool of every server, so each
// field of it is paid for by every tool. The reason a startup tool was not registered,
// which almost no tool has, is the catalog's (Catalog.Unregistered), not a string field
// of each entry.
func TestToolEntryIsSmall(t *testing.T) {
	const want = 96 // three strings, the annotations, the registered mark and the body
	if got := unsafe.Sizeof(Tool{}); got > want {
		t.Fatalf("a catalog entry (catalog.Tool) is %d bytes, want at most %d", got, want)
	}
}

// TestPackOffsetsAtBlockEdge: a body's place in its block is kept in 16 bits, so the
// tools that start last in a block, and those after a body bigger than 16 bits can
// number, must read back whole.
func TestPackOffsetsAtBlockEdge(t *testing.T) {
	cases := []struct {
		name  string
		sizes []int // description lengths, in order
	}{
		{"fills the block exactly", []int{bodyBlockSize/2 - 8, bodyBlockSize/2 - 8, 10}},
		{"starts just before the block is full", []int{bodyBlockSize - 20, 100, 5}},
		{"a body bigger than 16 bits", []int{bodyBlockSize - 100, 3 << 16, 7, 9}},
		{"many small ones", slices.Repeat([]int{997}, 200)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var es []Tool
			for i, n := range c.sizes {
				d := strings.Repeat(string(rune('a'+i%26)), n)
				es = append(es, Tool{Name: fmt.Sprintf("mcp__a__t%d", i), Server: "a", Tool: Head{Name: fmt.Sprintf("t%d", i)},
					body: toolBody{raw: &cache.Tool{Description: d, InputSchema: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}}})
			}
			if err := pack(es, nil); err != nil {
				t.Fatal(err)
			}
			for i, n := range c.sizes {
				got, err := es[i].body.load()
				want := strings.Repeat(string(rune('a'+i%26)), n)
				if err != nil || got.Description != want || string(got.InputSchema) != fmt.Sprintf(`{"n":%d}`, i) {
					t.Fatalf("tool %d (of %d bytes) reads back as %d bytes, schema %s, err %v", i, n, len(got.Description), got.InputSchema, err)
				}
			}
		})
	}
}
