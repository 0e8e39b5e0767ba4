package search

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTopK(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name string
		n, k int
		ties bool // few distinct scores, so the ID decides
	}{
		{"fewer hits than k", 5, 12, false},
		{"exactly k", 12, 12, false},
		{"many hits", 500, 12, false},
		{"many ties", 500, 12, true},
		{"k of one", 50, 1, false},
		{"k of zero", 10, 0, false},
		{"large k", 300, 100, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := make([]scored, tt.n)
			for i := range all {
				s := rng.Float64()
				if tt.ties {
					s = float64(rng.IntN(4))
				}
				all[i] = scored{doc: int32(i), score: s, id: "id" + itoa(rng.IntN(1_000_000)) + "_" + itoa(i)}
			}
			// The scratch array is reused: leftovers of an earlier query
			// must not show.
			top := newTopK([]scored{{doc: -1, score: 99, id: "stale"}}, tt.k)
			for _, x := range all {
				top.add(x)
			}
			want := slices.Clone(all)
			slices.SortFunc(want, func(a, b scored) int {
				if better(a, b) {
					return -1
				}
				return 1
			})
			want = want[:min(tt.k, len(want))]
			if !slices.Equal(top.hits, want) {
				t.Errorf("topK kept %v, want %v", top.hits, want)
			}
		})
	}
}
