package session

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// BenchmarkReplyLimiter: a stream through the limiter as mcp-go reads it, per framing:
// lines within the cap (the validity scan), an event stream and a body that carry one
// answer (the top-level member scan that finds the reply's id as it streams past), and
// over-size lines (the head and tail windows that name what was dropped).
func BenchmarkReplyLimiter(b *testing.B) {
	text := strings.Repeat(`lorem ipsum \"dolor\" sit amet, `, 64)
	result := `{"content":[{"type":"text","text":"` + text + `"},{"type":"text","text":"` + text + `"}],"structuredContent":{"rows":[[1,2.5,"a"],[3,4,"b"]],"ok":true}}`
	reply := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}` }
	var lines, events, over strings.Builder
	for range 64 {
		lines.WriteString(reply("7") + "\n")
		events.WriteString("event: message\ndata: " + `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}` + "\n\n")
		over.WriteString(`{"jsonrpc":"2.0","result":` + result + `,"id":7}` + "\n")
	}
	big := `{"jsonrpc":"2.0","result":{"content":[` + strings.Repeat(`{"type":"text","text":"`+text+`"},`, 256) + `{"type":"text","text":""}]},"id":2}`
	events.WriteString("event: message\ndata: " + big + "\n\n")
	for _, tc := range []struct {
		name string
		in   string
		o    LimitOptions
	}{
		{"lines", lines.String(), LimitOptions{Limit: 1 << 20}},
		{"events=one-answer", events.String(), LimitOptions{Limit: 1 << 20, Framing: FrameEvents, ID: json.RawMessage(`2`), OneAnswer: true}},
		{"body=one-answer", big, LimitOptions{Limit: 1 << 20, Framing: FrameBody, ID: json.RawMessage(`2`), OneAnswer: true}},
		{"lines=over-size", over.String(), LimitOptions{Limit: 1 << 10, Dropped: func(error) {}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.in)))
			r := strings.NewReader(tc.in)
			br := bufio.NewReaderSize(nil, 4096)
			for b.Loop() {
				r.Reset(tc.in)
				l := NewReplyLimiter(r, tc.o)
				br.Reset(l)
				if _, err := io.Copy(io.Discard, br); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
