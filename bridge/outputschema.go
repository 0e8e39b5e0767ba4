package bridge

import (
	"github.com/zot-mcp/mcp-bridge/extension"
)

// A tool's MCP outputSchema is registered as output_schema, and its structuredContent
// returned as structured_content, only to hosts that announce capabilities (the newer zot
// that reads both). Every other host gets the text fallback: toolresult.Convert keeps the
// server's text, or the structured JSON as text when the server sent no text, and the
// extension layer leaves structured_content out.

// hostPayload is a tool's pre-encoded registration payload as this host takes it: the
// output schema only for hosts that announce capabilities.
func (b *Bridge) hostPayload(payload extension.ToolPayload) extension.ToolPayload {
	if b.payloadsAsMade() {
		return payload
	}
	return payload.WithoutOutputSchema()
}

// payloadsAsMade says whether this host takes every payload as it was made (hostPayload
// gives it back unchanged).
func (b *Bridge) payloadsAsMade() bool { return b.host.Generation() == extension.GenNew }
