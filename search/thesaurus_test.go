package search

import "testing"

// TestThesaurusReachesToolWords: a request in words no tool and no lexicon
// entry uses reaches the tool through a general-English synonym or the base
// form of an irregular word, and the other tools keep their order.
func TestThesaurusReachesToolWords(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		mk("jobs", "stop_job", "Stop a running job"),
		mk("jobs", "list_jobs", "List the jobs and their state"),
		mk("fs", "repair_index", "Repair a damaged search index"),
		mk("fs", "read_file", "Read a file"),
		mk("docs", "list_child_pages", "List the child pages of a page"),
		mk("docs", "get_page", "Get one page"),
	}
	ix := New(docs)
	tests := []struct{ query, first string }{
		// "halt" and "mend" are in no tool and no lexicon entry; WordNet
		// relates them to stop and repair.
		{"halt the nightly job", "mcp__jobs__stop_job"},
		{"mend the damaged index", "mcp__fs__repair_index"},
		{"mending the index", "mcp__fs__repair_index"}, // a synonym of the base form
		// An irregular plural: "children" is "child".
		{"list the children of this page", "mcp__docs__list_child_pages"},
	}
	for _, tt := range tests {
		wantFirst(t, ix, docs, tt.query, tt.first)
	}
}

// TestThesaurusWeights: thesaurus words weigh little, less again for a
// query word the index knows itself, and words with a lexicon entry take
// none (the lexicon says what they mean to tools).
func TestThesaurusWeights(t *testing.T) {
	t.Parallel()
	vocab := map[string]int32{"stop": 0, "repair": 1, "fix": 2, "child": 3, "mend": 4, "delete": 5, "erase": 6, "remove": 7}
	weight := func(q, term string) float64 {
		terms, _ := analyseQuery(q, vocab)
		for _, qt := range terms {
			if qt.term == term {
				return qt.weight
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
		{"delete", "erase", synonymWeight},
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
		{"halt the nightly job", vStop},
		{"end the interactive session", vStop},
		{"commence the import", vCreate | vRun}, // commence → start
		{"delete the nightly job", vDelete},     // the verb table's own
		{"nightly job", 0},                      // no verb, no synonym with a class
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
	sc := queryScratch{idf: []float64{5, thesaurusKnownMinIDF + 1, thesaurusKnownMinIDF - 1, thesaurusKnownMinIDF - 1}}
	has := func(q, term string) bool {
		terms, _ := sc.analyse(q, vocab)
		for _, qt := range terms {
			if qt.term == term {
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
