package search

import (
	"cmp"
	"sort"
)

// docSet maps a lower-case name to the docs that bear it: the docs in one array sorted
// by name, read by binary search. A doc's name is not stored: it is read from the
// index's own strings (the doc's ID, or for a set of tool names the end of the ID that
// docMeta.tool spans), and only a name other than the one held there (one not in lower
// case, say) is kept, in lower. Almost every name is
// borne by one doc and held in lower case, so a set costs about a doc id per doc: a map
// of every name was a tenth of an idle index, a string header per doc another few
// percent.
type docSet struct {
	docs  []int32
	lower map[int32]string // the names that are not held
	tools bool             // names are held as the end of the ID, not as the ID
}

// newDocSet makes a set for size docs; tools says where their names are held.
func newDocSet(size int, tools bool) docSet {
	return docSet{docs: make([]int32, 0, size), tools: tools}
}

// held is the name doc d holds, of the docs' metas.
func (s *docSet) held(metas []docMeta, d int32) string {
	m := &metas[d]
	if s.tools {
		return m.id[len(m.id)-int(m.tool):]
	}
	return m.id
}

// add records that doc d bears name. Docs are added in ascending order; sort must run
// before get. metas are the docs' metas, the same for every call.
func (s *docSet) add(metas []docMeta, name string, d int32) {
	if s.held(metas, d) != name {
		if s.lower == nil {
			s.lower = map[int32]string{}
		}
		s.lower[d] = name
	}
	s.docs = append(s.docs, d)
}

// name is the name doc d was added with.
func (s *docSet) name(metas []docMeta, d int32) string {
	if n, ok := s.lower[d]; ok {
		return n
	}
	return s.held(metas, d)
}

// sort orders the set by name and the docs of one name by tie (nil: in the order added),
// in place.
func (s *docSet) sort(metas []docMeta, tie func(a, b int32) int) {
	if tie == nil {
		// Docs are added in ascending order.
		tie = func(a, b int32) int { return cmp.Compare(a, b) }
	}
	by := byName{s, metas, tie}
	if !sort.IsSorted(by) { // the catalog gives its docs in ID order
		sort.Sort(by)
	}
}

// byName sorts a docSet by name, then tie: a total order, as a doc is in a set once.
type byName struct {
	s     *docSet
	metas []docMeta
	tie   func(a, b int32) int
}

func (b byName) Len() int { return len(b.s.docs) }
func (b byName) Less(i, j int) bool {
	di, dj := b.s.docs[i], b.s.docs[j]
	if c := cmp.Compare(b.s.name(b.metas, di), b.s.name(b.metas, dj)); c != 0 {
		return c < 0
	}
	return b.tie(di, dj) < 0
}
func (b byName) Swap(i, j int) { b.s.docs[i], b.s.docs[j] = b.s.docs[j], b.s.docs[i] }

// get returns the docs that bear name, in the order sort left them (nil: none). The
// result is the set's own: the caller must not change it.
func (s *docSet) get(metas []docMeta, name string) []int32 {
	lo := sort.Search(len(s.docs), func(i int) bool { return s.name(metas, s.docs[i]) >= name })
	hi := lo
	for hi < len(s.docs) && s.name(metas, s.docs[hi]) == name {
		hi++
	}
	if hi == lo {
		return nil
	}
	return s.docs[lo:hi:hi]
}
