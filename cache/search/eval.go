package search

import (
	"encoding/json"
	"fmt"
	"os"
)

// Query is one labelled task query of a quality set: the query text and the
// acceptable answers as "server/tool" (MCP tool name, not the zot ID).
type Query struct {
	Q    string   `json:"q"`
	Want []string `json:"want"`
}

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

// LoadQueries reads a JSON array of Query objects ({"q": …, "want": […]}).
// Queries without text or answers are an error.
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
	}
	return qs, nil
}
