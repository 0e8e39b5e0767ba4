// Package toolresult is what a server's answer becomes for the host: an MCP tool result
// converted into the host's content blocks within a budget, and the bridge's own text and
// error results.
package toolresult

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/plainjson"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// Budget bounds what one tool result may carry to the host, so no frame comes near the
// host's 4 MiB line cap and no single result floods the model's context.
type Budget struct {
	Text  int // bytes of text across all text blocks (default 256 KiB)
	Media int // bytes of base64 image data (default 2 MiB)
	// Spill, when set, keeps the whole text of a result that Text cuts, and the marker
	// names where, so the model can read the rest.
	Spill Spill
}

// Spill keeps the whole text of a result the budget cut (package spill is the bridge's).
type Spill interface {
	// Save stores the text blocks in order and returns the path of the file that holds
	// them.
	Save(blocks []string) (path string, err error)
}

// DefaultBudget is used when a server sets no budget of its own.
var DefaultBudget = Budget{Text: 256 << 10, Media: 2 << 20}

// Convert turns an MCP tool result into the host's content blocks: text stays text,
// images stay images, audio, resources and resource links become readable text, and
// structuredContent is kept (the extension layer sends it only to hosts that take it).
// Text beyond the budget is cut with a visible marker saying how much was dropped and,
// when the budget has a Spill, where the whole text was saved.
func Convert(res *mcp.CallToolResult, budget Budget) extension.ToolResult {
	if res == nil {
		return extension.ToolResult{Content: []extension.Content{{Type: "text", Text: "(no result)"}}}
	}
	out := extension.ToolResult{IsError: res.IsError}
	text := &textBudget{left: budget.Text, keepAll: budget.Spill != nil}
	media := budget.Media
	for _, c := range res.Content {
		switch v := c.(type) {
		case mcp.TextContent:
			out.Content = appendText(out.Content, text, v.Text)
		case *mcp.TextContent:
			out.Content = appendText(out.Content, text, v.Text)
		case mcp.ImageContent:
			out.Content, media = appendImage(out.Content, text, media, v.Data, v.MIMEType)
		case *mcp.ImageContent:
			out.Content, media = appendImage(out.Content, text, media, v.Data, v.MIMEType)
		case mcp.AudioContent:
			out.Content = appendText(out.Content, text, fmt.Sprintf("[audio %s, %d bytes base64, not shown]", v.MIMEType, len(v.Data)))
		case *mcp.AudioContent:
			out.Content = appendText(out.Content, text, fmt.Sprintf("[audio %s, %d bytes base64, not shown]", v.MIMEType, len(v.Data)))
		case mcp.EmbeddedResource:
			out.Content = appendText(out.Content, text, DescribeResource(v.Resource))
		case *mcp.EmbeddedResource:
			out.Content = appendText(out.Content, text, DescribeResource(v.Resource))
		case mcp.ResourceLink:
			out.Content = appendText(out.Content, text, DescribeLink(v))
		case *mcp.ResourceLink:
			out.Content = appendText(out.Content, text, DescribeLink(*v))
		default:
			raw, err := plainjson.Marshal(c)
			if err != nil {
				raw = []byte(fmt.Sprintf("%v", c))
			}
			out.Content = appendText(out.Content, text, string(raw))
		}
	}
	if sc := structured(res); len(sc) > 0 {
		if len(sc) <= budget.Text {
			out.StructuredContent = sc
		}
		if len(out.Content) == 0 { // the spec says text SHOULD accompany it; do it for the model
			out.Content = appendText(out.Content, text, string(sc))
		}
	}
	if text.dropped > 0 {
		blocks := ""
		if text.droppedBlocks > 0 {
			blocks = fmt.Sprintf(" in %d of %d content blocks", text.blocks-text.droppedBlocks, text.blocks)
		}
		out.Content = append(out.Content, extension.Content{Type: "text", Text: fmt.Sprintf(
			"[result truncated by mcp-bridge: %d of %d bytes of text shown%s; %s]",
			text.used, text.used+text.dropped, blocks, spilled(budget.Spill, text.all))})
	}
	if len(out.Content) == 0 {
		out.Content = []extension.Content{{Type: "text", Text: "(empty result)"}}
	}
	return out
}

