package query

import (
	"slices"
	"strings"

	"github.com/zot-mcp/mcp-bridge/search/lexicon"
	"github.com/zot-mcp/mcp-bridge/search/token"
)

// intentWeight is the weight of a term an everyday word or phrase stands for
// (intents), relative to an original query term.
const intentWeight = 0.9

// buildIntentTable returns the lexicon's intents with every key word in
// analysed (singular) form; queryTables holds the one built.
func buildIntentTable() map[string][]string {
	intents, fieldIntents := lexicon.Intents(), lexicon.Fields()
	m := make(map[string][]string, len(intents)+len(fieldIntents))
	keys := make([]string, 0, len(intents)+len(fieldIntents))
	for k := range intents {
		keys = append(keys, k)
	}
	for k := range fieldIntents {
		if _, ok := intents[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := append(slices.Clip(intents[k]), fieldIntents[k]...)
		// Keys split into words as queries do ("what's new" → what s new).
		var words []string
		token.ForEachWord(k, nil, func(w []byte, whole bool) {
			if !whole {
				words = append(words, token.Singular(string(w)))
			}
		})
		key := strings.Join(words, " ")
		// Keys that analyse alike ("hour", "hours") share one entry: the
		// union of their words in key order, so neither is lost and the
		// result does not depend on map order.
		to := m[key]
		for _, w := range v {
			if w = token.Singular(w); !slices.Contains(to, w) {
				to = append(to, w)
			}
		}
		m[key] = to
	}
	return m
}

// maxIntentWords is the longest key of the English lexicon, in words, and of
// the bilingual lexicon's keys that begin with no CJK character pair; its
// CJK keys can be longer (Concepts.maxWords), and are read by the run's
// cover (CoverRun).
const maxIntentWords = 3
