package toolresult

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

func TestConvertResult(t *testing.T) {
	big := strings.Repeat("x", 300<<10)
	cases := []struct {
		name      string
		in        *mcp.CallToolResult
		wantText  []string // substrings of the joined text
		wantImage bool
		isError   bool
		structure string
	}{
		{"nil", nil, []string{"(no result)"}, false, false, ""},
		{"empty", &mcp.CallToolResult{}, []string{"(empty result)"}, false, false, ""},
		{"text", mcp.NewToolResultText("hello"), []string{"hello"}, false, false, ""},
		{"error kept", mcp.NewToolResultError("bad input"), []string{"bad input"}, false, true, ""},
		{"image", mcp.NewToolResultImage("see", "aGVsbG8=", "image/png"), []string{"see"}, true, false, ""},
		{"audio", &mcp.CallToolResult{Content: []mcp.Content{mcp.AudioContent{Type: "audio", Data: "AAAA", MIMEType: "audio/wav"}}}, []string{"[audio audio/wav"}, false, false, ""},
		{"text resource", &mcp.CallToolResult{Content: []mcp.Content{mcp.EmbeddedResource{Type: "resource", Resource: mcp.TextResourceContents{URI: "file:///a.txt", Text: "inside"}}}}, []string{"file:///a.txt", "inside"}, false, false, ""},
		{"blob resource", &mcp.CallToolResult{Content: []mcp.Content{mcp.EmbeddedResource{Type: "resource", Resource: mcp.BlobResourceContents{URI: "file:///a.bin", Blob: "AAAA", MIMEType: "application/octet-stream"}}}}, []string{"file:///a.bin", "not shown"}, false, false, ""},
		{"link", &mcp.CallToolResult{Content: []mcp.Content{mcp.ResourceLink{Type: "resource_link", URI: "https://x/y", Name: "y"}}}, []string{"[resource link] https://x/y (y)"}, false, false, ""},
		{"structured", mcp.NewToolResultStructured(map[string]any{"sum": 3}, "3"), []string{"3"}, false, false, `{"sum":3}`},
		{"structured only", mcp.NewToolResultStructuredOnly(map[string]any{"a": 1}), []string{`{"a":1}`}, false, false, `{"a":1}`},
		{"over budget", mcp.NewToolResultText(big), []string{"[result truncated by mcp-bridge", "of 307200 bytes"}, false, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := Convert(tc.in, DefaultBudget)
			var text strings.Builder
			image := false
			total := 0
			for _, c := range out.Content {
				total += len(c.Text) + len(c.Data)
				if c.Type == "image" {
					image = c.MimeType == "image/png" && c.Data == "aGVsbG8="
				}
				text.WriteString(c.Text + "\n")
			}
			for _, w := range tc.wantText {
				if !strings.Contains(text.String(), w) {
					t.Errorf("text %q lacks %q", textcut.Truncate(text.String(), 300), w)
				}
			}
			if image != tc.wantImage || out.IsError != tc.isError || string(out.StructuredContent) != tc.structure {
				t.Errorf("image=%v is_error=%v structured=%s", image, out.IsError, out.StructuredContent)
			}
			if total > DefaultBudget.Text+DefaultBudget.Media+1024 {
				t.Errorf("result of %d bytes exceeds the budget", total)
			}
		})
	}
}

func TestMediaBudget(t *testing.T) {
	in := mcp.NewToolResultImage("", strings.Repeat("A", 100), "image/png")
	out := Convert(in, Budget{Text: 1000, Media: 10})
	if len(out.Content) != 1 || out.Content[0].Type != "text" || !strings.Contains(out.Content[0].Text, "omitted") {
		t.Fatalf("oversized image not replaced: %+v", out.Content)
	}
}

// TestManyTinyBlocksAreCutByBlocks: 300,000 one-byte blocks used to make a frame over the
// host's line cap, which replaced the whole result with "too large to deliver". Each
// block's wire overhead now counts against the budget and the cut keeps a marker.
func TestManyTinyBlocksAreCutByBlocks(t *testing.T) {
	tests := []struct {
		name    string
		content func(i int) mcp.Content
	}{
		{name: "text", content: func(int) mcp.Content { return mcp.TextContent{Type: "text", Text: "a"} }},
		{name: "images", content: func(int) mcp.Content { return mcp.ImageContent{Type: "image", Data: "A", MIMEType: "image/png"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &mcp.CallToolResult{}
			for i := 0; i < 300000; i++ {
				res.Content = append(res.Content, tt.content(i))
			}
			out := Convert(res, DefaultBudget)
			frame, err := json.Marshal(out.Content)
			if err != nil {
				t.Fatal(err)
			}
			if len(frame) > extension.MaxLine-4096 { // room for the frame around the content
				t.Fatalf("content of %d bytes does not fit the host's line cap %d", len(frame), extension.MaxLine)
			}
			last := out.Content[len(out.Content)-1].Text
			if !strings.Contains(last, "[result truncated by mcp-bridge") || !strings.Contains(last, "content blocks") {
				t.Fatalf("no truncation marker: %q", last)
			}
		})
	}
}