// blockOverhead is what one content block costs on the wire besides its text or data, so
// a result of many tiny blocks is cut by blocks instead of outgrowing the host's line cap.
const blockOverhead = len(`{"type":"image","mimeType":"","data":""},`)

type textBudget struct {
	left, used, dropped, blocks, droppedBlocks int
	keepAll                                    bool     // collect all (a Spill may need it)
	all                                        []string // every text block as it was before the cut
}

// spilled is the end of the truncation marker: where the whole text was saved, or how to
// get less.
func spilled(sp Spill, all []string) string {
	const less = "ask the tool for less, e.g. a narrower query or a page/limit argument"
	if sp == nil {
		return less
	}
	path, err := sp.Save(all)
	if err != nil {
		return fmt.Sprintf("the whole text could not be saved (%v), so %s", err, less)
	}
	return fmt.Sprintf("the whole text is saved in %s: read what is missing from there with your file tools, or %s", path, less)
}

func appendText(dst []extension.Content, b *textBudget, s string) []extension.Content {
	if s == "" {
		return dst
	}
	if b.keepAll {
		b.all = append(b.all, s)
	}
	b.blocks++
	if avail := b.left - blockOverhead; len(s) > avail {
		keep := textcut.Prefix(s, max(avail, 0))
		b.dropped += len(s) - len(keep)
		s = keep
	}
	if s == "" {
		b.droppedBlocks++
		return dst
	}
	b.left -= len(s) + blockOverhead
	b.used += len(s)
	return append(dst, extension.Content{Type: "text", Text: s})
}

func appendImage(dst []extension.Content, b *textBudget, left int, data, mime string) ([]extension.Content, int) {
	cost := len(data) + len(mime) + blockOverhead
	if cost > left {
		return appendText(dst, b, fmt.Sprintf("[image %s of %d bytes base64 omitted: over the %d-byte media budget of one result]", mime, len(data), max(left, 0))), left
	}
	return append(dst, extension.Content{Type: "image", MimeType: mime, Data: data}), left - cost
}

// DescribeResource is an embedded resource as text: a text resource with its URI, a
// binary one named and sized.
func DescribeResource(rc mcp.ResourceContents) string {
	switch r := rc.(type) {
	case mcp.TextResourceContents:
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	case *mcp.TextResourceContents:
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	case mcp.BlobResourceContents:
		return fmt.Sprintf("[resource %s: %s, %d bytes base64, not shown]", r.URI, r.MIMEType, len(r.Blob))
	case *mcp.BlobResourceContents:
		return fmt.Sprintf("[resource %s: %s, %d bytes base64, not shown]", r.URI, r.MIMEType, len(r.Blob))
	}
	raw, _ := plainjson.Marshal(rc)
	return "[resource] " + string(raw)
}

// DescribeLink is a resource link as text.
func DescribeLink(l mcp.ResourceLink) string {
	s := "[resource link] " + l.URI
	if l.Name != "" {
		s += " (" + l.Name + ")"
	}
	if l.MIMEType != "" {
		s += " " + l.MIMEType
	}
	if l.Description != "" {
		s += ": " + l.Description
	}
	return s
}

func structured(res *mcp.CallToolResult) json.RawMessage {
	if len(res.RawStructuredContent) > 0 && string(res.RawStructuredContent) != "null" {
		return res.RawStructuredContent
	}
	if res.StructuredContent == nil {
		return nil
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil
	}
	return raw
}

// Error is an is_error result with one text block.
func Error(format string, args ...any) extension.ToolResult {
	return extension.ToolResult{IsError: true, Content: []extension.Content{{Type: "text", Text: fmt.Sprintf(format, args...)}}}
}

// Text is a plain successful result with one text block.
func Text(s string) extension.ToolResult {
	return extension.ToolResult{Content: []extension.Content{{Type: "text", Text: s}}}
}
