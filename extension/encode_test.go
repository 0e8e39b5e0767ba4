package extension

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestAppendToolFrame(t *testing.T) {
	tests := []struct {
		name string
		tool Tool
		want string
	}{
		{
			name: "minimal tool gets an object schema",
			tool: Tool{Name: "t"},
			want: `{"type":"register_tool","name":"t","description":"","schema":{"type":"object","properties":{}}}`,
		},
		{
			name: "pretty schema is compacted",
			tool: Tool{Name: "t", Description: "d", Schema: json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {}\n}\n")},
			want: `{"type":"register_tool","name":"t","description":"d","schema":{"type":"object","properties":{}}}`,
		},
		{
			name: "optional fields in order",
			tool: Tool{Name: "t", Schema: json.RawMessage(`{"type":"object"}`), Deferred: true, Interactive: true, OutputSchema: json.RawMessage(` {"type": "array"} `)},
			want: `{"type":"register_tool","name":"t","description":"","schema":{"type":"object"},"deferred":true,"interactive":true,"output_schema":{"type":"array"}}`,
		},
		{
			name: "namespace after the output schema, empty fields left out",
			tool: Tool{Name: "t", Schema: json.RawMessage(`{}`), Deferred: true, OutputSchema: json.RawMessage(`{}`), Namespace: Namespace{Name: "gh", Instructions: "say \"hi\""}},
			want: `{"type":"register_tool","name":"t","description":"","schema":{},"deferred":true,"output_schema":{},"namespace":"gh","namespace_instructions":"say \"hi\""}`,
		},
		{
			name: "invalid schemas",
			tool: Tool{Name: "t", Schema: json.RawMessage(`{"type":`), OutputSchema: json.RawMessage(`[`)},
			want: `{"type":"register_tool","name":"t","description":"","schema":{"type":"object","properties":{}}}`,
		},
		{
			name: "escaping",
			tool: Tool{Name: "a\"b\\c", Description: "line1\nline2\ttab\r\x01 <b>&é€😀 \xff end"},
			want: `{"type":"register_tool","name":"a\"b\\c","description":"line1\nline2\ttab\r\u0001 <b>&é€😀 \ufffd end","schema":{"type":"object","properties":{}}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prefix := []byte("keep")
			got := AppendToolFrame(prefix, tc.tool)
			if !bytes.HasPrefix(got, prefix) {
				t.Fatalf("dst prefix lost: %s", got)
			}
			got = got[len(prefix):]
			if string(got) != tc.want {
				t.Fatalf("frame:\n got %s\nwant %s", got, tc.want)
			}
			var decoded struct {
				Type, Name, Description string
			}
			if err := json.Unmarshal(got, &decoded); err != nil {
				t.Fatalf("frame is not JSON: %v", err)
			}
			if decoded.Type != "register_tool" || decoded.Name != tc.tool.Name {
				t.Fatalf("decoded %+v", decoded)
			}
			if bytes.IndexByte(got, '\n') >= 0 {
				t.Fatal("frame contains a newline")
			}
		})
	}
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	inputs := []string{"", "plain", "quote\"back\\slash", "\x00\x1f\x7f", "tab\tnl\ncr\r", "ünïcödé 😀", "bad \xc3 utf8 \xff\xfe"}
	for _, in := range inputs {
		got := appendJSONString(nil, in)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %s is not a JSON string: %v", in, got, err)
		}
		want, _ := json.Marshal(in)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("%q decodes to %q, encoding/json gives %q", in, back, wantBack)
		}
	}
}

// TestDescriptionSuffix: a tool's description and its suffix encode as the one string
// they make joined, in every payload and frame: with escapes on either side, invalid
// UTF-8 at the end of the description, a rune cut between the two, a suffix that starts
// with a rune, either part empty.
func TestDescriptionSuffix(t *testing.T) {
	t.Parallel()
	cases := []struct{ desc, suffix string }{
		{"", ""},
		{"Reads.", ""},
		{"", " [read-only]"},
		{"Reads.", " [read-only]"},
		{"quote\"back\\slash\t", " [a \"b\"\n]"},
		{"bad \xc3", " [read-only]"},
		{"cut \xe6\x97", "\xa5 rest"}, // 日 cut in two: joined it is one rune
		{"ends in \xe6", "\x97\xa5"},
		{"rune first", "é [x]"},
		{"\x00", "\x1f"},
	}
	for _, tc := range cases {
		tool := Tool{Name: "mcp__s__t", Description: tc.desc, DescriptionSuffix: tc.suffix, Schema: json.RawMessage(`{"type":"object"}`)}
		joined := tool
		joined.Description, joined.DescriptionSuffix = tc.desc+tc.suffix, ""
		for _, enc := range []struct {
			name string
			f    func(Tool) []byte
		}{
			{"payload", func(t Tool) []byte { return AppendToolPayload(nil, t) }},
			{"compact payload", func(t Tool) []byte { return AppendCompactToolPayload(nil, t) }},
			{"frame", func(t Tool) []byte { return AppendToolFrame(nil, t) }},
		} {
			if got, want := enc.f(tool), enc.f(joined); !bytes.Equal(got, want) {
				t.Errorf("%q + %q: %s %s, want %s", tc.desc, tc.suffix, enc.name, got, want)
			}
		}
		if got, want := appendJSONString2(nil, tc.desc, tc.suffix), appendJSONString(nil, tc.desc+tc.suffix); !bytes.Equal(got, want) {
			t.Errorf("%q + %q: %s, want %s", tc.desc, tc.suffix, got, want)
		}
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", MaxLine)
	tests := []struct {
		name     string
		input    string
		want     []string
		tooLongs int
	}{
		{name: "empty", input: "", want: nil},
		{name: "lines", input: "a\nbb\n\nccc\n", want: []string{"a", "bb", "", "ccc"}},
		{name: "crlf", input: "a\r\nb\r\n", want: []string{"a", "b"}},
		{name: "final line without newline", input: "a\nlast", want: []string{"a", "last"}},
		{name: "long line skipped", input: "a\n" + long + "\nb\n", want: []string{"a", "b"}, tooLongs: 1},
		{name: "long final line skipped", input: "a\n" + long, want: []string{"a"}, tooLongs: 1},
		{name: "longest allowed", input: long[:MaxLine-2] + "\nz\n", want: []string{long[:MaxLine-2], "z"}},
		{name: "longest allowed without newline", input: long[:MaxLine-2], want: []string{long[:MaxLine-2]}},
		{name: "one too many without newline", input: long[:MaxLine-1], tooLongs: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tooLongs int
			lr := newLineReader(strings.NewReader(tc.input), func(int, []byte) { tooLongs++ })
			var got []string
			for {
				l, err := lr.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(l))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d lines, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("line %d differs (len %d vs %d)", i, len(got[i]), len(tc.want[i]))
				}
			}
			if tooLongs != tc.tooLongs {
				t.Fatalf("too-long lines = %d, want %d", tooLongs, tc.tooLongs)
			}
		})
	}
}
