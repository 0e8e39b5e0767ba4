package search

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// foldsOf splits queries into two folds of near-equal size within each kind:
// the queries of a kind, ordered by an FNV hash of their text, alternate
// between the folds. The split depends only on the query texts, so it is the
// same on every run and does not move when queries are appended.
func foldsOf(queries []Query) [2][]Query {
	byKind := map[string][]Query{}
	for _, q := range queries {
		byKind[q.Kind] = append(byKind[q.Kind], q)
	}
	hash := func(s string) uint32 {
		h := fnv.New32a()
		h.Write([]byte(s))
		return h.Sum32()
	}
	var folds [2][]Query
	for _, k := range Kinds {
		qs := byKind[k]
		slices.SortStableFunc(qs, func(a, b Query) int {
			ha, hb := hash(a.Q), hash(b.Q)
			switch {
			case ha < hb:
				return -1
			case ha > hb:
				return 1
			}
			return strings.Compare(a.Q, b.Q)
		})
		for i, q := range qs {
			folds[i%2] = append(folds[i%2], q)
		}
	}
	return folds
}

func TestFoldsOf(t *testing.T) {
	qs := []Query{
		{Q: "a", Kind: "task"}, {Q: "b", Kind: "task"}, {Q: "c", Kind: "task"},
		{Q: "d", Kind: "task"}, {Q: "e", Kind: "product"}, {Q: "f", Kind: "product"},
	}
	f := foldsOf(qs)
	count := func(fold []Query, kind string) (n int) {
		for _, q := range fold {
			if q.Kind == kind {
				n++
			}
		}
		return n
	}
	for _, k := range []string{"task", "product"} {
		if a, b := count(f[0], k), count(f[1], k); a != b {
			t.Errorf("kind %s split %d/%d, want even", k, a, b)
		}
	}
	again := foldsOf(slices.Clone(qs))
	same := func(a, b []Query) bool {
		return slices.EqualFunc(a, b, func(x, y Query) bool { return x.Q == y.Q })
	}
	if !same(f[0], again[0]) || !same(f[1], again[1]) {
		t.Errorf("folds differ between runs: %v vs %v", f, again)
	}
}

// TestSweepFolds prints the tuning half's figures by fold and by kind on one
// line each, for sweeping the ranking constants: edit a constant, rerun,
// compare (SEARCH_SWEEP=1 go test -count=1 -run TestSweepFolds ./search). A
// change is worth keeping when it raises MRR without lowering recall@5 on
// both folds and lowers no kind. It never reads report.json.
func TestSweepFolds(t *testing.T) {
	if os.Getenv("SEARCH_SWEEP") == "" {
		t.Skip("set SEARCH_SWEEP=1 to print the tuning half by fold and kind")
	}
	docs := loadCatalog(t)
	queries, err := LoadQueries(filepath.Join("testdata", "tuning.json"))
	if err != nil {
		t.Fatal(err)
	}
	ix := New(docs)
	folds := foldsOf(queries)
	line := func(name string, m Metrics) string {
		return fmt.Sprintf("%s %d %.4f %.4f %.4f", name, m.N, m.Recall1, m.Recall5, m.MRR)
	}
	out := []string{
		line("all", Evaluate(ix.Search, docs, queries)),
		line("fold0", Evaluate(ix.Search, docs, folds[0])),
		line("fold1", Evaluate(ix.Search, docs, folds[1])),
	}
	byKind := EvaluateByKind(ix.Search, docs, queries)
	for _, k := range Kinds {
		if m, ok := byKind[k]; ok {
			out = append(out, line(k, m))
		}
	}
	for _, l := range out {
		fmt.Println("SWEEP", l)
	}
}
