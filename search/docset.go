package search

// docSet maps a lower-case name to the docs that bear it. Almost every name is borne by one
// doc, so that doc is kept in the map slot itself and only the rare longer lists are slices
// of their own: with a slice per name the exact-name maps were a tenth of an idle index.
type docSet struct {
	one  map[string]int32 // ≥ 0: the only doc; < 0: -1-i, the docs are many[i]
	many [][]int32
}

func newDocSet(size int) docSet {
	return docSet{one: make(map[string]int32, size)}
}

// add records that doc d bears name.
func (s *docSet) add(name string, d int32) {
	v, ok := s.one[name]
	switch {
	case !ok:
		s.one[name] = d
	case v >= 0:
		s.one[name] = int32(-1 - len(s.many))
		s.many = append(s.many, []int32{v, d})
	default:
		s.many[-1-v] = append(s.many[-1-v], d)
	}
}

// get returns the docs that bear name, in the order added (nil: none).
func (s *docSet) get(name string) []int32 {
	v, ok := s.one[name]
	switch {
	case !ok:
		return nil
	case v >= 0:
		return []int32{v}
	default:
		return s.many[-1-v]
	}
}

// lists returns every list of more than one doc, for sorting in place.
func (s *docSet) lists() [][]int32 { return s.many }
