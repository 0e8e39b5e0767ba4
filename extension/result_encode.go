package extension

import (
	"bytes"
	"fmt"

	gojson "github.com/goccy/go-json"
)

// encodeToolResult encodes r as the tool_result frame for id. Structured
// content is only included for GenNew hosts (and only when it is valid
// JSON). A frame that would not fit in a line is replaced by an error result
// saying how large it was.
func encodeToolResult(id string, r ToolResult, gen Generation) ([]byte, error) {
	return appendToolResult(nil, id, r, gen), nil
}

// appendToolResult appends the tool_result frame for id to dst, as
// encodeToolResult describes it. It writes the frame directly, with no
// intermediate value and no reflection: every tool call's answer goes through
// here, into a buffer the writer reuses. Keys come in the order type, id,
// content, then is_error, activate_tools and structured_content when set;
// a content block has type, then text, mime_type and data when not empty.
func appendToolResult(dst []byte, id string, r ToolResult, gen Generation) []byte {
	start := len(dst)
	dst = append(dst, `{"type":"tool_result","id":`...)
	dst = appendJSONString(dst, id)
	dst = append(dst, `,"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":`...)
		dst = appendJSONString(dst, c.Type)
		if c.Text != "" {
			dst = append(dst, `,"text":`...)
			dst = appendJSONString(dst, c.Text)
		}
		if c.MimeType != "" {
			dst = append(dst, `,"mime_type":`...)
			dst = appendJSONString(dst, c.MimeType)
		}
		if c.Data != "" {
			dst = append(dst, `,"data":`...)
			dst = appendJSONString(dst, c.Data)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if r.IsError {
		dst = append(dst, `,"is_error":true`...)
	}
	if len(r.ActivateTools) > 0 {
		dst = append(dst, `,"activate_tools":[`...)
		for i, n := range r.ActivateTools {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, n)
		}
		dst = append(dst, ']')
	}
	// Invalid structured content must not cost the whole result: it is left out.
	if sc := bytes.TrimSpace(r.StructuredContent); gen == GenNew && len(sc) > 0 && gojson.Valid(sc) {
		dst = append(dst, `,"structured_content":`...)
		dst = appendCompactJSON(dst, sc, "null")
	}
	dst = append(dst, '}')
	if n := len(dst) - start; n > maxFrame {
		dst = appendToolResult(dst[:start], id, ToolResult{
			Content: []Content{{Type: "text", Text: fmt.Sprintf(
				"tool result too large to deliver (%d bytes; the limit is %d): ask for less, e.g. a narrower query, a smaller range or fewer items",
				n, maxFrame)}},
			IsError: true,
		}, GenLegacy)
	}
	return dst
}
