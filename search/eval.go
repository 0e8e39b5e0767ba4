package search

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// Query is one labelled query of a quality set: the query text, its kind and
// the acceptable answers as "server/tool" (MCP tool name, not the zot ID).
type Query struct {
	Q    string   `json:"q"`
	Kind string   `json:"kind"` // one of Kinds
	Want []string `json:"want"`
}

// Kinds are the query kinds of the labelled sets, in report order: a task in
// everyday words naming no product; a request naming a product or server; a
// bare keyword; a parameter name; an exact or spaced tool name.
var Kinds = []string{"task", "product", "keyword", "parameter", "exact-name"}

// Metrics summarises a ranking over a query set.
type Metrics struct {
	N       int     // queries evaluated
	Recall1 float64 // share of queries whose first hit is acceptable
	Recall5 float64 // share of queries with an acceptable hit in the top 5
	MRR     float64 // mean reciprocal rank of the first acceptable hit in the top 10 (0 if none)
}

// String formats m on one line.
func (m Metrics) String() string {
	return fmt.Sprintf("n=%d recall@1=%.3f recall@5=%.3f MRR@10=%.3f", m.N, m.Recall1, m.Recall5, m.MRR)
}

// evalDepth is how many hits Evaluate asks for per query (the MRR cut-off).
const evalDepth = 10

// Evaluate runs every query through ix, asking for 10 hits, and measures
// recall@1, recall@5 and MRR@10 against the acceptable answers. Hits name
// docs by index into docs; a hit is acceptable when its "Server/Tool" is
// listed in the query's Want. Use it with Index.Search, or with a closure
// over Baseline.
func Evaluate(ix func(q string, limit int) []Hit, docs []Doc, queries []Query) Metrics {
	m := Metrics{N: len(queries)}
	if len(queries) == 0 {
		return m
	}
	for _, q := range queries {
		if r := firstRelevant(ix(q.Q, evalDepth), docs, q.Want); r > 0 {
			if r == 1 {
				m.Recall1++
			}
			if r <= 5 {
				m.Recall5++
			}
			m.MRR += 1 / float64(r)
		}
	}
	n := float64(len(queries))
	m.Recall1 /= n
	m.Recall5 /= n
	m.MRR /= n
	return m
}

// EvaluateByKind is Evaluate over each kind of query present in queries,
// keyed by Query.Kind.
func EvaluateByKind(ix func(q string, limit int) []Hit, docs []Doc, queries []Query) map[string]Metrics {
	byKind := map[string][]Query{}
	for _, q := range queries {
		byKind[q.Kind] = append(byKind[q.Kind], q)
	}
	out := make(map[string]Metrics, len(byKind))
	for k, qs := range byKind {
		out[k] = Evaluate(ix, docs, qs)
	}
	return out
}

// firstRelevant returns the 1-based rank of the first hit whose
// "Server/Tool" is in want, or 0 when none is.
func firstRelevant(hits []Hit, docs []Doc, want []string) int {
	for i, h := range hits {
		if h.Doc < 0 || h.Doc >= len(docs) {
			continue
		}
		key := docs[h.Doc].Server + "/" + docs[h.Doc].Tool
		for _, w := range want {
			if w == key {
				return i + 1
			}
		}
	}
	return 0
}

// LoadQueries reads a JSON array of Query objects ({"q": …, "kind": …,
// "want": […]}). Queries without text or answers, or of an unknown kind, are
// an error.
func LoadQueries(path string) ([]Query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var qs []Query
	if err := json.Unmarshal(data, &qs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, q := range qs {
		if q.Q == "" || len(q.Want) == 0 {
			return nil, fmt.Errorf("%s: query %d: empty q or want", path, i)
		}
		if !slices.Contains(Kinds, q.Kind) {
			return nil, fmt.Errorf("%s: query %d (%q): kind %q is not one of %v", path, i, q.Q, q.Kind, Kinds)
		}
	}
	return qs, nil
}
