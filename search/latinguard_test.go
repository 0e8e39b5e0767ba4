package search_test

import (
	"testing"

	"github.com/zot-mcp/mcp-bridge/search"
)

// TestEnglishRequestsKeepTheirTool: on both catalogs, English requests
// that hold a word a Latin language or Russian spells too, or a word of a
// news or picture intent, keep their tool first: each row's first hit is
// the tool named, or is not the one named by notFirst.
func TestEnglishRequestsKeepTheirTool(t *testing.T) {
	t.Parallel()
	_, _, union := unionCatalogs(t)
	ix := search.New(union.docs)
	tests := []struct{ query, first, notFirst string }{
		{"list breaking changes", "get_v3_breaking_changes", ""},
		{"create a disk image of the server", "image-create", ""},
		{"top story points in jira", "", "brave_news_search"},
		{"rota schedule", "", "directions_tool"},
		{"выключить уведомления", "", "browser_press_key"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 {
			t.Errorf("Search(%q) found nothing", tt.query)
			continue
		}
		got := union.docs[hits[0].Doc].Tool
		if tt.first != "" && got != tt.first || tt.notFirst != "" && got == tt.notFirst {
			t.Errorf("Search(%q) ranks %s first, want %q (not %q)", tt.query, got, tt.first, tt.notFirst)
		}
	}
}
