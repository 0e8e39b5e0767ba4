package search

import (
	"sort"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/search/lexicon"
	"github.com/zot-mcp/mcp-bridge/search/token"
)

// TestFieldIntentsUseToolWords: every word a semantic field maps to is a word
// of the catalog's tools, so an entry can only lead to what tools say.
func TestFieldIntentsUseToolWords(t *testing.T) {
	t.Parallel()
	ix := New(loadCatalog(t))
	var missing []string
	for k, tos := range lexicon.Fields() {
		for _, w := range tos {
			if _, ok := ix.vocab[token.Singular(w)]; !ok {
				missing = append(missing, k+" → "+w)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("fieldIntents map to words no catalog tool uses:\n%s", strings.Join(missing, "\n"))
	}
}
