package search_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/search"
)

// broadTool is a tool that mentions everything: a 2,000-word manual and
// 30 parameters made of the catalog's most common description words, the
// way a generic tool (run a query, call any endpoint) describes itself.
func broadTool(t *testing.T, docs []search.Doc) search.Doc {
	t.Helper()
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, w := range bm25Words(d.Description) {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	var common []string
	for w, n := range df {
		// Words of three letters or more that at least one tool in 70 uses.
		if len(w) > 2 && n*70 >= len(docs) {
			common = append(common, w)
		}
	}
	sort.Slice(common, func(i, j int) bool {
		if df[common[i]] != df[common[j]] {
			return df[common[i]] > df[common[j]]
		}
		return common[i] < common[j]
	})
	const params, paramWords = 30, 6
	if len(common) < params*(1+paramWords) {
		t.Fatalf("the catalog has %d common words, want at least %d for the broad tool", len(common), params*(1+paramWords))
	}
	manual := make([]string, 2000)
	for i := range manual {
		manual[i] = common[i%len(common)]
	}
	d := search.Doc{ID: "mcp__omni__run", Server: "omni", Tool: "run", Description: strings.Join(manual, " ")}
	for i := range params {
		from := params + i*paramWords
		d.Params = append(d.Params, search.Param{Name: common[i], Description: strings.Join(common[from:from+paramWords], " ")})
	}
	return d
}

// TestSpecificEvidenceBeatsBreadth (issue 26, must-have 4): over each
// catalog, with a 2,000-word tool that uses the catalog's common words and
// a five-word tool added, the broad tool does not rank first on common words
// alone, and the five-word tool ranks first for a request naming its one
// specific word, however many common words come with it.
func TestSpecificEvidenceBeatsBreadth(t *testing.T) {
	t.Parallel()
	first, second, union := unionCatalogs(t)
	const broadID, shortID = "mcp__omni__run", "mcp__tides__tide_times"
	short := search.Doc{ID: shortID, Server: "tides", Tool: "tide_times", Description: "Tide times for a harbour."}
	tests := []struct {
		q    string
		want string // "": any tool but the broad one first
	}{
		// Only common words: the broad tool matches every one of them.
		{"get the list of all data with their name and status", ""},
		{"search all files and data for the name", ""},
		{"show me all the information about this project", ""},
		{"update the status of the user with the new value", ""},
		{"create a new request for the project with the name and the url", ""},
		// One specific word among common ones.
		{"get the tide times for the harbour", shortID},
		{"tide times with their status and data for all users of the project", shortID},
		{"the tide times for the whole list of all the users and projects with their status, name and data", shortID},
		{"when is high tide", shortID},
	}
	for _, c := range []struct {
		name string
		cat  unionCatalog
	}{{"first", first}, {"second", second}, {"union", union}} {
		docs := append([]search.Doc{broadTool(t, c.cat.docs), short}, c.cat.docs...)
		ix := search.New(docs)
		for _, tt := range tests {
			hits := ix.Search(tt.q, 3)
			if len(hits) == 0 {
				t.Errorf("%s catalog: %q finds nothing", c.name, tt.q)
				continue
			}
			var got []string
			for _, h := range hits {
				got = append(got, docs[h.Doc].ID)
			}
			switch {
			case got[0] == broadID:
				t.Errorf("%s catalog: %q ranks the broad tool first on common words alone: %v", c.name, tt.q, got)
			case tt.want != "" && got[0] != tt.want:
				t.Errorf("%s catalog: %q ranks %v, want the five-word tool %s first", c.name, tt.q, got, tt.want)
			}
		}
	}
}
