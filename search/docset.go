package search

import (
	"cmp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// docSet maps a lower-case name to the docs that bear it: the docs in one array sorted
// by name, read by binary search. A doc's name is not stored: it is the index's own
// string (the doc's ID, or for a set of tool names the end of the ID that docMeta.tool
// spans) in lower case: as it is, or when the doc holds it in mixed case read as lower
// case at each comparison (compareKeys); only a name that is not what the doc holds is
// kept, in lower. Almost every name is borne by one doc and held by it, so a set costs
// about a doc id and a byte per doc, where a map of every name or a string per doc would
// be a large share of an idle index.
type docSet struct {
	docs  []int32
	lower map[int32]string // the names that are not held, as they are
	how   []uint8          // per doc, how its name is read: held as it is (nil: every doc), heldFolded, keptAside
	tools bool             // names are held as the end of the ID, not as the ID
}

// How a docSet reads a doc's name (docSet.how).
const (
	heldAsIs   = iota
	heldFolded // held in mixed case: read in lower case
	keptAside  // in lower
)

// newDocSet makes a set for size docs; tools says where their names are held.
func newDocSet(size int, tools bool) docSet {
	return docSet{docs: make([]int32, 0, size), tools: tools}
}

// held is the string doc d holds its name in (before lower case), of the docs' metas.
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
	s.docs = append(s.docs, d)
	held := s.held(metas, d)
	if held == name {
		return
	}
	if s.how == nil {
		s.how = make([]uint8, len(metas))
	}
	if compareKeys(held, true, name, false) == 0 {
		s.how[d] = heldFolded
		return
	}
	if s.lower == nil {
		s.lower = map[int32]string{}
	}
	s.how[d], s.lower[d] = keptAside, name
}

// key is the name doc d was added with: the string, and whether it is to be read in
// lower case.
func (s *docSet) key(metas []docMeta, d int32) (string, bool) {
	if s.how == nil {
		return s.held(metas, d), false
	}
	switch s.how[d] {
	case heldFolded:
		return s.held(metas, d), true
	case keptAside:
		return s.lower[d], false
	}
	return s.held(metas, d), false
}

// compare compares the names of docs a and b.
func (s *docSet) compare(metas []docMeta, a, b int32) int {
	ka, fa := s.key(metas, a)
	kb, fb := s.key(metas, b)
	return compareKeys(ka, fa, kb, fb)
}

// compareKeys compares a and b as strings.Compare does, each in lower case first
// (strings.ToLower) when its fold says so, without making the lower-case strings.
func compareKeys(a string, foldA bool, b string, foldB bool) int {
	if !foldA && !foldB {
		return strings.Compare(a, b)
	}
	for a != "" && b != "" {
		ra, na := keyRune(a, foldA)
		rb, nb := keyRune(b, foldB)
		if ra != rb {
			// Code points order as their UTF-8 encodings do.
			return cmp.Compare(ra, rb)
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// keyRune is the first rune of s, in lower case when fold says so, as strings.ToLower
// writes it (an invalid byte is utf8.RuneError), and its length in s.
func keyRune(s string, fold bool) (rune, int) {
	if c := s[0]; c < utf8.RuneSelf {
		if fold && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		return rune(c), 1
	}
	r, n := utf8.DecodeRuneInString(s)
	if fold {
		r = unicode.ToLower(r)
	}
	return r, n
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
	if c := b.s.compare(b.metas, di, dj); c != 0 {
		return c < 0
	}
	return b.tie(di, dj) < 0
}
func (b byName) Swap(i, j int) { b.s.docs[i], b.s.docs[j] = b.s.docs[j], b.s.docs[i] }

// get returns the docs that bear name, in the order sort left them (nil: none). The
// result is the set's own: the caller must not change it.
func (s *docSet) get(metas []docMeta, name string) []int32 {
	at := func(i int) int {
		k, fold := s.key(metas, s.docs[i])
		return compareKeys(k, fold, name, false)
	}
	lo := sort.Search(len(s.docs), func(i int) bool { return at(i) >= 0 })
	hi := lo
	for hi < len(s.docs) && at(hi) == 0 {
		hi++
	}
	if hi == lo {
		return nil
	}
	return s.docs[lo:hi:hi]
}
