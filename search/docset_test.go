package search

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestDocSet: names borne by one doc and by several read back what was added, in the
// order added or by the tie-break given, whatever order the names came in; a name that
// is a prefix of another, or absent, reads back only its own docs. Each case runs with
// the names held as the docs' IDs, as the ends of their IDs (tool names), and held
// nowhere (kept aside by the set).
func TestDocSet(t *testing.T) {
	t.Parallel()
	type add struct {
		name string
		doc  int32
	}
	adds := []add{{"b", 0}, {"a", 1}, {"ab", 2}, {"a", 3}, {"c", 4}, {"a", 5}, {"b", 6}}
	cases := []struct {
		name string
		adds []add
		tie  func(a, b int32) int
		want map[string][]int32
	}{
		{"none", nil, nil, map[string][]int32{"a": nil, "": nil}},
		{"one", []add{{"x", 0}}, nil, map[string][]int32{"x": {0}, "": nil, "xx": nil, "w": nil, "y": nil}},
		{"order added", adds, nil, map[string][]int32{"a": {1, 3, 5}, "ab": {2}, "b": {0, 6}, "c": {4}, "": nil, "aa": nil, "d": nil}},
		{"by tie", adds, func(a, b int32) int { return int(b - a) }, map[string][]int32{"a": {5, 3, 1}, "b": {6, 0}, "c": {4}}},
		{"sorted already", []add{{"a", 0}, {"a", 1}, {"b", 2}}, nil, map[string][]int32{"a": {0, 1}, "b": {2}}},
	}
	holds := []struct {
		name  string
		tools bool
		meta  func(name string) docMeta
		aside bool // every name is kept by the set
	}{
		{"held as IDs", false, func(name string) docMeta { return docMeta{id: name} }, false},
		{"held as IDs in upper case", false, func(name string) docMeta { return docMeta{id: strings.ToUpper(name)} }, false},
		{"held as ends of IDs", true, func(name string) docMeta { return docMeta{id: "mcp__s__" + name, tool: uint16(len(name))} }, false},
		{"held nowhere", false, func(name string) docMeta { return docMeta{id: "MCP__" + name} }, true},
		{"tool names not ending their IDs", true, func(name string) docMeta { return docMeta{id: "x__" + name + "__y"} }, true},
	}
	for _, c := range cases {
		for _, h := range holds {
			t.Run(c.name+"/"+h.name, func(t *testing.T) {
				metas := make([]docMeta, len(c.adds))
				for _, a := range c.adds {
					metas[a.doc] = h.meta(a.name)
				}
				s := newDocSet(len(c.adds), h.tools)
				for _, a := range c.adds {
					s.add(metas, a.name, a.doc)
				}
				s.sort(metas, c.tie)
				for name, want := range c.want {
					if got := s.get(metas, name); !reflect.DeepEqual(got, want) {
						t.Errorf("get(%q) = %v, want %v", name, got, want)
					}
				}
				if want := map[bool]int{true: len(c.adds)}[h.aside]; len(s.lower) != want {
					t.Errorf("%d of %d names kept aside, want %d", len(s.lower), len(c.adds), want)
				}
			})
		}
	}
}

// TestDocSetsHoldNoNames: the exact-name sets of an index keep about a doc id per doc,
// reading the names from the docs' IDs, in lower case, for a catalog of names that end
// their IDs (as the bridge's do), in upper and lower case. Not parallel: it reads the
// heap's size.
func TestDocSetsHoldNoNames(t *testing.T) {
	const n = 20000
	metas := make([]docMeta, n)
	for d := range metas {
		tool := fmt.Sprintf("Tool_%d", d)
		metas[d] = docMeta{id: "mcp__server__" + tool, tool: uint16(len(tool))}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ids, tools := newDocSet(n, false), newDocSet(n, true)
	for d := range metas {
		ids.add(metas, strings.ToLower(metas[d].id), int32(d))
		tools.add(metas, fmt.Sprintf("tool_%d", d), int32(d))
	}
	ids.sort(metas, nil)
	tools.sort(metas, nil)
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if limit := int64(2*n*(4+1) + 64<<10); held > limit {
		t.Errorf("two sets of %d docs hold %d bytes, want at most %d (a doc id and a byte each)", n, held, limit)
	}
	for _, d := range []int32{0, 1, n / 2, n - 1} {
		if got := ids.get(metas, strings.ToLower(metas[d].id)); len(got) != 1 || got[0] != d {
			t.Errorf("ids.get(%q) = %v, want [%d]", metas[d].id, got, d)
		}
		if name := fmt.Sprintf("tool_%d", d); !reflect.DeepEqual(tools.get(metas, name), []int32{d}) {
			t.Errorf("tools.get(%q) = %v, want [%d]", name, tools.get(metas, name), d)
		}
	}
	runtime.KeepAlive(ids)
	runtime.KeepAlive(tools)
}

// TestExactNamesFoldCase: an exact ID or tool name finds its docs whatever the case of the
// query or of the name, tools of one name on several servers by ID ascending.
func TestExactNamesFoldCase(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		mk("zeta", "Read_File", "Read a file"),
		mk("alpha", "read_file", "Read a file"),
		mk("beta", "READ_FILE", "Read a file"),
		mk("beta", "write_file", "Write a file"),
	}
	ix := New(docs)
	for _, c := range []struct {
		q    string
		want []int
	}{
		{"read_file", []int{1, 2, 0}}, // mcp__alpha…, mcp__beta…, mcp__zeta…
		{"READ_FILE", []int{1, 2, 0}},
		{strings.ToUpper(docs[3].ID), []int{3}},
		{docs[0].ID, []int{0}},
	} {
		var got []int
		for _, h := range ix.Search(c.q, 10) {
			if h.Exact {
				got = append(got, h.Doc)
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Search(%q): exact hits %v, want %v", c.q, got, c.want)
		}
	}
}

// TestCompareKeys: comparing names read in lower case orders them as comparing their
// lower-case strings does, for ASCII, for letters whose lower case is longer or shorter in
// UTF-8 (İ, the Kelvin sign), for title-case and final-sigma letters and for invalid bytes.
func TestCompareKeys(t *testing.T) {
	t.Parallel()
	words := []string{"", "a", "A", "ab", "aB", "Ab", "b", "B", "a_b", "A_B", "read_File", "READ_FILE",
		"read_file", "İstanbul", "istanbul", "i̇stanbul", "K", "k", "\u212a", "ǅ", "ǆ", "ΣΑΣ", "σας", "ẞ", "ß",
		"É", "é", "e", "\xffA", "\xffa", "\uFFFDa", "z\xff", "Z"}
	sign := func(c int) int { return max(-1, min(1, c)) }
	for _, a := range words {
		for _, b := range words {
			la, lb := strings.ToLower(a), strings.ToLower(b)
			if got, want := sign(compareKeys(a, true, lb, false)), sign(strings.Compare(la, lb)); got != want {
				t.Errorf("compareKeys(%q folded, %q) = %d, want %d", a, lb, got, want)
			}
			if got, want := sign(compareKeys(a, true, b, true)), sign(strings.Compare(la, lb)); got != want {
				t.Errorf("compareKeys(%q folded, %q folded) = %d, want %d", a, b, got, want)
			}
			if got, want := sign(compareKeys(a, false, b, false)), sign(strings.Compare(a, b)); got != want {
				t.Errorf("compareKeys(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}
