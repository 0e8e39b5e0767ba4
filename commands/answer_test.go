package commands

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/interact"
)

// TestParseAssignments: values run to the next known field, quotes keep text literal.
func TestParseAssignments(t *testing.T) {
	q, err := interact.NewElicitation("srv", mcp.ElicitationParams{Message: "Tell me", RequestedSchema: map[string]any{
		"type": "object", "required": []any{"email"}, "properties": map[string]any{
			"name": map[string]any{"type": "string"}, "age": map[string]any{"type": "integer"}, "email": map[string]any{"type": "string"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line    string
		want    map[string]string
		wantErr string
	}{
		{"name=Ada Lovelace age=36", map[string]string{"name": "Ada Lovelace", "age": "36"}, ""},
		{`name="x age=3"`, map[string]string{"name": "x age=3"}, ""},
		{"email=a@b.c name=", map[string]string{"email": "a@b.c", "name": ""}, ""},
		{"name=a=b", map[string]string{"name": "a=b"}, ""},
		{"hello", nil, `"hello" is not field=value`},
		{`name="open`, nil, "unclosed"},
		{"", nil, "no field=value given"},
	}
	for _, tt := range tests {
		got, err := parseAssignments(tt.line, q)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: %v %v, want %v", tt.line, got, err, tt.want)
		}
	}
}
