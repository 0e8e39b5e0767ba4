package extension

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func TestParseFrame(t *testing.T) {
	tests := []struct {
		name, line string
		want       hostFrame
		ok         bool
	}{
		{name: "tool_call", line: `{"type":"tool_call","id":"7","name":"t","args":{"a":[1,2]}}`,
			want: hostFrame{Type: "tool_call", ID: "7", Name: "t", Args: json.RawMessage(`{"a":[1,2]}`)}, ok: true},
		{name: "command with string args", line: `{"type":"command_invoked","id":"c","name":"mcp","args":"status"}`,
			want: hostFrame{Type: "command_invoked", ID: "c", Name: "mcp", Args: json.RawMessage(`"status"`)}, ok: true},
		{name: "unknown fields ignored", line: `{"type":"tool_cancel","id":"7","extra":{"x":1}}`,
			want: hostFrame{Type: "tool_cancel", ID: "7"}, ok: true},
		// A field of another type where the frame type does not use it: still the frame.
		{name: "event with numeric id", line: `{"type":"event","id":5,"name":{"n":1}}`,
			want: hostFrame{Type: "event"}, ok: true},
		{name: "tool_cancel with numeric id", line: `{"type":"tool_cancel","id":5}`, want: hostFrame{Type: "tool_cancel"}},
		{name: "tool_call with numeric name", line: `{"type":"tool_call","id":"1","name":3}`, want: hostFrame{Type: "tool_call"}},
		{name: "malformed", line: `{"type":"tool_call",`},
		{name: "not an object", line: `[1]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			r := &runner{log: zerolog.New(&logs)}
			got, ok := r.parseFrame([]byte(tc.line))
			if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("parseFrame(%s) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
			}
			if !ok && !strings.Contains(logs.String(), "ignoring") {
				t.Fatalf("a frame that cannot be read is not logged: %q", logs.String())
			}
		})
	}
}
