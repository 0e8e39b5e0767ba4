package toolresult

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// FuzzConvertResult: any tools/call result a server sends converts without a panic into
// content the host can take: every block typed, valid JSON when encoded, text within the
// budget (plus the truncation marker) and images within the media budget.
func FuzzConvertResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"audio","data":"eA==","mimeType":"audio/wav"}],"isError":true}`,
		`{"content":[{"type":"resource","resource":{"uri":"file:///x","text":"body"}},{"type":"resource_link","uri":"https://x","name":"n"}]}`,
		`{"content":[],"structuredContent":{"a":[1,2,{"b":null}]}}`,
		`{"content":[{"type":"text","text":"` + strings.Repeat("\u00e9", 3000) + `"}]}`,
		`{"content":[{"type":"mystery","x":1}]}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	budget := Budget{Text: 4096, Media: 8192}
	f.Fuzz(func(t *testing.T, data []byte) {
		raw := json.RawMessage(data)
		res, err := mcp.ParseCallToolResult(&raw)
		if err != nil {
			return
		}
		out := Convert(res, budget)
		if len(out.Content) == 0 {
			t.Fatal("no content")
		}
		text, media := 0, 0
		for _, c := range out.Content {
			switch c.Type {
			case "text":
				text += len(c.Text)
			case "image":
				media += len(c.Data)
			default:
				t.Fatalf("block of type %q", c.Type)
			}
		}
		if text > budget.Text+512 || media > budget.Media {
			t.Fatalf("over budget: %d bytes of text, %d of media", text, media)
		}
		if len(out.StructuredContent) > 0 && !json.Valid(out.StructuredContent) {
			t.Fatalf("structured content is not JSON: %q", out.StructuredContent)
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("cannot encode: %v", err)
		}
	})
}
