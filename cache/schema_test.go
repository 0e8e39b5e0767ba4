package cache

import (
	"encoding/json"
	"testing"
)

func TestNormalizeSchema(t *testing.T) {
	const empty = `{"type":"object","properties":{}}`
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"nil", "", empty},
		{"null", "null", empty},
		{"null with spaces", "  null\n", empty},
		{"string", `"object"`, empty},
		{"array", `[{"type":"object"}]`, empty},
		{"number", `42`, empty},
		{"invalid JSON", `{"type":"object",`, empty},
		{"invalid JSON garbage", `{type: object}`, empty},
		{"empty object", `{}`, empty},
		{"missing type", `{"properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"missing properties", `{"type":"object","required":[]}`, `{"type":"object","properties":{},"required":[]}`},
		{"properties null", `{"type":"object","properties":null}`, `{"type":"object","properties":{}}`},
		{"type null", `{"type":null,"properties":{}}`, `{"type":"object","properties":{}}`},
		{"missing type, properties null", `{"properties":null,"required":["a"]}`, `{"type":"object","properties":{},"required":["a"]}`},
		{"already normal, compacted", "{\n  \"type\": \"object\",\n  \"properties\": { \"a\": {\"type\": \"string\", \"description\": \"a  b\"} }\n}", `{"type":"object","properties":{"a":{"type":"string","description":"a  b"}}}`},
		{
			"keeps $defs, additionalProperties and order",
			`{"$schema":"http://json-schema.org/draft-07/schema#","$defs":{"x":{"type":"object","properties":null}},"type":"object","properties":{"p":{"$ref":"#/$defs/x"}},"additionalProperties":false}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","$defs":{"x":{"type":"object","properties":null}},"type":"object","properties":{"p":{"$ref":"#/$defs/x"}},"additionalProperties":false}`,
		},
		{"keeps other type", `{"type":"string"}`, `{"type":"string"}`},
		{"type in the middle", `{"title":"t","type":"object","required":["a"]}`, `{"title":"t","type":"object","properties":{},"required":["a"]}`},
		{"escaped key", `{"typ\u0065":"object"}`, `{"typ\u0065":"object","properties":{}}`},
		{"tricky strings in values", `{"description":"}{\"type\":[","type":"object","properties":{}}`, `{"description":"}{\"type\":[","type":"object","properties":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in json.RawMessage
			if tt.in != "" {
				in = json.RawMessage(tt.in)
			}
			got := NormalizeSchema(in)
			if string(got) != tt.want {
				t.Errorf("NormalizeSchema(%s) = %s, want %s", tt.in, got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("result is not valid JSON: %s", got)
			}
			if again := NormalizeSchema(got); string(again) != string(got) {
				t.Errorf("not idempotent: %s -> %s", got, again)
			}
			if len(in) > 0 && len(got) > 0 && &got[0] == &in[0] {
				t.Error("result aliases the input")
			}
		})
	}
}

func TestSameTools(t *testing.T) {
	base := func() *Server { return sampleEntry("1") }
	tests := []struct {
		name   string
		a, b   *Server
		modify func(*Server)
		want   bool
	}{
		{name: "both nil", want: true},
		{name: "one nil", a: base(), want: false},
		{name: "identical", a: base(), b: base(), want: true},
		{name: "UpdatedAt ignored", a: base(), b: base(), modify: func(e *Server) { e.UpdatedAt = e.UpdatedAt.Add(1) }, want: true},
		{name: "ServerName ignored", a: base(), b: base(), modify: func(e *Server) { e.ServerName = "x" }, want: true},
		{name: "fingerprint", a: base(), b: base(), modify: func(e *Server) { e.Fingerprint = "x" }},
		{name: "transport", a: base(), b: base(), modify: func(e *Server) { e.Transport = "sse" }},
		{name: "instructions", a: base(), b: base(), modify: func(e *Server) { e.Instructions = "x" }},
		{name: "tool removed", a: base(), b: base(), modify: func(e *Server) { e.Tools = e.Tools[:1] }},
		{name: "tool name", a: base(), b: base(), modify: func(e *Server) { e.Tools[0].Name = "x" }},
		{name: "tool title", a: base(), b: base(), modify: func(e *Server) { e.Tools[0].Title = "x" }},
		{name: "tool description", a: base(), b: base(), modify: func(e *Server) { e.Tools[0].Description = "x" }},
		{name: "input schema", a: base(), b: base(), modify: func(e *Server) { e.Tools[0].InputSchema = json.RawMessage(`{}`) }},
		{name: "output schema", a: base(), b: base(), modify: func(e *Server) { e.Tools[1].OutputSchema = nil }},
		{name: "annotations removed", a: base(), b: base(), modify: func(e *Server) { e.Tools[1].Annotations = nil }},
		{name: "hint value", a: base(), b: base(), modify: func(e *Server) { e.Tools[1].Annotations.ReadOnlyHint = boolp(false) }},
		{name: "hint unset", a: base(), b: base(), modify: func(e *Server) { e.Tools[1].Annotations.OpenWorldHint = nil }},
		{name: "hint added", a: base(), b: base(), modify: func(e *Server) { e.Tools[1].Annotations.DestructiveHint = boolp(false) }},
		{name: "same hint, other pointer", a: base(), b: base(), modify: func(e *Server) { e.Tools[1].Annotations.ReadOnlyHint = boolp(true) }, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.modify != nil {
				tt.modify(tt.b)
			}
			if got := SameTools(tt.a, tt.b); got != tt.want {
				t.Errorf("SameTools(a, b) = %v, want %v", got, tt.want)
			}
			if got := SameTools(tt.b, tt.a); got != tt.want {
				t.Errorf("SameTools(b, a) = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCheckInputSchema: what CheckInputSchema repairs, what it refuses, and that the
// keywords Python servers emit at the top level are kept.
func TestCheckInputSchema(t *testing.T) {
	const empty = `{"type":"object","properties":{}}`
	tests := []struct {
		name, in, want string
		fixed, bad     bool
	}{
		{"missing", "", empty, false, false},
		{"null", "null", empty, false, false},
		{"true", "true", empty, false, false},
		{"false", "false", empty, false, true},
		{"string", `"x"`, empty, false, true},
		{"number", `42`, empty, false, true},
		{"array", `[{}]`, empty, false, true},
		{"invalid", `{`, empty, false, true},
		{"string type", `{"type":"string"}`, `{"type":"string"}`, false, true},
		{"type list without object", `{"type":["string","null"]}`, `{"type":["string","null"]}`, false, true},
		{"nullable object", `{"type":["object","null"],"properties":{}}`, empty, true, false},
		{"numeric type", `{"type":7}`, empty, true, false},
		{"required string", `{"type":"object","properties":{},"required":"a"}`, `{"type":"object","properties":{},"required":["a"]}`, true, false},
		{"required mixed", `{"type":"object","properties":{},"required":["a",1]}`, `{"type":"object","properties":{},"required":["a"]}`, true, false},
		{"required object", `{"type":"object","properties":{},"required":{}}`, empty, true, false},
		{"properties array", `{"type":"object","properties":["a"]}`, empty, true, false},
		{
			"pydantic", `{"$defs":{"M":{"enum":["a"],"type":"string"}},"properties":{"m":{"$ref":"#/$defs/M"},"n":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null}},"required":["m"],"title":"A","type":"object"}`,
			`{"$defs":{"M":{"enum":["a"],"type":"string"}},"properties":{"m":{"$ref":"#/$defs/M"},"n":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null}},"required":["m"],"title":"A","type":"object"}`, false, false,
		},
		{
			"top-level keywords", `{"$schema":"s","description":"d","definitions":{},"anyOf":[{"required":["a"]}]}`,
			`{"type":"object","properties":{},"$schema":"s","description":"d","definitions":{},"anyOf":[{"required":["a"]}]}`, false, false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, fixes, err := CheckInputSchema(json.RawMessage(tt.in))
			if string(got) != tt.want || (len(fixes) > 0) != tt.fixed || (err != nil) != tt.bad {
				t.Errorf("CheckInputSchema(%s) = %s, %v, %v; want %s, fixed=%v, bad=%v", tt.in, got, fixes, err, tt.want, tt.fixed, tt.bad)
			}
			if !json.Valid(got) {
				t.Errorf("not valid JSON: %s", got)
			}
			if again, fixes, _ := CheckInputSchema(got); string(again) != string(got) || (err == nil && len(fixes) > 0) {
				t.Errorf("not idempotent: %s -> %s %v", got, again, fixes)
			}
		})
	}
}
