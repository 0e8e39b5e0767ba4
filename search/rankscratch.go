package search

import (
	"slices"

	"github.com/zot-mcp/mcp-bridge/search/query"
)

// namedServers holds the servers a query names with the weight of the
// strongest term naming each. A query names few servers, so a short list
// scanned per document beats a map.
type namedServers []namedServer

type namedServer struct {
	server int32
	weight float64
}

// raise records that a term of weight w names server sid; a server is named
// only by a term of positive weight.
func (n *namedServers) raise(sid int32, w float64) {
	for i := range *n {
		if (*n)[i].server == sid {
			(*n)[i].weight = max((*n)[i].weight, w)
			return
		}
	}
	if w > 0 {
		*n = append(*n, namedServer{sid, w})
	}
}

// get returns the weight of server sid and whether the query names it.
func (n namedServers) get(sid int32) (float64, bool) {
	for _, s := range n {
		if s.server == sid {
			return s.weight, true
		}
	}
	return 0, false
}

// termIDs returns the index's term id of each query term (-1 when the index
// does not know it), in the order of terms, and the known ids sorted for
// binary search; both live in sc until its next use.
func (ix *Index) termIDs(terms []query.Term, sc *scratch) (ids, sorted []int32) {
	ids = slices.Grow(sc.ids[:0], len(terms))[:len(terms)]
	sorted = sc.known[:0]
	for i, t := range terms {
		id, ok := ix.vocab[t.Text]
		if !ok {
			id = -1
		} else {
			sorted = append(sorted, id)
		}
		ids[i] = id
	}
	slices.Sort(sorted)
	sc.ids, sc.known = ids, sorted
	return ids, sorted
}

// boundSlack widens scoreBound past the rounding of the factors' products,
// which it multiplies in another order than rank.
const boundSlack = 1 + 1e-9

// scoreBound is the most rank's re-ranking factors (server coherence, a
// named server, the verb, name and query coverage) can multiply a doc's
// BM25F score by, for a query naming the servers named, whose best server
// coherence is most, whose verb classes are verbs and whose words weigh
// total: a doc whose score times it falls below the last kept candidate
// need not be re-ranked, so that most matching docs cost one comparison.
func (ix *Index) scoreBound(named namedServers, most float64, verbs uint16, total float64) float64 {
	b := (1 + serverCoherenceBoost*most) * (1 + coverBoost)
	strongest := 0.0
	for _, s := range named {
		strongest = max(strongest, s.weight)
	}
	b *= 1 + serverBoost*strongest
	if verbs != 0 {
		b *= 1 + verbBoost
	}
	if total > 0 {
		b *= 1 + queryCoverBoost
	}
	return b * boundSlack
}
