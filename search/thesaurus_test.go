package search

import (
	"testing"
)

// TestThesaurusReachesToolWords: a request in words no tool and no lexicon
// entry uses reaches the tool through a general-English synonym or the base
// form of an irregular word, and the other tools keep their order.
func TestThesaurusReachesToolWords(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		mk("jobs", "stop_job", "Stop a running job"),
		mk("jobs", "list_jobs", "List the jobs and their state"),
		mk("fs", "repair_index", "Repair a damaged search index"),
		mk("fs", "read_file", "Read a file"),
		mk("docs", "list_child_pages", "List the child pages of a page"),
		mk("docs", "get_page", "Get one page"),
	}
	ix := New(docs)
	tests := []struct{ query, first string }{
		// "halt" and "mend" are in no tool and no lexicon entry; WordNet
		// relates them to stop and repair.
		{"halt the nightly job", "mcp__jobs__stop_job"},
		{"mend the damaged index", "mcp__fs__repair_index"},
		{"mending the index", "mcp__fs__repair_index"}, // a synonym of the base form
		// An irregular plural: "children" is "child".
		{"list the children of this page", "mcp__docs__list_child_pages"},
	}
	for _, tt := range tests {
		wantFirst(t, ix, docs, tt.query, tt.first)
	}
}
