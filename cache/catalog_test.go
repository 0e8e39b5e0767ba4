package cache

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// catalogFile is the part of testdata/mcp-catalog/catalog.json the tests use.
type catalogFile struct {
	Servers []struct {
		Name  string `json:"name"`
		Tools []Tool `json:"tools"`
	} `json:"servers"`
}

// loadCatalog finds testdata/mcp-catalog/catalog.json in the working directory
// or one of its ancestors and returns its servers as cache entries, in
// catalog order, with normalized schemas.
func loadCatalog(tb testing.TB) (names []string, entries []*Server) {
	tb.Helper()
	path := testutil.CatalogPath(tb)
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var cat catalogFile
	if err := json.Unmarshal(data, &cat); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	updated := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, s := range cat.Servers {
		e := prepareEntry(&Server{
			Fingerprint: fmt.Sprintf("%064x", len(names)+1),
			ServerName:  s.Name + "-server",
			UpdatedAt:   updated,
			Tools:       s.Tools,
		}, updated)
		names = append(names, s.Name)
		entries = append(entries, e)
	}
	if len(names) == 0 {
		tb.Fatalf("%s: no servers", path)
	}
	return names, entries
}

// catalogCache builds a cache holding at least n tools (whole servers, the
// catalog replicated under suffixed names as often as needed).
func catalogCache(tb testing.TB, n int) (*File, int) {
	tb.Helper()
	names, entries := loadCatalog(tb)
	f := newFile()
	total := 0
	for round := 0; total < n; round++ {
		for i, e := range entries {
			if total >= n {
				break
			}
			name := names[i]
			if round > 0 {
				name = fmt.Sprintf("%s-%d", name, round)
			}
			f.Servers[name] = e
			total += len(e.Tools)
		}
	}
	return f, total
}
