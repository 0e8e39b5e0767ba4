package search

import (
	"reflect"
	"testing"

	"github.com/zot-mcp/mcp-bridge/search/query"
)

// TestReusedScratchRanksAsFresh runs queries of every shape (files, values, names,
// questions, joins and splits, select and exact names) on one index, so that each
// analysis reuses the working memory the previous one left in the pool, and compares
// every result and every analysis with those of a fresh index and a fresh analysis.
func TestReusedScratchRanksAsFresh(t *testing.T) {
	t.Parallel()
	docs := loadCatalog(t)
	queries := []string{
		"create a github issue about the login bug",
		"read the file config.yaml",
		"what's the weather at 40.7128, -74.0060 at 9am",
		"roll back the last deploy of db-1 in #ops",
		"New York to Boston by bike",
		"I'd like to know which indexes exist",
		"flowcharts of the pulls requests",
		"the Dockerfile",
		"every open pull request",
		"select:create_issue,list_files",
		"create_issue",
		"v1.2.0 release notes",
		"x",
	}
	shared := New(docs)
	for round := 0; round < 2; round++ {
		for i, q := range queries {
			if round == 1 {
				q = queries[len(queries)-1-i]
			}
			fresh := New(docs)
			if got, want := shared.Search(q, 10), fresh.Search(q, 10); !reflect.DeepEqual(got, want) {
				t.Errorf("%q after other queries: %v; on a fresh index: %v", q, got, want)
			}
			var s query.Analyser
			s.Analyse("list the pods in the default namespace and their logs", shared.vocab, nil)
			got, gotVerbs := s.Analyse(q, shared.vocab, nil)
			want, wantVerbs := analyseQuery(q, shared.vocab)
			if !reflect.DeepEqual(got, want) || gotVerbs != wantVerbs {
				t.Errorf("%q analysed after another query: %+v %b; fresh: %+v %b", q, got, gotVerbs, want, wantVerbs)
			}
		}
	}
}
