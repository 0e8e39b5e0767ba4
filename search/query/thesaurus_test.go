package query

import (
	"testing"

	"github.com/zot-mcp/mcp-bridge/search/words"
)

// TestThesaurusWeights: thesaurus words weigh little, less again for a
// query word the index knows itself, and words with a lexicon entry take
// none (the lexicon says what they mean to tools).
func TestThesaurusWeights(t *testing.T) {
	t.Parallel()
	vocab := map[string]int32{"stop": 0, "repair": 1, "fix": 2, "child": 3, "mend": 4, "delete": 5, "erase": 6, "remove": 7}
	weight := func(q, term string) float64 {
		terms, _ := analyseQuery(q, vocab)
		for _, qt := range terms {
			if qt.Text == term {
				return qt.Weight
			}
		}
		return 0
	}
	tests := []struct {
		query, term string
		want        float64
	}{
		{"halt", "stop", thesaurusSynonymWeight},
		{"children", "child", thesaurusBaseWeight},
		// "mend" is in the vocabulary: its synonyms weigh less.
		{"mend", "repair", thesaurusSynonymWeight * thesaurusKnownScale},
		// Only words the index knows are added.
		{"halt", "halt", 1},
		{"vanish", "disappear", 0},
		// A word with a lexicon entry takes no thesaurus words: "delete"
		// reaches "erase" at the synonym table's weight, not the
		// thesaurus's.
		{"delete", "erase", words.SynonymWeight},
	}
	for _, tt := range tests {
		if got := weight(tt.query, tt.term); got != tt.want {
			t.Errorf("analyseQuery(%q): %q weighs %v, want %v", tt.query, tt.term, got, tt.want)
		}
	}
}

// TestThesaurusVerbClass: a verb neither the verb table nor the lexicon
// knows takes the class of its first synonym that has one.
func TestThesaurusVerbClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query string
		want  uint16
	}{
		{"halt the nightly job", words.VStop},
		{"end the interactive session", words.VStop},
		{"commence the import", words.VCreate | words.VRun}, // commence → start
		{"delete the nightly job", words.VDelete},           // the verb table's own
		{"nightly job", 0},                                  // no verb, no synonym with a class
	}
	for _, tt := range tests {
		if _, got := analyseQuery(tt.query, nil); got != tt.want {
			t.Errorf("analyseQuery(%q) verbs = %b, want %b", tt.query, got, tt.want)
		}
	}
}

// TestThesaurusSkipsCommonWordsOfKnownWords: for a query word the index
// knows, a synonym that many tools use (low idf) is not added; for a word
// it does not know, it is.
func TestThesaurusSkipsCommonWordsOfKnownWords(t *testing.T) {
	t.Parallel()
	vocab := map[string]int32{"mend": 0, "repair": 1, "fix": 2, "stop": 3}
	idf := []float64{5, thesaurusKnownMinIDF + 1, thesaurusKnownMinIDF - 1, thesaurusKnownMinIDF - 1}
	has := func(q, term string) bool {
		terms, _ := new(Analyser).Analyse(q, vocab, idf)
		for _, qt := range terms {
			if qt.Text == term {
				return true
			}
		}
		return false
	}
	tests := []struct {
		query, term string
		want        bool
	}{
		{"mend", "repair", true}, // known word, rare synonym
		{"mend", "fix", false},   // known word, common synonym
		{"halt", "stop", true},   // unknown word: its synonyms are its only reach
	}
	for _, tt := range tests {
		if got := has(tt.query, tt.term); got != tt.want {
			t.Errorf("analyse(%q) has %q = %v, want %v", tt.query, tt.term, got, tt.want)
		}
	}
}
