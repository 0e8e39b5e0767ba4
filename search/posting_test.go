package search

import (
	"fmt"
	"reflect"
	"testing"
)

// TestPostingPacksNameWord: a posting carries the name-word mark in the sign of its
// weight; both read back unchanged.
func TestPostingPacksNameWord(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sat  float32
		name bool
	}{{0.5, true}, {0.5, false}, {0.000001, true}, {0.99, false}} {
		p := newPosting(7, c.sat, c.name)
		if p.doc != 7 || p.weight() != float64(c.sat) || p.nameWord() != c.name {
			t.Errorf("newPosting(7, %v, %v) reads back as doc %d, weight %v, name word %v", c.sat, c.name, p.doc, p.weight(), p.nameWord())
		}
	}
}

// storeLists fills a postingStore for n docs with lists (per term, in doc order) and
// returns it.
func storeLists(n int, lists [][]posting) *postingStore {
	blocks := postingBlocks(n)
	count := make([]uint32, len(lists)*blocks)
	for t, l := range lists {
		for _, p := range l {
			count[t*blocks+int(p.doc)/postingBlock]++
		}
	}
	fill := newPostingFiller(len(lists), n, count)
	// The build adds the postings of each doc in turn, terms interleaved.
	var byDoc [][]int32
	for t, l := range lists {
		for _, p := range l {
			for int(p.doc) >= len(byDoc) {
				byDoc = append(byDoc, nil)
			}
			byDoc[p.doc] = append(byDoc[p.doc], int32(t))
		}
	}
	for d, terms := range byDoc {
		for _, t := range terms {
			for _, p := range lists[t] {
				if int(p.doc) == d {
					fill.add(t, p)
				}
			}
		}
	}
	return fill.finish()
}

// manyWeights is n terms of doc 1, each its own weight (past what a doc's table numbers),
// and of doc 0 with one weight.
func manyWeights(n int) [][]posting {
	lists := make([][]posting, n)
	for t := range lists {
		lists[t] = []posting{newPosting(0, 0.5, false), newPosting(1, float32(t+1)/float32(n+1), t%2 == 0)}
	}
	return lists
}

// readList is term t's postings as the ranker reads them: run by run, each doc its
// run's base plus its low bits.
func readList(ps *postingStore, t int32) []posting {
	var out []posting
	for b := range ps.blocks {
		docs, slots, base, at := ps.run(t, b)
		if len(slots) != len(docs) {
			panic("a run's weights and docs differ in length")
		}
		for j, d := range docs {
			doc := base + int32(d)
			out = append(out, posting{doc: doc, sat: ps.weight(doc, slots[j], at+uint32(j))})
		}
	}
	return out
}

// TestPostingStoreKeepsLists: what the compact store gives back is each term's list as
// given — doc ids whole past 65,536 docs, where a doc's low 16 bits repeat from block to
// block, weights and name-word marks exact — at the edges: no docs, no postings, one doc,
// a list ending at the last doc of the first block and one starting at the first doc of
// the next, a term found only in a later block, more than two blocks.
func TestPostingStoreKeepsLists(t *testing.T) {
	t.Parallel()
	p := func(doc int32, sat float32) posting { return newPosting(doc, sat, doc%3 == 0) }
	cases := []struct {
		name  string
		n     int
		lists [][]posting
		// weights is how many weights the docs' tables hold, each doc's distinct
		// ones up to what a byte numbers (0: not checked)
		weights int
	}{
		{"no docs", 0, nil, 0},
		{"no docs, terms", 0, [][]posting{nil, nil}, 0},
		{"one doc", 1, [][]posting{{p(0, 0.5)}, nil, {p(0, 0.25)}}, 2},
		{"one block, full", postingBlock, [][]posting{{p(0, 0.1), p(postingBlock-1, 0.9)}, {p(postingBlock-1, 0.3)}}, 3},
		{"one doc past a block", postingBlock + 1, [][]posting{
			{p(0, 0.1), p(postingBlock-1, 0.2), p(postingBlock, 0.3)},
			{p(postingBlock, 0.4)},
			{p(1, 0.5)},
		}, 0},
		{"one weight shared by a doc's terms", 3, [][]posting{{p(0, 0.5), p(2, 0.5)}, {p(0, 0.5), p(1, 0.25)}, {p(0, 0.75), p(2, 0.5)}}, 4},
		{"a doc of more weights than a byte numbers", 2, manyWeights(300), 1 + overSlot},
		{"same low bits in every block", 3*postingBlock + 7, [][]posting{
			{p(5, 0.1), p(postingBlock+5, 0.2), p(2*postingBlock+5, 0.3), p(3*postingBlock+5, 0.4)},
			{p(3*postingBlock+6, 0.6)},
			nil,
			{p(2*postingBlock, 0.7), p(2*postingBlock+1, 0.8)},
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := storeLists(c.n, c.lists)
			for term, want := range c.lists {
				got := readList(ps, int32(term))
				if len(want) == 0 && len(got) == 0 {
					got, want = nil, nil
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("term %d reads back as %v, want %v", term, got, want)
				}
				if ps.len(int32(term)) != len(want) {
					t.Errorf("term %d: len %d, want %d", term, ps.len(int32(term)), len(want))
				}
			}
			if c.weights != 0 && len(ps.weights) != c.weights {
				t.Errorf("the docs' tables hold %d weights, want %d", len(ps.weights), c.weights)
			}
		})
	}
}

// TestIndexPastOneBlock: over more docs than one block of postings spans, a word found
// in one doc past the first block finds that doc and no other (the doc's low 16 bits
// are those of a doc in the first block), and a word of every doc finds every doc.
func TestIndexPastOneBlock(t *testing.T) {
	t.Parallel()
	const n = postingBlock + 4000
	docs := make([]Doc, n)
	word := func(i int) string { // a distinct word of letters per doc, not a plural
		w := []byte("zq")
		for ; i > 0; i /= 26 {
			w = append(w, byte('a'+i%26))
		}
		return string(append(w, 'k'))
	}
	for i := range docs {
		docs[i] = mk(fmt.Sprintf("s%d", i/500), fmt.Sprintf("tool%d", i), "common "+word(i))
	}
	ix := New(docs)
	for _, d := range []int{1, postingBlock - 1, postingBlock, postingBlock + 1, n - 1} {
		hits := ix.Search(word(d), 5)
		if len(hits) != 1 || hits[0].Doc != d {
			t.Errorf("search %q: hits %v, want doc %d alone", word(d), hits, d)
		}
	}
	id := ix.vocab["common"]
	if got := len(readList(ix.postings, id)); got != n {
		t.Errorf("the word of every doc has %d postings, want %d", got, n)
	}
	for _, p := range readList(ix.postings, id)[postingBlock-1 : postingBlock+1] {
		if name := ix.docs[p.doc].id; name != docs[p.doc].ID {
			t.Errorf("posting of doc %d names %s", p.doc, name)
		}
	}
}
