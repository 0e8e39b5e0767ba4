package extras

import (
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// TestResourceContents: resource contents become tool result content: images stay
// images, text (also text sent as a blob) comes with its URI, other binary content is
// described, and everything is bounded like a tool result.
func TestResourceContents(t *testing.T) {
	big := strings.Repeat("x", toolresult.DefaultBudget.Text+10)
	res := &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
		mcp.BlobResourceContents{URI: "img://a", MIMEType: "image/png", Blob: "iVBORw0KGgo="},
		mcp.BlobResourceContents{URI: "t://b", MIMEType: "text/plain", Blob: "aGVsbG8="},
		mcp.BlobResourceContents{URI: "bin://c", MIMEType: "application/zip", Blob: "UEsDBA=="},
		mcp.TextResourceContents{URI: "t://big", Text: big},
	}}
	out := toolresult.Convert(AsResult(res), toolresult.DefaultBudget)
	if len(out.Content) < 4 || out.Content[0].Type != "image" || out.Content[0].MimeType != "image/png" || out.Content[0].Data != "iVBORw0KGgo=" {
		t.Fatalf("image not kept: %+v", out.Content)
	}
	text := ""
	for _, c := range out.Content[1:] {
		text += c.Text + "\n"
	}
	for _, want := range []string{"[resource t://b]\nhello", "[resource bin://c: application/zip, 8 bytes base64, not shown]", "[resource t://big]", "[result truncated by mcp-bridge"} {
		if !strings.Contains(text, want) {
			t.Errorf("converted contents lack %q", want)
		}
	}
	if len(text) > toolresult.DefaultBudget.Text+1024 {
		t.Errorf("text not bounded: %d bytes", len(text))
	}
}

func TestPromptText(t *testing.T) {
	for _, tt := range []struct {
		name string
		msgs []mcp.PromptMessage
		want string
	}{
		{"one user message", []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: "Review PR 12"}}}, "Review PR 12"},
		{"a conversation", []mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: "Q"}},
			{Role: mcp.RoleAssistant, Content: mcp.TextContent{Type: "text", Text: "A"}},
		}, "user: Q\n\nassistant: A"},
		{"image and resource", []mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: mcp.ImageContent{Type: "image", MIMEType: "image/png"}},
			{Role: mcp.RoleUser, Content: mcp.EmbeddedResource{Type: "resource", Resource: mcp.TextResourceContents{URI: "f://x", Text: "body"}}},
		}, "user: [image image/png omitted]\n\nuser: [resource f://x]\nbody"},
	} {
		if got := PromptText(&mcp.GetPromptResult{Messages: tt.msgs}); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestTasksText: /mcp <server>'s task list says how this host fetches a result (in proxy
// mode there is no mcp__task_result to name), and shows a task's id, the server's text,
// escaped.
func TestTasksText(t *testing.T) {
	tb := NewBoard(clock.System{})
	start := time.Unix(1000, 0)
	tb.Add(NewTask("s", "research", "t-1\x1b]52;c;eA==\x07\u202e", start, nil, zerolog.Nop(), func() {}))
	for _, fetch := range []string{`mcp__task_result {"server": …, "task": …}`, `mcp__call_tool {"server": …, "tool": "mcp:task_result", "arguments": {"task": …}}`} {
		got := tb.Text("s", start.Add(5*time.Second), fetch)
		want := "Tasks (1; fetch with " + fetch + "):\n  " + `t-1\x1b]52;c;eA==\x07\u202e` + "  research  running, started 5s ago\n"
		if got != want {
			t.Errorf("Text =\n%q, want\n%q", got, want)
		}
	}
}
