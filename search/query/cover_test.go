package query

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCoverRunSpansMostCharacters pins how a run of CJK characters is cut
// into the lexicon's words: the cover that spans the most characters wins,
// so a word that straddles two others (数据集 across 数据集成, 费用 across
// 付费用户) does not take a character from each of them; among covers
// spanning as much, fewer words, then the longer word and the leftmost.
func TestCoverRunSpansMostCharacters(t *testing.T) {
	for _, tc := range []struct {
		run   string
		words []string
		want  []string
	}{
		{"数据集成", []string{"数据", "数据集", "集成"}, []string{"数据", "集成"}},
		{"大数据集群", []string{"数据", "数据集", "集群"}, []string{"数据", "集群"}},
		{"付费用户", []string{"付费", "费用", "用户"}, []string{"付费", "用户"}},
		{"员工工作表现评价", []string{"员工", "工作", "工作表", "表现", "评价"}, []string{"员工", "工作", "表现", "评价"}},
		// A word inside a longer one stays out; the longer word is fewer words.
		{"저장소", []string{"저장", "장소", "저장소"}, []string{"저장소"}},
		{"数据集", []string{"数据", "数据集"}, []string{"数据集"}},
		// Across two: both neighbours are kept.
		{"运行情况", []string{"运行", "行情", "情况"}, []string{"运行", "情况"}},
		// Spanning as much either way: the leftmost.
		{"误差分析", []string{"差分", "分析"}, []string{"差分"}},
		{"误差分析", []string{"误差", "差分", "分析"}, []string{"误差", "分析"}},
		// Spanning as much in as many words: the longer word first.
		{"甲乙丙丁戊", []string{"甲乙", "丙丁戊", "甲乙丙", "丁戊"}, []string{"甲乙丙", "丁戊"}},
		// Read from the left: the longest word the start allows, even where a
		// longer word further on would make an equal cover.
		{"甲乙丙丁戊己庚辛", []string{"甲乙", "丙丁戊己", "庚辛", "甲乙丙", "丁戊", "己庚辛"}, []string{"甲乙丙", "丁戊", "己庚辛"}},
	} {
		chars := []rune(tc.run)
		word := func(i, k int) string { return string(chars[i : i+k+1]) }
		got := []string{}
		for _, w := range CoverRun(nil, len(chars)-1, 4, func(i, k int) bool {
			return slices.Contains(tc.words, word(i, k))
		}) {
			got = append(got, word(w.I, w.N))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("cover of %s with %v = %v, want %v", tc.run, tc.words, got, tc.want)
		}
	}
}

// TestCoverRunIsBest checks CoverRun against every choice of words on small
// random runs: its words share no character, and no other choice spans more
// characters, or as many in fewer words.
func TestCoverRunIsBest(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 3000 {
		n := 1 + rng.IntN(9)
		maxWords := 1 + rng.IntN(4)
		known := map[RunWord]bool{}
		var cands []RunWord
		for i := range n {
			for k := 1; k <= maxWords && i+k <= n; k++ {
				if rng.IntN(3) == 0 {
					known[RunWord{i, k}] = true
					cands = append(cands, RunWord{i, k})
				}
			}
		}
		if len(cands) > 18 {
			continue // the subsets below stay few
		}
		got := CoverRun(nil, n, maxWords, func(i, k int) bool { return known[RunWord{i, k}] })
		chars, words := 0, len(got)
		for j, w := range got {
			if !known[w] || j > 0 && got[j-1].I+got[j-1].N >= w.I {
				t.Fatalf("round %d: cover %v of run %d with %v holds an unknown or overlapping word", round, got, n, cands)
			}
			chars += w.N + 1
		}
		// Every subset of the candidates that shares no character.
		for mask := 0; mask < 1<<len(cands); mask++ {
			c, nw, last, ok := 0, 0, -1, true
			for j, w := range cands { // cands are in order of their first pair
				if mask&(1<<j) == 0 {
					continue
				}
				if w.I <= last {
					ok = false
					break
				}
				c, nw, last = c+w.N+1, nw+1, w.I+w.N
			}
			if ok && (c > chars || c == chars && nw < words) {
				t.Fatalf("round %d: cover %v of run %d spans %d characters in %d words; %v of %v does better", round, got, n, chars, words, mask, cands)
			}
		}
	}
}

// TestCoverRunLongRun: a run longer than CoverRun's stack buffers, made of
// blocks that no word spans, is covered block by block as each block alone.
func TestCoverRunLongRun(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		m := 1 + rng.IntN(8) // a block's pairs; a gap character follows it
		maxWords := 1 + rng.IntN(4)
		block := map[RunWord]bool{}
		for i := range m {
			for k := 1; k <= maxWords && i+k <= m; k++ {
				if rng.IntN(2) == 0 {
					block[RunWord{i, k}] = true
				}
			}
		}
		one := CoverRun(nil, m, maxWords, func(i, k int) bool { return block[RunWord{i, k}] })
		const blocks = 40
		n := blocks*(m+2) - 1
		got := CoverRun(nil, n, maxWords, func(i, k int) bool {
			at := i % (m + 2)
			return i+k <= n && block[RunWord{at, k}] && at+k <= m
		})
		var want []RunWord
		for b := range blocks {
			for _, w := range one {
				want = append(want, RunWord{b*(m+2) + w.I, w.N})
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: a run of %d blocks of %v is covered %v, want %v", round, blocks, one, got, want)
		}
	}
}

// TestLexiconKeysFitCoverRun: CoverRun looks for words of up to 63 pairs;
// the lexicon's longest key must stay within that.
func TestLexiconKeysFitCoverRun(t *testing.T) {
	t.Parallel()
	if n := BilingualConcepts().MaxWords(); n < 1 || n > 63 {
		t.Errorf("the bilingual lexicon's longest key is %d pairs, want 1 to 63", n)
	}
}
