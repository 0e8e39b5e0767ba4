package catalog

import (
	"math/rand"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"read_file":          "read_file",
		"resolve-library-id": "resolve_library_id",
		"a.b-c d":            "a_b_c_d",
		"2fa":                "t_2fa",
		"":                   "unnamed",
		"héllo":              "h_llo",
		"CamelCase":          "CamelCase",
		"日本":                 "__",    // a '_' a rune, not a byte
		"a\xe6\x97b":         "a__b",  // a cut rune: a '_' a byte
		"\u00e99":            "_9",    // a digit after a rune: no prefix
		"9-x":                "t_9_x", // unclean with a leading digit
		"-":                  "_",
	}
	for in, want := range cases {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

func TestAssignNamesLengthAndCollisions(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("very_long_tool_name_", 5)
	refs := []ToolRef{
		{"github", "create_issue"},
		{"a-b", "x"}, {"a_b", "x"}, // sanitise alike
		{"srv", "get-item"}, {"srv", "get_item"}, // sanitise alike within one server
		{"some-really-long-server-name", long + "1"},
		{"some-really-long-server-name", long + "2"}, // same 64-char prefix
	}
	names, collisions := NewNamer().Assign(refs)
	seen := map[string]ToolRef{}
	for ref, n := range names {
		if !validName.MatchString(n) || !strings.HasPrefix(n, Prefix) {
			t.Errorf("%v got invalid name %q", ref, n)
		}
		if other, dup := seen[n]; dup {
			t.Errorf("%v and %v share %q", ref, other, n)
		}
		seen[n] = ref
	}
	if names[ToolRef{"github", "create_issue"}] != "mcp__github__create_issue" {
		t.Errorf("plain name changed: %q", names[ToolRef{"github", "create_issue"}])
	}
	// The first in (server, tool) order keeps the plain name.
	if names[ToolRef{"a-b", "x"}] != "mcp__a_b__x" || names[ToolRef{"a_b", "x"}] == "mcp__a_b__x" {
		t.Errorf("collision winner not deterministic: %v", names)
	}
	if len(collisions) != 2 {
		t.Errorf("want 2 logged collisions, got %v", collisions)
	}
	// Any input order gives the same names.
	for i := 0; i < 20; i++ {
		shuffled := append([]ToolRef(nil), refs...)
		rand.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		again, _ := NewNamer().Assign(shuffled)
		for ref, n := range names {
			if again[ref] != n {
				t.Fatalf("order-dependent name for %v: %q vs %q", ref, again[ref], n)
			}
		}
	}
}

// TestNamerKeepsNames: a name once given stays with its tool. Before, assigning names
// afresh on every refresh moved mcp__a__x_y from a/x-y to a newly listed a/"x y" (which
// sorts first), so a host call reached the other tool.
func TestNamerKeepsNames(t *testing.T) {
	n := NewNamer()
	first, _ := n.Assign([]ToolRef{{"a", "x-y"}})
	if first[ToolRef{"a", "x-y"}] != "mcp__a__x_y" {
		t.Fatalf("first name %v", first)
	}
	again, collisions := n.Assign([]ToolRef{{"a", "x-y"}, {"a", "x y"}})
	if again[ToolRef{"a", "x-y"}] != "mcp__a__x_y" {
		t.Fatalf("a/x-y lost its name to a/\"x y\": %v", again)
	}
	if again[ToolRef{"a", "x y"}] == "mcp__a__x_y" || len(collisions) != 1 {
		t.Fatalf("the new tool took a given name: %v %v", again, collisions)
	}
	// A name given to a tool that has since disappeared is never handed to another one.
	later, _ := n.Assign([]ToolRef{{"a", "x y"}, {"a", "x.y"}})
	if later[ToolRef{"a", "x.y"}] == "mcp__a__x_y" {
		t.Fatalf("a removed tool's name was reused: %v", later)
	}
}

// TestNamerSuffixCollidesWithRealName: a hash-suffixed name that equals another tool's
// plain name is resolved. Before, a/"x-y" (second in line for mcp__a__x_y) was given
// mcp__a__x_y_<hash> even when a real tool a/x_y_<hash> held that plain name.
func TestNamerSuffixCollidesWithRealName(t *testing.T) {
	suffixed := "x_y_" + shortHash("a", "x-y")
	refs := []ToolRef{{"a", "x y"}, {"a", "x-y"}, {"a", suffixed}}
	names, _ := NewNamer().Assign(refs)
	seen := map[string]ToolRef{}
	for ref, name := range names {
		if other, dup := seen[name]; dup {
			t.Fatalf("%v and %v share %q", ref, other, name)
		}
		seen[name] = ref
	}
	if names[ToolRef{"a", suffixed}] != "mcp__a__"+suffixed {
		t.Fatalf("the real tool lost its plain name: %v", names)
	}
}

// TestAssignCopiesIntoOneText: the names a call gives out and the tools' strings the Namer
// keeps are copies in one string per call, not the caller's strings (pieces of a decoded
// listing, which would keep its pages resident), and read the same.
func TestAssignCopiesIntoOneText(t *testing.T) {
	t.Parallel()
	var refs []ToolRef
	for i := range 50 {
		// Each string an allocation of its own, as a decoder makes them.
		refs = append(refs, ToolRef{Server: strings.Clone("srv-" + strconv.Itoa(i%3)), Tool: strings.Clone("tool_" + strconv.Itoa(i))})
	}
	refs = append(refs, ToolRef{Server: "srv-0", Tool: "tool_0"})                // listed twice
	refs = append(refs, ToolRef{Server: "srv-1", Tool: strings.Clone("tool-x")}) // not in its name as it is
	n := NewNamer()
	names, _ := n.Assign(refs)
	if len(n.given) != 51 || len(names) != 51 {
		t.Fatalf("%d names given, %d returned; want 51", len(n.given), len(names))
	}
	lo, hi := uintptr(^uint(0)), uintptr(0)
	size := 0
	in := func(s string) {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		lo, hi = min(lo, p), max(hi, p+uintptr(len(s)))
	}
	servers := map[string]bool{}
	for i := range n.given {
		g := n.at(int32(i))
		ref := refs[slices.IndexFunc(refs, func(r ToolRef) bool { return r == g.ref })]
		if g.name != names[ref] || g.name != baseName(ref.Server, ref.Tool) {
			t.Errorf("given %d: %q for %v, want %q", i, g.name, g.ref, baseName(ref.Server, ref.Tool))
		}
		if unsafe.StringData(g.ref.Tool) == unsafe.StringData(ref.Tool) || unsafe.StringData(g.ref.Server) == unsafe.StringData(ref.Server) {
			t.Errorf("given %d keeps the caller's strings of %v", i, ref)
		}
		in(g.name)
		in(g.ref.Tool)
		size += len(g.name)
		if strings.HasSuffix(g.name, g.ref.Tool) {
			// The tool's name is the end of the registered name: the same bytes.
			if unsafe.StringData(g.ref.Tool) != unsafe.StringData(g.name[len(g.name)-len(g.ref.Tool):]) {
				t.Errorf("given %d: tool %q is not the end of the name %q", i, g.ref.Tool, g.name)
			}
		} else {
			size += len(g.ref.Tool)
		}
		if !servers[g.ref.Server] {
			servers[g.ref.Server] = true
			in(g.ref.Server)
			size += len(g.ref.Server)
		}
	}
	if int(hi-lo) != size {
		t.Errorf("the names and tools' strings span %d bytes, want one text of %d", hi-lo, size)
	}
	// A later call gives the same names back without copying again.
	again, _ := n.Assign(refs[:3])
	for _, r := range refs[:3] {
		if again[r] != names[r] || unsafe.StringData(again[r]) != unsafe.StringData(names[r]) {
			t.Errorf("%v: %q the second time, want the same %q", r, again[r], names[r])
		}
	}
}

// TestNameTable: names added one by one from an empty table (growing it many times) are
// each found at their place, by bytes and as strings; names never added, a prefix of one
// and the empty name are not.
func TestNameTable(t *testing.T) {
	t.Parallel()
	for _, size := range []int{0, 1, 12, 13, 1000} {
		var given []givenEntry
		tab := newNameTable()
		for i := range size {
			given = append(given, givenEntry{name: "mcp__s__t" + strconv.Itoa(i)})
			tab.add(given, int32(i))
		}
		for i, g := range given {
			if at, ok := tab.find(given, []byte(g.name)); !ok || at != int32(i) {
				t.Errorf("size %d: find(%q) = %d, %v; want %d", size, g.name, at, ok, i)
			}
			if !tab.has(given, g.name) {
				t.Errorf("size %d: has(%q) false", size, g.name)
			}
		}
		for _, absent := range []string{"", "mcp__s__t", "mcp__s__t" + strconv.Itoa(size), "x"} {
			if _, ok := tab.find(given, []byte(absent)); ok || tab.has(given, absent) {
				t.Errorf("size %d: %q found", size, absent)
			}
		}
		if 4*tab.n > 3*len(tab.slots) && size > 0 {
			t.Errorf("size %d: %d names in %d slots", size, tab.n, len(tab.slots))
		}
	}
}

// TestNamerRetainsLittle: what a Namer keeps per name given, beyond the caller's strings,
// is its given entry, the name and tool's bytes and a table slot or two — no map entry
// and no small allocation per name. Not parallel: it reads the heap's size.
func TestNamerRetainsLittle(t *testing.T) {
	const n = 20000
	refs := make([]ToolRef, n)
	text := 0
	for i := range refs {
		refs[i] = ToolRef{Server: "server" + strconv.Itoa(i%50), Tool: "tool_" + strconv.Itoa(i)}
		text += len(baseName(refs[i].Server, refs[i].Tool)) // the tool's name is its end
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	namer := NewNamer()
	namer.assign(refs, func(int, givenName) {})
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(namer)
	runtime.KeepAlive(refs)
	budget := n*(int(unsafe.Sizeof(givenEntry{}))+2*4) + text + 64<<10
	if kept := int(after.HeapAlloc) - int(before.HeapAlloc); kept > budget {
		t.Errorf("the Namer keeps %d bytes for %d names (%.1f a name), want at most %d (%.1f)", kept, n, float64(kept)/n, budget, float64(budget)/n)
	}
}

// TestRenamingAllocatesNoText: naming refs that all have their names already (every
// refresh of the catalog does, in order) allocates the names slice and little else, no text sized
// for names that are never made. Not parallel: it reads the heap's allocation count.
func TestRenamingAllocatesNoText(t *testing.T) {
	const n = 20000
	refs := make([]ToolRef, n)
	for i := range refs {
		refs[i] = ToolRef{Server: "server" + strconv.Itoa(100+i/400), Tool: "tool_" + strconv.Itoa(100000+i)}
	}
	namer := NewNamer()
	namer.Names(refs)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	names, _ := namer.Names(refs)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(names)
	budget := n*int(unsafe.Sizeof("")) + 16<<10
	if got := int(after.TotalAlloc - before.TotalAlloc); got > budget {
		t.Errorf("naming %d named refs again allocates %d bytes, want at most %d", n, got, budget)
	}
}

// TestNamesByIndex: Names gives refs[i]'s name at i, the name Assign gives it with the same
// history, whatever the order the refs come in: sorted or not, a ref listed twice (side by
// side or apart) getting its one name at both places, tools that sanitise alike (the first
// in (server, tool) order keeps the plain name), names given earlier kept, and servers
// whose tools interleave with another's in the input.
func TestNamesByIndex(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("very_long_tool_name_", 5)
	xy := "mcp__a__x_y_" + shortHash("a", "x-y")
	cases := []struct {
		name    string
		earlier []ToolRef // assigned first, on the same Namer
		refs    []ToolRef
		want    []string // "" : only checked against Assign
	}{
		{name: "none"},
		{name: "sorted", refs: []ToolRef{{"a", "x"}, {"a", "y"}, {"b", "x"}},
			want: []string{"mcp__a__x", "mcp__a__y", "mcp__b__x"}},
		{name: "unsorted", refs: []ToolRef{{"b", "x"}, {"a", "y"}, {"a", "x"}},
			want: []string{"mcp__b__x", "mcp__a__y", "mcp__a__x"}},
		{name: "listed twice apart", refs: []ToolRef{{"a", "x"}, {"b", "x"}, {"a", "x"}, {"a", "y"}},
			want: []string{"mcp__a__x", "mcp__b__x", "mcp__a__x", "mcp__a__y"}},
		{name: "listed twice side by side", refs: []ToolRef{{"a", "x-y"}, {"a", "x-y"}, {"a", "x y"}},
			want: []string{xy, xy, "mcp__a__x_y"}},
		{name: "sanitise alike, the first in order wins", refs: []ToolRef{{"a", "x-y"}, {"a", "x y"}},
			want: []string{xy, "mcp__a__x_y"}},
		{name: "servers sanitise alike", refs: []ToolRef{{"a_b", "x"}, {"a-b", "x"}},
			want: []string{"mcp__a_b__x_" + shortHash("a_b", "x"), "mcp__a_b__x"}},
		{name: "a suffixed name a real tool holds", refs: []ToolRef{{"a", "x y"}, {"a", "x-y"}, {"a", strings.TrimPrefix(xy, "mcp__a__")}}},
		{name: "long names", refs: []ToolRef{{"some-server", long + "2"}, {"some-server", long + "1"}, {"some-server", long + "1"}}},
		{name: "kept from earlier", earlier: []ToolRef{{"a", "x y"}, {"b", "z"}},
			refs: []ToolRef{{"b", "z"}, {"a", "x-y"}, {"a", "x y"}, {"a", "w"}},
			want: []string{"mcp__b__z", "mcp__a__x_y_" + shortHash("a", "x-y"), "mcp__a__x_y", "mcp__a__w"}},
		{name: "unclean and non-ASCII", refs: []ToolRef{{"srv.1", "2fa"}, {"srv.1", "h\u00e9llo"}, {"srv.1", "a\xffb"}, {"srv.1", ""}},
			want: []string{"mcp__srv_1__t_2fa", "mcp__srv_1__h_llo", "mcp__srv_1__a_b", "mcp__srv_1__unnamed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			byIndex, byRef := NewNamer(), NewNamer()
			byIndex.Assign(tc.earlier)
			byRef.Assign(tc.earlier)
			names, collisions := byIndex.Names(tc.refs)
			want, wantCollisions := byRef.Assign(tc.refs)
			if len(names) != len(tc.refs) {
				t.Fatalf("%d names for %d refs", len(names), len(tc.refs))
			}
			for i, ref := range tc.refs {
				if names[i] != want[ref] {
					t.Errorf("names[%d] (%v) = %q, Assign gives %q", i, ref, names[i], want[ref])
				}
				if tc.want != nil && names[i] != tc.want[i] {
					t.Errorf("names[%d] (%v) = %q, want %q", i, ref, names[i], tc.want[i])
				}
			}
			if !reflect.DeepEqual(collisions, wantCollisions) {
				t.Errorf("collisions %v, Assign gives %v", collisions, wantCollisions)
			}
			// Every ref named once, whatever the input order: one entry per distinct ref.
			distinct := map[ToolRef]bool{}
			for _, r := range append(slices.Clone(tc.earlier), tc.refs...) {
				distinct[r] = true
			}
			if len(byIndex.given) != len(distinct) {
				t.Errorf("%d names given for %d distinct refs", len(byIndex.given), len(distinct))
			}
		})
	}
}
