package extension

import (
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
)

// TestUndecodableToolCallAnswered: a tool_call whose arguments nest deeper than the JSON
// decoders read (100,000 levels), or whose frame has a raw control character, gets an
// error result for its id that names the fault, and the log says so; the calls behind it
// are served. A frame whose id cannot be read is only logged. Before, the frame was
// logged as malformed and the host waited its full deadline for a tool_result.
func TestUndecodableToolCallAnswered(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	tests := []struct {
		name     string
		line     string
		answered string // a word of the answer ("": none)
		fault    string // the log's fault field
	}{
		{"arguments nested 100,000 deep", `{"type":"tool_call","id":"deep","name":"t","args":{"a":` + deep + `}}`, "10000 levels", "nesting too deep"},
		{"one level past the decoders", `{"type":"tool_call","id":"deep","name":"t","args":` + strings.Repeat("[", jsonscan.MaxDepth) + strings.Repeat("]", jsonscan.MaxDepth) + `}`, "10000 levels", "nesting too deep"},
		{"a raw control character", "{\"type\":\"tool_call\",\"id\":\"deep\",\"name\":\"t\",\"args\":{\"a\":\"x\x01y\"}}", "byte 0x01", "control character"},
		{"id after the arguments, cut out of reach", `{"type":"tool_call","name":"t","args":{"a":` + deep + `},"id":"deep"}`, "", "nesting too deep"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := startRun(t, &testHandler{}, Options{}, hooks{})
			x.handshake(newAck())
			if err := x.host.SendLine([]byte(tc.line)); err != nil {
				t.Fatal(err)
			}
			syncPoint(t, x, "sync")
			answered := false
			for _, f := range x.host.Pending() {
				answered = answered || (f.Type == "tool_result" && f.ID == "deep")
			}
			if answered != (tc.answered != "") {
				t.Fatalf("answered = %v, want %v; log: %s", answered, tc.answered != "", x.logs.String())
			}
			if tc.answered != "" {
				res, err := x.host.WaitToolResult(x.ctx, "deep")
				if err != nil || !res.IsError || !strings.Contains(res.Text(), tc.answered) || !strings.Contains(res.Text(), "tool call t was not run") {
					t.Fatalf("result for the undecodable call: %+v %v", res, err)
				}
				if l := x.logs.String(); !strings.Contains(l, `"fault":"`+tc.fault+`"`) || !strings.Contains(l, `"id":"deep"`) {
					t.Fatalf("log does not name the fault and id: %s", l)
				}
			}
			if res, err := x.host.CallTool(x.ctx, "next", "t", nil); err != nil || res.Text() != "t:{}" {
				t.Fatalf("call after the undecodable frame = %+v, %v", res, err)
			}
		})
	}
}
