package search

import (
	"math/bits"

	"github.com/zot-mcp/mcp-bridge/search/words"
)

// English makes verbs of nouns: "comment on the issue", "label the PR", "tag
// the release", "message the team", "email Bob" ask to make (create, add,
// post, send) the thing the noun names. When a request opens with such a
// word, the tools' own names say what it means: the verbs they pair the
// noun with (create_comment, add_label, send_message; take_screenshot pairs
// with no verb of making, so "screenshot the page" is left alone).

// makingVerbs are the verb classes a noun used as a verb can stand for.
const makingVerbs = words.VCreate | words.VSend | words.VWrite

// denominalClass returns the verb classes of making that the tool names
// using term as a name word pair it with most often (create_comment,
// add_comment → create), or 0 when no name pairs it with a verb of making.
func (ix *Index) denominalClass(term string) uint16 {
	id, ok := ix.vocab[term]
	if !ok {
		return 0
	}
	var n [16]int
	for b := range ix.postings.blocks {
		docs, slots, base, at := ix.postings.run(id, b)
		for j, lo := range docs {
			d := base + int32(lo)
			if ix.postings.weight(d, slots[j], at+uint32(j)) >= 0 {
				continue // not a word of the tool name proper
			}
			m := &ix.docs[d]
			if m.verbTerm == id {
				continue
			}
			for v := m.verb & makingVerbs; v != 0; v &= v - 1 {
				n[bits.TrailingZeros16(v)]++
			}
		}
	}
	var best int
	var class uint16
	for b, c := range n {
		switch {
		case c == 0:
		case c > best:
			best, class = c, 1<<b
		case c == best:
			class |= 1 << b
		}
	}
	return class
}
