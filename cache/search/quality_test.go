package search

import (
	"os"
	"path/filepath"
	"testing"
)

// qualitySet is a labelled query set with the floors our ranking must reach
// on it and the margin by which it must beat Baseline.
type qualitySet struct {
	file                           string
	minQueries                     int
	minRecall1, minRecall5, minMRR float64
	minGainRecall5, minGainMRR     float64 // ours minus Baseline
}

// qualitySets: queries.json is the main set (233 task phrasings over all 48
// catalog servers) and was used while tuning; holdout.json (64 queries) was
// written before tuning started and evaluated once afterwards, so it shows
// how the tuning generalises. Floors sit a little under what the ranker
// reaches (main: recall@1 0.863, recall@5 0.983, MRR 0.912; holdout: 0.812,
// 0.953, 0.878; Baseline main: 0.524, 0.674, 0.592; holdout: 0.688, 0.812,
// 0.733).
var qualitySets = []qualitySet{
	{file: "queries.json", minQueries: 120,
		minRecall1: 0.82, minRecall5: 0.95, minMRR: 0.88,
		minGainRecall5: 0.20, minGainMRR: 0.20},
	{file: "holdout.json", minQueries: 50,
		minRecall1: 0.76, minRecall5: 0.92, minMRR: 0.84,
		minGainRecall5: 0.08, minGainMRR: 0.10},
}

func TestQuality(t *testing.T) {
	docs := loadCatalog(t)
	known := map[string]bool{}
	for _, d := range docs {
		known[d.Server+"/"+d.Tool] = true
	}
	ix := New(docs)
	baseline := func(q string, limit int) []Hit { return Baseline(docs, q, limit) }
	t.Logf("catalog: %d tools", len(docs))

	for _, set := range qualitySets {
		t.Run(set.file, func(t *testing.T) {
			queries, err := LoadQueries(filepath.Join("testdata", set.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(queries) < set.minQueries {
				t.Fatalf("%s has %d queries, want at least %d", set.file, len(queries), set.minQueries)
			}
			for _, q := range queries {
				for _, w := range q.Want {
					if !known[w] {
						t.Fatalf("query %q: answer %q is not in the catalog", q.Q, w)
					}
				}
			}

			ours := Evaluate(ix.Search, docs, queries)
			base := Evaluate(baseline, docs, queries)
			t.Logf("ours:     %v", ours)
			t.Logf("baseline: %v", base)
			if os.Getenv("SEARCH_MISSES") != "" {
				logMisses(t, ix, docs, queries)
			}

			if ours.Recall1 < set.minRecall1 || ours.Recall5 < set.minRecall5 || ours.MRR < set.minMRR {
				t.Errorf("ranking below floor: %v (floors recall@1=%.2f recall@5=%.2f MRR=%.2f)",
					ours, set.minRecall1, set.minRecall5, set.minMRR)
			}
			if ours.Recall5-base.Recall5 < set.minGainRecall5 || ours.MRR-base.MRR < set.minGainMRR {
				t.Errorf("ranking does not beat Baseline by recall@5 +%.2f and MRR +%.2f: ours %v, baseline %v",
					set.minGainRecall5, set.minGainMRR, ours, base)
			}
		})
	}
}

// logMisses logs every query whose first hit is not acceptable
// (SEARCH_MISSES=1 go test -run TestQuality -v).
func logMisses(t *testing.T, ix *Index, docs []Doc, queries []Query) {
	for _, q := range queries {
		hits := ix.Search(q.Q, 5)
		if r := firstRelevant(hits, docs, q.Want); r != 1 {
			var got []string
			for _, h := range hits {
				got = append(got, docs[h.Doc].Server+"/"+docs[h.Doc].Tool)
			}
			t.Logf("rank %d  %q want %v got %v", r, q.Q, q.Want, got)
		}
	}
}
