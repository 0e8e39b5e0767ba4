package extension

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rs/zerolog"
)

// wireResult is the tool_result frame as the protocol describes it, for encoding/json.
type wireResult struct {
	Type              string          `json:"type"`
	ID                string          `json:"id"`
	Content           []Content       `json:"content"`
	IsError           bool            `json:"is_error,omitempty"`
	ActivateTools     []string        `json:"activate_tools,omitempty"`
	StructuredContent json.RawMessage `json:"structured_content,omitempty"`
}

// appendToolResult writes the frame by hand; the host must read exactly what encoding/json
// would have written for the same result.
func TestAppendToolResultMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		name string
		id   string
		r    ToolResult
		gen  Generation
		want wireResult // Content nil becomes []
	}{
		{name: "no content", id: "1", want: wireResult{Content: []Content{}}},
		{name: "text", id: "2", r: ToolResult{Content: []Content{{Type: "text", Text: "hello"}}}},
		{name: "escapes", id: "q\"\\\n", r: ToolResult{Content: []Content{{Type: "text",
			Text: "a\"b\\c\nd\re\tf\x00g\x1fh <&> é 漢 \u2028 \U0001F600 bad:\xff\xfe end"}}}},
		{name: "image and error", id: "3", r: ToolResult{IsError: true, Content: []Content{
			{Type: "text", Text: "see"}, {Type: "image", MimeType: "image/png", Data: "iVBORw0KGgo="}}}},
		{name: "activate tools", id: "4", r: ToolResult{Content: []Content{{Type: "text", Text: "x"}},
			ActivateTools: []string{"mcp__a__b", "mcp__c__d"}}},
		{name: "empty activate list left out", id: "5", r: ToolResult{Content: []Content{{Type: "text", Text: "x"}}, ActivateTools: []string{}}},
		{name: "structured content compacted", id: "6", gen: GenNew, r: ToolResult{Content: []Content{{Type: "text", Text: "x"}},
			StructuredContent: json.RawMessage("{\n  \"sum\": 3,\n  \"list\": [1, 2]\n}\n")}},
		{name: "structured content only for new hosts", id: "7", gen: GenLegacy, r: ToolResult{Content: []Content{{Type: "text", Text: "x"}},
			StructuredContent: json.RawMessage(`{"sum":3}`)}},
		{name: "invalid structured content left out", id: "8", gen: GenNew, r: ToolResult{Content: []Content{{Type: "text", Text: "x"}},
			StructuredContent: json.RawMessage(`{"sum":`)}},
		{name: "blank structured content left out", id: "9", gen: GenNew, r: ToolResult{Content: []Content{{Type: "text", Text: "x"}},
			StructuredContent: json.RawMessage(" \n")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := wireResult{Type: "tool_result", ID: tc.id, Content: tc.r.Content, IsError: tc.r.IsError, ActivateTools: tc.r.ActivateTools}
			if w.Content == nil {
				w.Content = []Content{}
			}
			if tc.gen == GenNew && json.Valid(tc.r.StructuredContent) {
				w.StructuredContent = tc.r.StructuredContent
			}
			want, err := json.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			got := appendToolResult([]byte("prefix"), tc.id, tc.r, tc.gen)
			if string(got[:6]) != "prefix" {
				t.Fatalf("dst's bytes were changed: %q", got[:6])
			}
			got = got[6:]
			if !json.Valid(got) {
				t.Fatalf("not valid JSON: %s", got)
			}
			var g, wv any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(want, &wv); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, wv) {
				t.Fatalf("frame\n%s\nreads differently from encoding/json's\n%s", got, want)
			}
			if bytes.IndexByte(got, '\n') >= 0 {
				t.Fatalf("newline inside a frame: %s", got)
			}
		})
	}
}

// signalWriter reports every write on a channel made beforehand.
type signalWriter struct{ wrote chan struct{} }

func (s *signalWriter) Write(p []byte) (int, error) {
	s.wrote <- struct{}{}
	return len(p), nil
}

// Once the writer's buffers are warm, a tool_result costs no allocation from encoding to
// the write: its buffer goes back to the pool without a new pointer to it.
func TestToolResultFrameAllocatesNothing(t *testing.T) {
	w := newWriter(zerolog.Nop())
	out := &signalWriter{wrote: make(chan struct{}, 1)}
	go w.loop(out)
	defer w.close(nil)
	res := ToolResult{Content: []Content{{Type: "text", Text: "hello"}}}
	allocs := testing.AllocsPerRun(200, func() {
		if !w.sendToolResult("call-1", res, GenNew) {
			t.Fatal("not sent")
		}
		<-out.wrote
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per tool_result", allocs)
	}
}
