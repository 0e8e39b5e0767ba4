package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDecodeTool: one listed tool is decoded on its own; only a tool without a usable
// name or input schema is refused, anything else malformed is dropped from it.
func TestDecodeTool(t *testing.T) {
	tests := []struct {
		name, raw, reason, schema string
	}{
		{"plain", `{"name":"t","description":"d","inputSchema":{"type":"object","properties":{}}}`, "", `{"type":"object","properties":{}}`},
		{"no schema", `{"name":"t"}`, "", `{"type":"object","properties":{}}`},
		{"numeric name", `{"name":7,"inputSchema":{}}`, "no name", ""},
		{"empty name", `{"name":"","inputSchema":{}}`, "no name", ""},
		{"not an object", `[1]`, "not a JSON object", ""},
		{"string schema", `{"name":"t","inputSchema":"x"}`, "input schema is a JSON string", ""},
		{"bad extras dropped", `{"name":"t","title":5,"description":["x"],"annotations":{"readOnlyHint":"yes"},"outputSchema":"x","inputSchema":{"type":["object","null"]}}`, "", `{"type":"object","properties":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, reason := decodeTool(json.RawMessage(tt.raw))
			if !strings.HasPrefix(reason, tt.reason) || (tt.reason == "") != (reason == "") {
				t.Fatalf("reason %q, want %q", reason, tt.reason)
			}
			if reason == "" && string(tool.RawInputSchema) != tt.schema {
				t.Fatalf("schema %s, want %s", tool.RawInputSchema, tt.schema)
			}
			if reason == "" && (tool.Title != "" || tool.RawOutputSchema != nil) && tt.name == "bad extras dropped" {
				t.Fatalf("malformed extras kept: %+v", tool)
			}
		})
	}
}
