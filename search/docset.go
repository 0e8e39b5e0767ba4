package search

import (
	"cmp"
	"sort"
)

// docSet maps a lower-case name to the docs that bear it: the names and their docs in two
// arrays sorted by name, read by binary search. Almost every name is borne by one doc, and
// the names are the docs' own strings (a lower-case name is not copied), so a set costs
// about a string header and a doc id per doc: a map of every name was a tenth of an idle
// index.
type docSet struct {
	names []string
	docs  []int32
}

func newDocSet(size int) docSet {
	return docSet{names: make([]string, 0, size), docs: make([]int32, 0, size)}
}

// add records that doc d bears name. Docs are added in ascending order; sort must run
// before get.
func (s *docSet) add(name string, d int32) {
	s.names = append(s.names, name)
	s.docs = append(s.docs, d)
}

// sort orders the set by name and the docs of one name by tie (nil: in the order added),
// in place.
func (s *docSet) sort(tie func(a, b int32) int) {
	if tie == nil {
		// Docs are added in ascending order.
		tie = func(a, b int32) int { return cmp.Compare(a, b) }
	}
	by := byName{s, tie}
	if !sort.IsSorted(by) { // the catalog gives its docs in ID order
		sort.Sort(by)
	}
}

// byName sorts a docSet by name, then tie: a total order, as a doc is in a set once.
type byName struct {
	s   *docSet
	tie func(a, b int32) int
}

func (b byName) Len() int { return len(b.s.names) }
func (b byName) Less(i, j int) bool {
	if c := cmp.Compare(b.s.names[i], b.s.names[j]); c != 0 {
		return c < 0
	}
	return b.tie(b.s.docs[i], b.s.docs[j]) < 0
}
func (b byName) Swap(i, j int) {
	b.s.names[i], b.s.names[j] = b.s.names[j], b.s.names[i]
	b.s.docs[i], b.s.docs[j] = b.s.docs[j], b.s.docs[i]
}

// get returns the docs that bear name, in the order sort left them (nil: none). The
// result is the set's own: the caller must not change it.
func (s *docSet) get(name string) []int32 {
	lo := sort.SearchStrings(s.names, name)
	hi := lo
	for hi < len(s.names) && s.names[hi] == name {
		hi++
	}
	if hi == lo {
		return nil
	}
	return s.docs[lo:hi:hi]
}
