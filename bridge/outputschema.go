package bridge

import (
	"bytes"
	"encoding/json"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// A tool's MCP outputSchema is registered as output_schema, and its structuredContent
// returned as structured_content, only to hosts that announce capabilities (the newer zot
// that reads both). Every other host gets the text fallback: ConvertResult keeps the
// server's text, or the structured JSON as text when the server sent no text, and the
// extension layer leaves structured_content out.

// hostPayload is a tool's pre-encoded registration payload as this host takes it: the
// payload itself on hosts that announce capabilities, without output_schema elsewhere.
func (b *Bridge) hostPayload(payload []byte) []byte {
	if b.host.Generation() == extension.GenNew || !bytes.Contains(payload, []byte(`"output_schema":`)) {
		return payload
	}
	return stripOutputSchema(payload)
}

// stripOutputSchema removes output_schema from a payload (the members of a register_tool
// object after its name). Only hosts without capabilities in an explicitly configured
// deferred or direct mode take this path, so it may decode.
func stripOutputSchema(payload []byte) []byte {
	var m map[string]json.RawMessage
	obj := append(append([]byte{'{'}, payload...), '}')
	if json.Unmarshal(obj, &m) != nil {
		return payload
	}
	delete(m, "output_schema")
	out, err := json.Marshal(m)
	if err != nil || len(out) < 2 {
		return payload
	}
	return out[1 : len(out)-1]
}
