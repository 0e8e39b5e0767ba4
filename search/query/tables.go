package query

import (
	"sync"

	"github.com/zot-mcp/mcp-bridge/search/words"
)

// queryTables are the query-side lookups derived from the lexicon and the
// synonym lists. They are built on first use rather than at package
// initialisation: every start of the bridge would otherwise build them before
// it can say hello to the host, while only searching needs them (Prepare
// builds them with the index, after the bridge is ready). They are held as
// tables (see table), not maps, since they stay for the life of the process.
type queryTables struct {
	intents    table[string]          // lexicon keys in analysed form → the tools' words
	expansions table[words.Expansion] // synonyms and abbreviations
	concepts   *Concepts              // the bilingual lexicon, its keys those of intents
}

// tableMaps are the query tables as they are first read, as maps.
type tableMaps struct {
	intents    map[string][]string
	expansions map[string][]words.Expansion
	concepts   *conceptMaps
}

// conceptMaps is Concepts as buildConcepts reads it, as maps.
type conceptMaps struct {
	exact, stems, phrases, notStem map[string][]string
	maxWords                       int
}

// lexiconTables returns the query tables, building them on the first call;
// they are only read afterwards.
var lexiconTables = sync.OnceValue(func() *queryTables { return compactTables(readTables()) })

// readTables reads the lexicon and the synonym lists into maps.
func readTables() *tableMaps {
	m := &tableMaps{intents: buildIntentTable(), expansions: words.Expansions(), concepts: buildConcepts()}
	// The bilingual words join the intents: a request's foreign word stands
	// for the tools' English words as an everyday English word does. Words
	// in Latin script and stems are marked (see latinMark), which no
	// analysed word is: addConceptKeys decides when a word reaches them.
	for k, to := range m.concepts.exact {
		if isLatinKey(k) {
			k = latinMark + k
		}
		m.intents[k] = union(m.intents[k], to)
	}
	for k, to := range m.concepts.stems {
		m.intents[k+stemMark] = to
	}
	for k, to := range m.concepts.phrases {
		m.intents[k] = to
	}
	return m
}

// compactTables returns the tables of m. Every key of the bilingual exact,
// stem and phrase tables is also a key of the intents, marked or not, so
// those tables hold no bytes of their own keys but spans of the intents'
// text.
func compactTables(m *tableMaps) *queryTables {
	b := newTableBuilder[string]()
	tb := &queryTables{intents: b.table(m.intents, "", nil)}
	within := func(mark func(k string) (key string, at int)) func(k string) (int, bool) {
		return func(k string) (int, bool) {
			key, at := mark(k)
			e := find(&tb.intents, key)
			if e == nil {
				return 0, false
			}
			return int(e.key) + at, true
		}
	}
	exact := within(func(k string) (string, int) {
		if isLatinKey(k) {
			return latinMark + k, len(latinMark)
		}
		return k, 0
	})
	stem := within(func(k string) (string, int) { return k + stemMark, 0 })
	same := within(func(k string) (string, int) { return k, 0 })
	c := m.concepts
	tb.concepts = &Concepts{
		exact:    b.table(c.exact, tb.intents.text, exact),
		stems:    b.table(c.stems, tb.intents.text, stem),
		phrases:  b.table(c.phrases, tb.intents.text, same),
		notStem:  b.table(c.notStem, "", nil),
		maxWords: c.maxWords,
	}
	b.finish(&tb.intents, &tb.concepts.exact, &tb.concepts.stems, &tb.concepts.phrases, &tb.concepts.notStem)
	syn := newTableBuilder[words.Expansion]()
	tb.expansions = syn.table(m.expansions, "", nil)
	syn.finish(&tb.expansions)
	return tb
}

// Prepare builds the tables every analysis reads, so that the first query
// does not pay for them; the index calls it when it is built.
func Prepare() { lexiconTables() }
