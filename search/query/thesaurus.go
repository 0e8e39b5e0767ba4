package query

import (
	"github.com/zot-mcp/mcp-bridge/search/thesaurus"
	"github.com/zot-mcp/mcp-bridge/search/token"
	"github.com/zot-mcp/mcp-bridge/search/words"
)

// Weights of the thesaurus's words (package thesaurus, derived from
// WordNet) relative to the query word they stand for. They are low: the
// thesaurus is general English, so a synonym is right in some sense but
// often not the one a request means, and a tool that matches only through
// one still counts the request's word as covered.
const (
	// thesaurusSynonymWeight applies to a word sharing a common sense with
	// a query word (halt → stop, quickly → rapidly).
	thesaurusSynonymWeight = 0.3
	// thesaurusBaseWeight applies to the base form of an irregular query
	// word (broke → break, children → child), which lemma does not find.
	thesaurusBaseWeight = 0.3
	// thesaurusKnownScale scales both for a query word the index knows
	// itself: it already reaches the tools that use it.
	thesaurusKnownScale = 0.25
	// thesaurusKnownMinIDF is the least idf of a word added for a query
	// word the index knows: a synonym used by more than about one tool in
	// twenty (set, make, get) says little beside the word itself and would
	// make every query over a large catalog score thousands more postings.
	thesaurusKnownMinIDF = 3.0
)

// thesaurusTerms calls put for the thesaurus's words of the query word t
// (weighing w) that usable accepts: the base form of an irregular t, and
// the synonyms of t or of that base form.
func thesaurusTerms(t string, w float64, usable func(string) bool, put func(term string, weight float64)) {
	e, ok := thesaurus.LookupForm(t)
	if !ok {
		return
	}
	for b := range e.Words(thesaurus.Base) {
		if usable(b) {
			put(b, w*thesaurusBaseWeight)
		}
		if be, ok := thesaurus.Lookup(b); ok {
			e, w = be, w*lemmaWeight
		}
		break
	}
	for v := range e.Words(thesaurus.Synonym) {
		if v = token.Singular(v); v != t && !token.IsStop(v) && usable(v) {
			put(v, w*thesaurusSynonymWeight)
		}
	}
}

// thesaurusVerbClass returns the verb classes of the first synonym of t (or
// of its base form by WordNet's rules of detachment) that has any, or 0.
func thesaurusVerbClass(t string) uint16 {
	e, ok := thesaurus.LookupForm(t)
	if !ok {
		return 0
	}
	for syn := range e.Words(thesaurus.Synonym) {
		if v := words.VerbClass(syn); v != 0 {
			return v
		}
	}
	return 0
}
