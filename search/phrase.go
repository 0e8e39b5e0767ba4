package search

import (
	"math/bits"
	"slices"

	"github.com/zot-mcp/mcp-bridge/search/query"
	"github.com/zot-mcp/mcp-bridge/search/token"
)

// Word order and proximity: the index is a bag of words, so it cannot tell
// "reverse geocode" from a tool that mentions reversing and geocoding in
// different sentences, or "console messages" from a description that says
// "console" at its start and "messages" at its end. A request's consecutive
// words that stand side by side, in the same order, in a tool's name or in
// the first sentence of its description (which says what the tool is for)
// are a phrase the tool was written about. rescorePhrases lifts each of the
// best candidates by its phrase evidence: the pairs of the query's words it
// holds that way, per link between consecutive query words, nearer pairs
// counting more, and pairs of words further apart in the query (a word the
// tool lacks between them) less.
//
// A query word stands for every term the query analysis derived from it
// (its lemma, synonyms, intents, the words a phrase of it means); words
// are consecutive when nothing but stop words stood between them. The name
// and the first sentence are read apart: the last word of one and the first
// of the other are not a pair.
//
// The index keeps, per doc, only the term ids of its name words and of its
// first sentence, in order, as 16-bit ids (phraseIndex).

// Phrase rescoring parameters, swept on testdata/tuning.json only (never on
// report.json). Rescoring more candidates (up to 60), counting pairs in
// reverse order, weighing pairs by idf, leaving out the terms derived from
// a word, or reading the whole description instead of its first sentence
// did not help.
const (
	// phraseDepth is how many of the best candidates are rescored.
	phraseDepth = 12
	// phraseBoost multiplies a candidate's score by 1 + phraseBoost × its
	// phrase evidence (0 to 1).
	phraseBoost = 0.3
	// phraseWindow is the farthest apart (in indexed words) two words of a
	// pair may stand in a tool's text; a pair n words apart counts
	// phraseDecay^(n-1).
	phraseWindow = 2
	phraseDecay  = 0.5
	// phraseGap is the farthest apart two words of a pair may stand in the
	// query (in words that are not stop words); a pair g words apart
	// counts phraseGapDecay^(g-1).
	phraseGap      = 3
	phraseGapDecay = 0.3
)

// phraseStride is how many docs share one entry of phraseIndex.every.
const phraseStride = 16

// noPhraseTerm stands for a term whose id does not fit 16 bits: it never
// matches, so in a vocabulary that large the rarest terms (those seen
// last) take no part in phrases.
const noPhraseTerm = 0xFFFF

// phraseIndex holds, for every doc in order, the term ids of its name words
// (namespace prefixes included, stop words dropped) followed by those of its
// first sentence.
type phraseIndex struct {
	terms []uint16
	lens  [][2]uint8 // per doc: how many name words, how many first-sentence words
	every []int32    // every[i]: index in terms of doc i×phraseStride's first word
}

// shardPhrases is what a shard records of its docs' phrases, with local ids.
type shardPhrases struct {
	terms []int32
	lens  [][2]uint8
}

// recordPhrase appends the name words (analysed, the shard has term ids for
// them) and the first sentence's words of a doc to the shard's phrases.
func (sh *shard) recordPhrase(name []string, purpose string) {
	p := &sh.phrases
	n := 0
	for _, w := range name {
		if n == 255 {
			break
		}
		p.terms = append(p.terms, sh.vocab[w])
		n++
	}
	m := 0
	token.ForEachWord(purpose, sh.buf, func(w []byte, _ bool) {
		if m == 255 {
			return
		}
		if id := sh.rawTerm(w); id >= 0 {
			p.terms = append(p.terms, id)
			m++
		}
	})
	p.lens = append(p.lens, [2]uint8{uint8(n), uint8(m)})
}

// reserve makes room for the phrases of every shard, so that the merged arrays are
// made once at their length: grown by append, they would keep spare room resident for
// the life of the index (slices.Clip frees none of it).
func (pi *phraseIndex) reserve(shards []*shard) {
	terms, docs := 0, 0
	for _, sh := range shards {
		terms += len(sh.phrases.terms)
		docs += len(sh.phrases.lens)
	}
	pi.terms = make([]uint16, 0, terms)
	pi.lens = make([][2]uint8, 0, docs)
}

// addPhrases appends a shard's phrases, remapped to global term ids.
func (pi *phraseIndex) addPhrases(sh *shardPhrases, remap []int32) {
	for _, t := range sh.terms {
		id := remap[t]
		if id >= noPhraseTerm {
			id = noPhraseTerm
		}
		pi.terms = append(pi.terms, uint16(id))
	}
	pi.lens = append(pi.lens, sh.lens...)
}

// finish indexes where the docs' phrases start.
func (pi *phraseIndex) finish() {
	pi.every = make([]int32, 0, (len(pi.lens)+phraseStride-1)/phraseStride)
	at := int32(0)
	for d, l := range pi.lens {
		if d%phraseStride == 0 {
			pi.every = append(pi.every, at)
		}
		at += int32(l[0]) + int32(l[1])
	}
}

// of returns the name words and the first-sentence words of doc d.
func (pi *phraseIndex) of(d int32) (name, purpose []uint16) {
	i := d / phraseStride
	start := pi.every[i]
	for e := i * phraseStride; e < d; e++ {
		start += int32(pi.lens[e][0]) + int32(pi.lens[e][1])
	}
	l := pi.lens[d]
	mid := start + int32(l[0])
	return pi.terms[start:mid], pi.terms[mid : mid+int32(l[1])]
}

