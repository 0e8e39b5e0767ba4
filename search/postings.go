package search

import "math"

// postingBlock is how many docs one block of a posting list spans: within a block a doc
// is its low 16 bits.
const postingBlock = 1 << 16

// postingStore holds every term's posting list, in doc order, as two flat arrays (the
// doc's low 16 bits and the posting's weight) rather than a slice of 8-byte postings per
// term: the postings are most of an idle index, and a slice header per term is three
// words where an offset is one. A catalog of more docs than a block spans splits each
// list into one run per block of postingBlock docs; below that every list is one run.
type postingStore struct {
	// start[t*blocks+b] is where term t's postings in block b begin; the run ends where
	// the next begins (start has one more entry than runs).
	start  []uint32
	doc    []uint16  // doc id modulo postingBlock
	sat    []float32 // see posting: negative for a word of the tool name proper
	blocks int
}

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
// block) run, then takes the postings of each term in doc order.
type postingFiller struct {
	ps   *postingStore
	next []uint32 // per run, where its next posting goes
}

// newPostingFiller makes the store for nt terms over n docs; count[t*blocks+b] is how
// many postings term t has in block b (postingBlocks(n) blocks).
func newPostingFiller(nt, n int, count []uint32) postingFiller {
	blocks := postingBlocks(n)
	ps := &postingStore{start: make([]uint32, nt*blocks+1), blocks: blocks}
	total := uint32(0)
	for r, c := range count[:nt*blocks] {
		ps.start[r] = total
		total += c
	}
	ps.start[nt*blocks] = total
	ps.doc = make([]uint16, total)
	ps.sat = make([]float32, total)
	return postingFiller{ps: ps, next: append([]uint32(nil), ps.start[:nt*blocks]...)}
}

// add appends p to term t's list; a term's postings must come in doc order.
func (f *postingFiller) add(t int32, p posting) {
	r := int(t)*f.ps.blocks + int(p.doc)/postingBlock
	i := f.next[r]
	f.next[r] = i + 1
	f.ps.doc[i] = uint16(p.doc % postingBlock)
	f.ps.sat[i] = p.sat
}

// len is how many postings term t has (its document frequency).
func (ps *postingStore) len(t int32) int {
	b := int(t) * ps.blocks
	return int(ps.start[b+ps.blocks] - ps.start[b])
}

// run returns term t's postings in block b: the docs' low 16 bits, their weights (as
// long as docs) and the doc id of the block's first doc, to add to each.
func (ps *postingStore) run(t int32, b int) (docs []uint16, sats []float32, base int32) {
	r := int(t)*ps.blocks + b
	lo, hi := ps.start[r], ps.start[r+1]
	docs = ps.doc[lo:hi]
	return docs, ps.sat[lo:hi:hi][:len(docs)], int32(b * postingBlock)
}
