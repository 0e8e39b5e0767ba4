package search

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestScoreBoundKeepsRanking shows that passing over the docs whose score
// times scoreBound falls below the last kept candidate changes no ranking:
// every query of the tuning half, over the catalog replicated (so that
// many docs tie), ranks the same with the bound as when every matching doc
// is re-ranked.
func TestScoreBoundKeepsRanking(t *testing.T) {
	t.Parallel()
	base := loadCatalog(t)
	queries, err := LoadQueries(filepath.Join("testdata", "tuning.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{len(base), 3000} {
		ix := New(replicate(base, n))
		bounded, all := ix.newScratch(), ix.newScratch()
		all.exhaustive = true
		for i, q := range queries {
			for _, limit := range []int{1, DefaultLimit, 30} {
				got := ix.rankIn(bounded, q.Q, limit, nil)
				want := ix.rankIn(all, q.Q, limit, nil)
				if !slices.Equal(got, want) {
					t.Errorf("n=%d limit=%d query %d (%q): with the bound %v, re-ranking every doc %v", n, limit, i, q.Q, got, want)
				}
			}
		}
	}
}
