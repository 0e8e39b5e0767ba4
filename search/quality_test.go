package search

import (
	"os"
	"path/filepath"
	"testing"
)

// floor is the least a ranking must reach on a set of queries.
type floor struct{ recall1, recall5, mrr float64 }

// qualitySet is a labelled query set with the floors our ranking must reach
// on it, overall and per query kind, and the margin by which it must beat
// Baseline overall.
type qualitySet struct {
	file                       string
	minQueries                 int
	overall                    floor
	byKind                     map[string]floor
	minGainRecall5, minGainMRR float64 // ours minus Baseline
}

// qualitySets: tuning.json is the tuning half, which the ranker is tuned on
// (233 original queries, 105 everyday task queries added once the first
// ones were saturated, 43 task queries in the styles of issue 15's misses,
// 29 parameter and keyword queries so that no kind is tuned away unseen,
// 100 everyday task queries over 40 servers for the lexicon's semantic
// fields, eleven batches of 44-48 written after fields to check them, 56
// everyday task queries about whole domains, written to check server
// coherence before it was measured on them, and 79 task and product
// queries asking for one of a group of sibling tools);
// report.json is the report half: 64 queries written before any tuning
// plus 283 written blind for issue 15 (committed before the ranker
// changed), which no ranking change may be tuned on. The floors of both sit
// just under what the ranker reaches, so a regression fails; the report
// floors are not the goal (recall@5 0.95, MRR 0.85, task recall@5
// 0.90), which the ranker does not reach yet.
var qualitySets = []qualitySet{
	{file: "tuning.json", minQueries: 1160,
		overall: floor{0.74, 0.92, 0.81},
		byKind: map[string]floor{
			"task":      {0.72, 0.91, 0.79},
			"product":   {0.83, 0.96, 0.89},
			"keyword":   {0.99, 1.00, 0.99},
			"parameter": {0.86, 1.00, 0.93},
		},
		minGainRecall5: 0.30, minGainMRR: 0.30},
	{file: "report.json", minQueries: 300,
		overall: floor{0.76, 0.94, 0.83},
		byKind: map[string]floor{
			"task":       {0.72, 0.92, 0.80},
			"product":    {0.80, 0.97, 0.88},
			"keyword":    {0.91, 1.00, 0.95},
			"parameter":  {0.95, 1.00, 0.95},
			"exact-name": {1.00, 1.00, 1.00},
		},
		minGainRecall5: 0.40, minGainMRR: 0.35},
}

func TestQuality(t *testing.T) {
	t.Parallel()
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
			t.Parallel() // CPU-bound and independent: the sets share only read-only docs and index
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
			checkFloor(t, "overall", ours, set.overall)
			oursK := EvaluateByKind(ix.Search, docs, queries)
			baseK := EvaluateByKind(baseline, docs, queries)
			for _, k := range Kinds {
				if m, ok := oursK[k]; ok {
					t.Logf("%-10s ours %v | baseline %v", k, m, baseK[k])
				}
			}
			for k, f := range set.byKind {
				m, ok := oursK[k]
				if !ok {
					t.Errorf("%s has no %q queries, but a floor for them", set.file, k)
					continue
				}
				checkFloor(t, k, m, f)
			}
			if os.Getenv("SEARCH_MISSES") != "" {
				logMisses(t, ix, docs, queries)
			}
			if ours.Recall5-base.Recall5 < set.minGainRecall5 || ours.MRR-base.MRR < set.minGainMRR {
				t.Errorf("ranking does not beat Baseline by recall@5 +%.2f and MRR +%.2f: ours %v, baseline %v",
					set.minGainRecall5, set.minGainMRR, ours, base)
			}
		})
	}
}

func checkFloor(t *testing.T, what string, m Metrics, f floor) {
	t.Helper()
	if m.Recall1 < f.recall1 || m.Recall5 < f.recall5 || m.MRR < f.mrr {
		t.Errorf("%s: ranking below floor: %v (floors recall@1=%.2f recall@5=%.2f MRR=%.2f)",
			what, m, f.recall1, f.recall5, f.mrr)
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
			t.Logf("rank %d [%s] %q want %v got %v", r, q.Kind, q.Q, q.Want, got)
		}
	}
}
