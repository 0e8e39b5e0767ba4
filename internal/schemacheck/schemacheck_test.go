package schemacheck

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestCompile: a server's schema compiles on its own (internal $refs work); one that is
// not JSON, not a schema, or refers to anything outside itself is not checked at all.
func TestCompile(t *testing.T) {
	tests := []struct {
		name, schema string
		ok           bool
	}{
		{"object", `{"type":"object","properties":{"n":{"type":"integer"}}}`, true},
		{"internal ref", `{"$defs":{"n":{"type":"integer"}},"properties":{"n":{"$ref":"#/$defs/n"}}}`, true},
		{"not json", `{"type":`, false},
		{"not a schema", `{"type":42}`, false},
		{"external ref", `{"properties":{"n":{"$ref":"https://example.com/n.json"}}}`, false},
		{"file ref", `{"properties":{"n":{"$ref":"file:///etc/passwd"}}}`, false},
	}
	for _, tt := range tests {
		if got := Compile("tool", []byte(tt.schema)); (got != nil) != tt.ok {
			t.Errorf("%s: compiled %v, want %v", tt.name, got != nil, tt.ok)
		}
	}
}

// TestErrorText: every failing location is named, sorted, at most six and a count.
func TestErrorText(t *testing.T) {
	props := []string{}
	for _, p := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		props = append(props, `"`+p+`":{"type":"integer"}`)
	}
	sch := Compile("t", []byte(`{"type":"object","properties":{`+strings.Join(props, ",")+`}}`))
	if sch == nil {
		t.Fatal("schema did not compile")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"a":"x","b":"x","c":"x","d":"x","e":"x","f":"x","g":"x","h":"x"}`)))
	if err != nil {
		t.Fatal(err)
	}
	got := ErrorText(sch.Validate(inst))
	if !strings.HasPrefix(got, "at /a: got string, want integer; at /b:") || !strings.HasSuffix(got, "; and 2 more") {
		t.Errorf("ErrorText = %q", got)
	}
	if got := ErrorText(errors.New("plain")); got != "plain" {
		t.Errorf("a plain error became %q", got)
	}
}
