package search

import (
	"reflect"
	"strings"
	"testing"
)

// TestDocSet: names borne by one doc and by several read back what was added, in the
// order added or by the tie-break given, whatever order the names came in; a name that
// is a prefix of another, or absent, reads back only its own docs.
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
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newDocSet(len(c.adds))
			for _, a := range c.adds {
				s.add(a.name, a.doc)
			}
			s.sort(c.tie)
			for name, want := range c.want {
				if got := s.get(name); !reflect.DeepEqual(got, want) {
					t.Errorf("get(%q) = %v, want %v", name, got, want)
				}
			}
		})
	}
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
