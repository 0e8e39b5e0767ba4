package search

import "math"

// topK keeps the k best hits offered to it, best first (rank order: see
// better). It replaces a container/heap, whose interface boxed every pushed
// and popped hit: a query keeps only a dozen hits, so an ordered array that
// rejects a hit worse than its last with one comparison is as fast and
// allocates nothing once its array is reused.
type topK struct {
	hits []scored
	k    int
	// floor is a score below which a hit is not kept: the last hit's once
	// t holds k.
	floor float64
}

// newTopK returns a topK keeping k hits in the array of hits.
func newTopK(hits []scored, k int) topK {
	t := topK{hits: hits[:0], k: k, floor: math.Inf(-1)}
	if k == 0 {
		t.floor = math.Inf(1)
	}
	return t
}

// add offers x. Most hits offered score below the last one kept, so that
// test is all add does inline.
func (t *topK) add(x scored) {
	if x.score >= t.floor {
		t.insert(x)
	}
}

// insert puts x in its place, dropping the last hit, if t is not full or x
// ranks before its last hit. It is kept out of line so that add, which runs
// on every touched doc, inlines.
//
//go:noinline
func (t *topK) insert(x scored) {
	n := len(t.hits)
	if n == t.k {
		if n == 0 || !better(x, t.hits[n-1]) {
			return
		}
		n--
	} else {
		t.hits = append(t.hits, scored{})
	}
	// Its place is the first hit it ranks before, found by halving: the
	// hits are in rank order. Hits tying on score compare IDs, and copies
	// of a server (or siblings written from one template) tie often, so
	// walking from the end compared every tied ID.
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if better(x, t.hits[h]) {
			j = h
		} else {
			i = h + 1
		}
	}
	// A few hits move: assigning them beats copy's call into the runtime.
	for k := n; k > i; k-- {
		t.hits[k] = t.hits[k-1]
	}
	t.hits[i] = x
	if len(t.hits) == t.k {
		t.floor = t.hits[t.k-1].score
	}
}
