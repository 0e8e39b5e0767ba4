package search

import (
	"math"
	"slices"
)

// postingBlock is how many docs one block of a posting list spans: within a block a doc
// is its low 16 bits.
const postingBlock = 1 << 16

// postingStore holds every term's posting list, in doc order, as flat arrays rather
// than a slice of 8-byte postings per term: the postings are most of an idle index, and a
// slice header per term is three words where an offset is one. A posting is a doc's low
// 16 bits and one byte: the place of its weight in its doc's table of weights. A weight
// depends only on the doc and on how often the term occurs in each of its fields, so a
// doc's forty-odd postings share about a dozen weights; a table per doc keeps each once.
// A catalog of more docs than a block spans splits each list into one run per block of
// postingBlock docs; below that every list is one run.
type postingStore struct {
	// start[t*blocks+b] is where term t's postings in block b begin; the run ends where
	// the next begins (start has one more entry than runs).
	start []uint32
	doc   []uint16 // doc id modulo postingBlock
	// slot is the posting's weight's place in its doc's table (weights[docWeights[d]:]),
	// or overSlot: the weight is in over, under the posting's place in doc.
	slot       []uint8
	docWeights []uint32  // per doc, where its table begins in weights
	weights    []float32 // see posting: negative for a word of the tool name proper
	over       map[uint32]float32
	blocks     int
}

// overSlot marks a posting whose weight did not fit its doc's table: a doc with more
// distinct weights than a byte can number.
const overSlot = math.MaxUint8

// posting is one (term, document) pair as the store gives it back: the
// saturated BM25F term frequency (tf/(k1+tf), so a query only multiplies by
// idf and weight) and whether the term is one of the words of the tool name
// proper, carried as the sign of sat.
type posting struct {
	doc int32
	sat float32 // negative: a word of the tool name proper
}

func newPosting(doc int32, sat float32, nameWord bool) posting {
	if nameWord {
		sat = -sat
	}
	return posting{doc: doc, sat: sat}
}

// weight is the saturated term frequency.
func (p posting) weight() float64 { return math.Abs(float64(p.sat)) }

// nameWord reports whether the term is a word of the tool name proper.
func (p posting) nameWord() bool { return math.Signbit(float64(p.sat)) }

// postingBlocks is how many blocks n docs take (at least one).
func postingBlocks(n int) int { return max(1, (n+postingBlock-1)/postingBlock) }

// postingFiller lays out a postingStore from the number of postings of each (term,
// block) run, then takes the postings doc by doc, in doc order.
type postingFiller struct {
	ps    *postingStore
	next  []uint32 // per run, where its next posting goes
	doc   int32    // the doc being filled, -1 before the first
	table map[float32]uint8
}

// newPostingFiller makes the store for nt terms over n docs; count[t*blocks+b] is how
// many postings term t has in block b (postingBlocks(n) blocks).
func newPostingFiller(nt, n int, count []uint32) postingFiller {
	blocks := postingBlocks(n)
	ps := &postingStore{start: make([]uint32, nt*blocks+1), blocks: blocks, docWeights: make([]uint32, n+1)}
	total := uint32(0)
	for r, c := range count[:nt*blocks] {
		ps.start[r] = total
		total += c
	}
	ps.start[nt*blocks] = total
	ps.doc = make([]uint16, total)
	ps.slot = make([]uint8, total)
	return postingFiller{ps: ps, next: append([]uint32(nil), ps.start[:nt*blocks]...), doc: -1, table: map[float32]uint8{}}
}

// add appends p to term t's list; postings must come doc by doc, in doc order.
func (f *postingFiller) add(t int32, p posting) {
	ps := f.ps
	for f.doc < p.doc {
		// The docs before p's, and those between, have their tables done.
		f.doc++
		ps.docWeights[f.doc] = uint32(len(ps.weights))
		clear(f.table)
	}
	r := int(t)*ps.blocks + int(p.doc)/postingBlock
	i := f.next[r]
	f.next[r] = i + 1
	ps.doc[i] = uint16(p.doc % postingBlock)
	k, ok := f.table[p.sat]
	if !ok {
		if len(f.table) == overSlot {
			if ps.over == nil {
				ps.over = map[uint32]float32{}
			}
			ps.over[i] = p.sat
			ps.slot[i] = overSlot
			return
		}
		k = uint8(len(f.table))
		f.table[p.sat] = k
		ps.weights = append(ps.weights, p.sat)
	}
	ps.slot[i] = k
}

// finish closes the tables of the last docs and returns the store.
func (f *postingFiller) finish() *postingStore {
	ps := f.ps
	for f.doc+1 < int32(len(ps.docWeights)) {
		f.doc++
		ps.docWeights[f.doc] = uint32(len(ps.weights))
	}
	// A copy of its exact length, since the array append grew is resident to its end.
	ps.weights = slices.Clone(ps.weights)
	return ps
}

// len is how many postings term t has (its document frequency).
func (ps *postingStore) len(t int32) int {
	b := int(t) * ps.blocks
	return int(ps.start[b+ps.blocks] - ps.start[b])
}

// run returns term t's postings in block b: the docs' low 16 bits, their weights' slots
// (as long as docs), the doc id of the block's first doc, to add to each, and the place
// of the run's first posting (for weight).
func (ps *postingStore) run(t int32, b int) (docs []uint16, slots []uint8, base int32, at uint32) {
	r := int(t)*ps.blocks + b
	lo, hi := ps.start[r], ps.start[r+1]
	docs = ps.doc[lo:hi]
	return docs, ps.slot[lo:hi:hi][:len(docs)], int32(b * postingBlock), lo
}

// weight is the weight (sat) of the posting at place i, of doc d, in slot k.
func (ps *postingStore) weight(d int32, k uint8, i uint32) float32 {
	if k == overSlot {
		return ps.over[i]
	}
	return ps.weights[ps.docWeights[d]+uint32(k)]
}
