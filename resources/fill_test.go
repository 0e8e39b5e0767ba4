package resources

import (
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/cache"
)

// TestFill: a listing becomes the cache entry's resources, templates and prompts, every
// field the cache keeps, each list sorted by its identifier.
func TestFill(t *testing.T) {
	rs := []mcp.Resource{
		mcp.NewResource("docs://b", "b", mcp.WithResourceDescription("second"), mcp.WithMIMEType("text/plain")),
		mcp.NewResource("docs://a", "a"),
	}
	ts := []mcp.ResourceTemplate{
		mcp.NewResourceTemplate("docs://page/{n}", "page", mcp.WithTemplateDescription("a page"), mcp.WithTemplateMIMEType("text/html")),
		mcp.NewResourceTemplate("docs://book/{n}", "book"),
		{Name: "no template"},
	}
	ps := []mcp.Prompt{
		mcp.NewPrompt("summarize", mcp.WithPromptDescription("sum up"), mcp.WithArgument("topic", mcp.ArgumentDescription("what"), mcp.RequiredArgument())),
		mcp.NewPrompt("greet"),
	}
	e := &cache.Server{}
	Fill(e, rs, ts, ps)
	for _, tt := range []struct {
		name      string
		got, want any
	}{
		{"resources", e.Resources, []cache.Resource{{URI: "docs://a", Name: "a"}, {URI: "docs://b", Name: "b", Description: "second", MIMEType: "text/plain"}}},
		{"templates", e.ResourceTemplates, []cache.ResourceTemplate{{Name: "no template"}, {URITemplate: "docs://book/{n}", Name: "book"},
			{URITemplate: "docs://page/{n}", Name: "page", Description: "a page", MIMEType: "text/html"}}},
		{"prompts", e.Prompts, []cache.Prompt{{Name: "greet"}, {Name: "summarize", Description: "sum up",
			Arguments: []cache.PromptArgument{{Name: "topic", Description: "what", Required: true}}}}},
	} {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, tt.got, tt.want)
		}
	}
}
