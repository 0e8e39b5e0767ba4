package query

import (
	"sync"

	"github.com/zot-mcp/mcp-bridge/search/words"
)

// queryTables are the query-side lookups derived from the lexicon and the
// synonym lists. They are built on first use rather than at package
// initialisation: every start of the bridge would otherwise build them before
// it can say hello to the host, while only searching needs them (Prepare
// builds them with the index, after the bridge is ready).
type queryTables struct {
	intents    map[string][]string          // lexicon keys in analysed form → the tools' words
	expansions map[string][]words.Expansion // synonyms and abbreviations
	concepts   *Concepts                    // the bilingual lexicon, also inside intents
}

// lexiconTables returns the query tables, building them on the first call;
// they are only read afterwards.
var lexiconTables = sync.OnceValue(func() *queryTables {
	tb := &queryTables{intents: buildIntentTable(), expansions: words.Expansions(), concepts: buildConcepts()}
	// The bilingual words join the intents: a request's foreign word stands
	// for the tools' English words as an everyday English word does. Words
	// in Latin script and stems are marked (see latinMark), which no
	// analysed word is: addConceptKeys decides when a word reaches them.
	for k, to := range tb.concepts.exact {
		if isLatinKey(k) {
			k = latinMark + k
		}
		tb.intents[k] = union(tb.intents[k], to)
	}
	for k, to := range tb.concepts.stems {
		tb.intents[k+stemMark] = to
	}
	for k, to := range tb.concepts.phrases {
		tb.intents[k] = to
	}
	return tb
})

// Prepare builds the tables every analysis reads, so that the first query
// does not pay for them; the index calls it when it is built.
func Prepare() { lexiconTables() }
