package resources

import (
	"reflect"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
)

// TestExtrasAreCleaned: the resources, templates and prompts the catalog offers carry
// their server text sanitized, whether they come from the cache (SetFrom) or a listing
// (Merge); an item whose identifier carries a hidden character is left out; and what
// searching and the prompt list show is the clean text.
func TestExtrasAreCleaned(t *testing.T) {
	raw := &cache.Server{
		Resources: []cache.Resource{
			{URI: "file:///a", Name: "a\x1b[2J", Title: "A\u202e", Description: "first\x07 file\U000E0041", MIMEType: "text/plain\x00"},
			{URI: "file:///b\u200b", Name: "b", Description: "hidden in its uri"},
		},
		ResourceTemplates: []cache.ResourceTemplate{
			{URITemplate: "db://{table}", Name: "table\u2066", Description: "rows\x1b]8;;x\x07"},
			{URITemplate: "db://\x1b{x}", Name: "x"},
		},
		Prompts: []cache.Prompt{
			{Name: "review", Title: "Review\x1b[31m", Description: "review\u200b it", Arguments: []cache.PromptArgument{{Name: "pr", Description: "the PR\x07", Required: true}}},
			{Name: "re\u200bview", Description: "hidden in its name"},
			{Name: "bad-arg", Arguments: []cache.PromptArgument{{Name: "p\x1br"}}},
		},
	}
	want := &cache.Server{
		Resources:         []cache.Resource{{URI: "file:///a", Name: "a[2J", Title: "A", Description: "first file", MIMEType: "text/plain"}},
		ResourceTemplates: []cache.ResourceTemplate{{URITemplate: "db://{table}", Name: "table", Description: "rows]8;;x"}},
		Prompts:           []cache.Prompt{{Name: "review", Title: "Review[31m", Description: "review it", Arguments: []cache.PromptArgument{{Name: "pr", Description: "the PR", Required: true}}}},
	}
	var fromCache, fromList Holder
	fromCache.SetFrom(map[string]*cache.Server{"s": raw}, []string{"s"})
	fromList.Merge(map[string]*cache.Server{"s": raw})
	for how, h := range map[string]*Holder{"cache": &fromCache, "listing": &fromList} {
		got := h.Load().Servers["s"]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("from the %s: %+v\nwant %+v", how, got, want)
		}
		docs := h.Load().Search("first file rows", 5, func(string) bool { return true })
		if len(docs) != 2 {
			t.Fatalf("from the %s: search found %d", how, len(docs))
		}
		for _, d := range docs {
			if line := Line(d, 100); line != "- server=\"s\" uri=\"file:///a\" name=\"a[2J\" title=\"A\" (text/plain): first file\n" &&
				line != "- server=\"s\" uri_template=\"db://{table}\" name=\"table\": rows]8;;x [template: fill in the {placeholders} to get the uri]\n" {
				t.Errorf("from the %s: line %q", how, line)
			}
		}
	}
	if raw.Resources[0].Name != "a\x1b[2J" {
		t.Error("the cache entry itself was changed")
	}
}
