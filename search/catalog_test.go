package search

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

type catalogJSON struct {
	Servers []struct {
		Name  string `json:"name"`
		Tools []struct {
			Name        string          `json:"name"`
			Title       string          `json:"title"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations struct {
				Title string `json:"title"`
			} `json:"annotations"`
		} `json:"tools"`
	} `json:"servers"`
}

// findCatalog locates the real tool catalog.
func findCatalog(t testing.TB) string { return testutil.CatalogPath(t) }

// sanitize replaces every rune outside [A-Za-z0-9] with '_'.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// loadCatalog returns the catalog's tools as Docs, in catalog order.
func loadCatalog(t testing.TB) []Doc {
	t.Helper()
	data, err := os.ReadFile(findCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	var c catalogJSON
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	var docs []Doc
	for _, s := range c.Servers {
		for _, tool := range s.Tools {
			title := tool.Title
			if title == "" {
				title = tool.Annotations.Title
			}
			docs = append(docs, Doc{
				ID:          "mcp__" + sanitize(s.Name) + "__" + sanitize(tool.Name),
				Server:      s.Name,
				Tool:        tool.Name,
				Title:       title,
				Description: tool.Description,
				Params:      ParamsFromSchema(tool.InputSchema),
			})
		}
	}
	if len(docs) == 0 {
		t.Fatal("catalog has no tools")
	}
	return docs
}

// replicate returns n docs made of copies of docs with suffixed server names.
func replicate(docs []Doc, n int) []Doc {
	out := make([]Doc, 0, n)
	for copyNo := 0; len(out) < n; copyNo++ {
		for _, d := range docs {
			if len(out) == n {
				break
			}
			if copyNo > 0 {
				suffix := "-" + itoa(copyNo)
				d.Server += suffix
				d.ID = "mcp__" + sanitize(d.Server) + "__" + sanitize(d.Tool)
			}
			out = append(out, d)
		}
	}
	return out
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