// phraseSlots is the size of phraseScratch's table of query terms: a
// power of two, well above the terms of a long request with its
// expansions; terms beyond phraseSlots/2 take no part in phrases.
const phraseSlots = 256

// phraseSlot is one entry of that table: a term id + 1 (0: empty) and the
// query words the term stands for.
type phraseSlot struct {
	id    uint32
	words uint64
}

// phraseScratch is one query's working memory for rescorePhrases.
type phraseScratch struct {
	table [phraseSlots]phraseSlot // open addressing on the term id
	words []uint64                // per word of a doc's name and first sentence: the query words it stands for
}

// phraseQuery is a query as the phrase rescoring reads it.
type phraseQuery struct {
	pairs [phraseGap]uint64 // [g-1] bit k: words k and k+g are both searchable
	links float64           // searchable words less one: what full evidence sums to
}

// slotOf returns the first slot to probe for term id.
func slotOf(id uint32) uint32 { return id * 2654435761 >> 24 % phraseSlots }

// lookup returns the query words term t stands for.
func (ps *phraseScratch) lookup(t uint16) uint64 {
	id := uint32(t) + 1
	for i := slotOf(id); ; i = (i + 1) % phraseSlots {
		switch ps.table[i].id {
		case id:
			return ps.table[i].words
		case 0:
			return 0
		}
	}
}

// readPhraseQuery reads the query's searchable words from its analysed
// terms and their ids (see termIDs) into ps's table; it reports false when
// the query has fewer than two.
func (ix *Index) readPhraseQuery(ps *phraseScratch, terms []query.Term, ids []int32, pq *phraseQuery) bool {
	searchable := func(i int) bool {
		id, t := ids[i], &terms[i]
		return id >= 0 && id < noPhraseTerm && t.Origin != 0 && t.Weight > 0
	}
	var present uint64
	for i := range terms {
		if searchable(i) {
			present |= terms[i].Origin
		}
	}
	if bits.OnesCount64(present) < 2 {
		return false
	}
	clear(ps.table[:])
	present = 0
	n := 0
	for i, t := range terms {
		if !searchable(i) || n == phraseSlots/2 {
			continue
		}
		present |= t.Origin
		n++
		// Term ids are distinct: each term is put once.
		k := uint32(ids[i]) + 1
		j := slotOf(k)
		for ps.table[j].id != 0 {
			j = (j + 1) % phraseSlots
		}
		ps.table[j] = phraseSlot{k, t.Origin}
	}
	if bits.OnesCount64(present) < 2 {
		return false
	}
	pq.links = float64(bits.OnesCount64(present) - 1)
	for g := 1; g <= phraseGap; g++ {
		pq.pairs[g-1] = present & (present >> g)
	}
	return true
}

// phraseEvidence is the share of the query's word pairs doc d holds (see
// the top of this file), from 0 to 1.
func (ix *Index) phraseEvidence(ps *phraseScratch, pq *phraseQuery, d int32) float64 {
	name, purpose := ix.phrases.of(d)
	// The query words each word of the name, then of the first sentence,
	// stands for.
	ws := ps.words[:0]
	var seen uint64
	for _, seq := range [2][]uint16{name, purpose} {
		for _, t := range seq {
			m := ps.lookup(t)
			ws = append(ws, m)
			seen |= m
		}
	}
	ps.words = ws
	if bits.OnesCount64(seen) < 2 {
		return 0
	}
	sum, gw := 0.0, 1.0
	for g := 1; g <= phraseGap; g++ {
		pairs := pq.pairs[g-1]
		var found uint64 // pairs found nearer
		f := gw
		for dist := 1; dist <= phraseWindow && pairs&^found != 0; dist++ {
			held := heldPairs(ws[:len(name)], g, dist) | heldPairs(ws[len(name):], g, dist)
			held &= pairs &^ found
			sum += f * float64(bits.OnesCount64(held))
			found |= held
			f *= phraseDecay
		}
		gw *= phraseGapDecay
	}
	return min(sum/pq.links, 1)
}

// heldPairs returns the query pairs (bit k: words k and k+g) that the
// words ws hold in order dist words apart.
func heldPairs(ws []uint64, g, dist int) uint64 {
	var held uint64
	for p := 0; p+dist < len(ws); p++ {
		held |= ws[p] & (ws[p+dist] >> g)
	}
	return held
}

// rescorePhrases multiplies the scores of the best candidates c (best
// first) of a query with the given analysed terms and their ids (see
// termIDs) by their phrase evidence, and restores rank order.
func (ix *Index) rescorePhrases(ps *phraseScratch, terms []query.Term, ids []int32, c []scored) {
	n := min(len(c), phraseDepth)
	var pq phraseQuery
	if n < 2 || !ix.readPhraseQuery(ps, terms, ids, &pq) {
		return
	}
	moved := false
	for i := 0; i < n; i++ {
		if e := ix.phraseEvidence(ps, &pq, c[i].doc); e > 0 {
			c[i].score *= 1 + phraseBoost*e
			moved = true
		}
	}
	if moved {
		slices.SortFunc(c[:n], func(a, b scored) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
	}
}
