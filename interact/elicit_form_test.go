package interact

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// sep1034Schema is the conformance suite's SEP-1034 form: every field optional, each with
// a default.
const sep1034Schema = `{"type":"object","properties":{
	"name":{"type":"string","description":"User name","default":"John Doe"},
	"age":{"type":"integer","description":"User age","default":30,"minimum":0,"maximum":150},
	"score":{"type":"number","description":"User score","default":95.5},
	"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
	"verified":{"type":"boolean","default":true},
	"hero":{"type":"string","oneOf":[{"const":"hero-1","title":"Superman"},{"const":"hero-2","title":"Wonder Woman"}]},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"maxItems":2},
	"email":{"type":"string","minLength":3}
},"required":["email"]}`

func formQuestion(t *testing.T, schema string) *Elicitation {
	t.Helper()
	var s any
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	q, err := NewElicitation("srv", mcp.ElicitationParams{Message: "Tell me", RequestedSchema: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestElicitAnswerValidation: answers are typed by the field, filled with the defaults and
// checked against the requested schema before anything is sent.
func TestElicitAnswerValidation(t *testing.T) {
	q := formQuestion(t, sep1034Schema)
	defaults := map[string]any{"name": "John Doe", "age": float64(30), "score": 95.5, "status": "active", "verified": true}
	tests := []struct {
		name    string
		values  map[string]string
		want    map[string]any // merged over defaults
		wantErr string
	}{
		{"required missing", nil, nil, "missing property 'email'"},
		{"typed values", map[string]string{"email": "a@b.c", "age": "41", "score": "1.5", "verified": "no", "status": "pending"},
			map[string]any{"email": "a@b.c", "age": int64(41), "score": 1.5, "verified": false, "status": "pending"}, ""},
		{"enum title maps to its value", map[string]string{"email": "a@b.c", "hero": "wonder woman"}, map[string]any{"email": "a@b.c", "hero": "hero-2"}, ""},
		{"multi-select", map[string]string{"email": "a@b.c", "tags": "a, c"}, map[string]any{"email": "a@b.c", "tags": []any{"a", "c"}}, ""},
		{"not an integer", map[string]string{"email": "a@b.c", "age": "forty"}, nil, `age: "forty" is not a whole number`},
		{"out of range", map[string]string{"email": "a@b.c", "age": "200"}, nil, "at /age: maximum: got 200, want 150"},
		{"outside the enum", map[string]string{"email": "a@b.c", "status": "gone"}, nil, "at /status: value must be one of"},
		{"too many items", map[string]string{"email": "a@b.c", "tags": "a,b,c"}, nil, "at /tags: maxItems"},
		{"too short", map[string]string{"email": "x"}, nil, "at /email: minLength"},
		{"not a boolean", map[string]string{"email": "a@b.c", "verified": "maybe"}, nil, "not a yes/no value"},
		{"unknown field", map[string]string{"emial": "a@b.c"}, nil, `no field "emial". Did you mean "email"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := q.Answer(tt.values)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), "fields: email, age") {
					t.Errorf("the error does not list the fields: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{}
			for k, v := range defaults {
				want[k] = v
			}
			for k, v := range tt.want {
				want[k] = v
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("content %#v, want %#v", got, want)
			}
		})
	}
}

// TestElicitDefaultsSEP1034: accepting takes every default with its type, as the
// conformance scenario elicitation-sep1034-client-defaults checks.
func TestElicitDefaultsSEP1034(t *testing.T) {
	q := formQuestion(t, strings.Replace(sep1034Schema, `"required":["email"]`, `"required":[]`, 1))
	got, err := q.Answer(nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(got)
	if string(raw) != `{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}` {
		t.Errorf("defaults sent as %s", raw)
	}
}

// TestElicitNote: the note names the server, the message, each field numbered with its
// type, description, default and required mark, and the commands to answer.
func TestElicitNote(t *testing.T) {
	q := formQuestion(t, sep1034Schema)
	q.N = 7
	note := q.NoteText()
	for _, want := range []string{`MCP server "srv" asks (request 7): Tell me`, "  1. email (string, required)",
		"age (integer): User age; default: 30", "status (string); one of: active, inactive, pending; default: active",
		"hero (string); one of: hero-1 (Superman), hero-2 (Wonder Woman)", "tags (list, comma-separated); one of: a, b, c",
		"/mcp answer 7 email=…", "/mcp accept 7", "/mcp decline 7", "/mcp cancel 7"} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
}
