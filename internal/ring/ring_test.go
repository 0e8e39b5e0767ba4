package ring

import (
	"slices"
	"strings"
	"testing"
)

func TestRing(t *testing.T) {
	tests := []struct {
		name  string
		ring  func() *Ring[string]
		add   []string
		want  []string
		last2 []string
	}{
		{"under the caps", func() *Ring[string] { return New[string](3) }, []string{"a", "b"}, []string{"a", "b"}, []string{"a", "b"}},
		{"count cap", func() *Ring[string] { return New[string](3) }, []string{"a", "b", "c", "d", "e"}, []string{"c", "d", "e"}, []string{"d", "e"}},
		{"size cap", func() *Ring[string] { return NewSized(10, 5, func(s string) int { return len(s) }) },
			[]string{"aa", "bb", "cc", "d"}, []string{"bb", "cc", "d"}, []string{"cc", "d"}},
		{"an entry over the size cap is kept alone", func() *Ring[string] { return NewSized(10, 3, func(s string) int { return len(s) }) },
			[]string{"a", strings.Repeat("x", 5)}, []string{"xxxxx"}, []string{"xxxxx"}},
		{"empty", func() *Ring[string] { return New[string](3) }, nil, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.ring()
			for _, s := range tc.add {
				r.Add(s)
			}
			got, seen := r.All()
			if !slices.Equal(got, tc.want) || seen != len(tc.add) {
				t.Fatalf("All = %q, %d; want %q, %d", got, seen, tc.want, len(tc.add))
			}
			if got := r.Last(2); !slices.Equal(got, tc.last2) {
				t.Fatalf("Last(2) = %q, want %q", got, tc.last2)
			}
		})
	}
}

// TestRingBoundedBacking: adding far more than the cap keeps the backing array small
// (entries are copied down, not resliced away).
func TestRingBoundedBacking(t *testing.T) {
	r := New[int](4)
	for i := range 10000 {
		r.Add(i)
	}
	if c := cap(r.items); c > 16 {
		t.Fatalf("backing array grew to %d for a cap of 4", c)
	}
	if got, _ := r.All(); !slices.Equal(got, []int{9996, 9997, 9998, 9999}) {
		t.Fatalf("All = %v", got)
	}
}
