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
}

// lexiconTables returns the query tables, building them on the first call;
// they are only read afterwards.
var lexiconTables = sync.OnceValue(func() *queryTables {
	return &queryTables{intents: buildIntentTable(), expansions: words.Expansions()}
})

// Prepare builds the tables every analysis reads, so that the first query
// does not pay for them; the index calls it when it is built.
func Prepare() { lexiconTables() }
