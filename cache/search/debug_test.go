package search

import (
	"os"
	"testing"
)

// TestDebugQuery prints the ranking for $SEARCH_DEBUG (development aid).
func TestDebugQuery(t *testing.T) {
	q := os.Getenv("SEARCH_DEBUG")
	if q == "" {
		t.Skip("set SEARCH_DEBUG to a query")
	}
	docs := loadCatalog(t)
	ix := New(docs)
	terms, verbs := analyseQuery(q, ix.vocab)
	t.Logf("terms %+v verbs %b", terms, verbs)
	for _, h := range ix.Search(q, 10) {
		t.Logf("%8.3f %v %s", h.Score, h.Exact, docs[h.Doc].ID)
	}
}
