// Package textdist measures how far apart two words are, for "did you mean" hints.
package textdist

import (
	"fmt"
	"sort"
	"strings"
)

// Distance is the Levenshtein edit distance between a and b, counted in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest returns the candidate nearest to name, ignoring case, when it is close enough to
// be a likely typo: at most max(2, len(name)/3) edits. Ties go to the earlier candidate.
func Closest(name string, candidates []string) (string, bool) {
	ln := strings.ToLower(name)
	best, bestD := "", -1
	for _, c := range candidates {
		d := Distance(ln, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(2, len(name)/3) {
		return "", false
	}
	return best, true
}

// Suggest is " Did you mean ...?" naming the closest candidates to name (up to three),
// or "" when none is close.
func Suggest(name string, candidates []string) string {
	type scored struct {
		s string
		d int
	}
	var best []scored
	ln := strings.ToLower(name)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := Distance(ln, lc)
		if strings.Contains(lc, ln) || strings.Contains(ln, lc) {
			d = min(d, 1)
		}
		if d <= max(2, len(name)/3) {
			best = append(best, scored{c, d})
		}
	}
	if len(best) == 0 {
		return ""
	}
	sort.Slice(best, func(i, j int) bool {
		if best[i].d != best[j].d {
			return best[i].d < best[j].d
		}
		return best[i].s < best[j].s
	})
	if len(best) > 3 {
		best = best[:3]
	}
	var names []string
	for _, b := range best {
		names = append(names, fmt.Sprintf("%q", b.s))
	}
	return " Did you mean " + strings.Join(names, " or ") + "?"
}
