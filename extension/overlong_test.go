package extension

import (
	"context"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
)

// TestOverlongToolCallAnswered: a tool_call on a line over the 4 MiB cap gets an error
// result for its id when the id can be read from the start of the line. Before, the line
// was only logged and the host waited its full 60 s deadline.
func TestOverlongToolCallAnswered(t *testing.T) {
	tests := []struct {
		name     string
		head     string
		answered bool
	}{
		{"host order", `{"type":"tool_call","id":"big","name":"t","args":{"text":"`, true},
		{"nested value before the id", `{"type":"tool_call","meta":{"a":[1,{"b":"}"}]},"id":"big","name":"t","args":{"text":"`, true},
		{"id after the cut", `{"type":"tool_call","args":{"text":"`, false},
		{"unknown type", `{"type":"bogus","id":"big","pad":"`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := startRun(t, &testHandler{}, Options{}, hooks{})
			x.handshake(newAck())
			line := tc.head + strings.Repeat("a", MaxLine) + `"}}`
			if err := x.host.SendLine([]byte(line)); err != nil {
				t.Fatal(err)
			}
			syncPoint(t, x, "sync")
			answered := false
			for _, f := range x.host.Pending() {
				answered = answered || (f.Type == "tool_result" && f.ID == "big")
			}
			if answered != tc.answered {
				t.Fatalf("answered = %v, want %v", answered, tc.answered)
			}
			if tc.answered {
				res, err := x.host.WaitToolResult(x.ctx, "big")
				if err != nil || !res.IsError || !strings.Contains(res.Text(), "line limit") {
					t.Fatalf("result for the over-long call: %+v %v", res, err)
				}
			}
			if res, err := x.host.CallTool(x.ctx, "next", "t", nil); err != nil || res.Text() != "t:{}" {
				t.Fatalf("call after the long line = %+v, %v", res, err)
			}
		})
	}
}

// TestDuplicateInFlightIDRejected: a second tool_call with an id that is still running is
// answered with an error at once and not run; the first call still gets its own result.
// Before, the second call ran too and replaced the first in the in-flight table.
func TestDuplicateInFlightIDRejected(t *testing.T) {
	release := make(chan struct{})
	started := make(chan string, 4)
	h := &testHandler{call: func(ctx context.Context, c ToolCall) ToolResult {
		started <- string(c.Args)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return ToolResult{Content: []Content{{Type: "text", Text: "done:" + string(c.Args)}}}
	}}
	x := startRun(t, h, Options{}, hooks{})
	x.handshake(newAck())
	if err := x.host.SendToolCall("same", "t", map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	<-started
	if err := x.host.SendToolCall("same", "t", map[string]int{"n": 2}); err != nil {
		t.Fatal(err)
	}
	res, err := x.host.WaitToolResult(x.ctx, "same")
	if err != nil || !res.IsError || !strings.Contains(res.Text(), "still running") {
		t.Fatalf("duplicate id: %+v %v", res, err)
	}
	close(release)
	res, err = x.host.WaitToolResult(x.ctx, "same")
	if err != nil || res.IsError || res.Text() != `done:{"n":1}` {
		t.Fatalf("first call: %+v %v", res, err)
	}
	select {
	case a := <-started:
		t.Fatalf("the duplicate ran with %s", a)
	default:
	}
}

// TestOverlongCommandAndIntercept: an over-long command gets an error response and an
// over-long intercept an allow, so the host waits neither 30 s nor 5 s for nothing.
func TestOverlongCommandAndIntercept(t *testing.T) {
	x := startRun(t, &testHandler{}, Options{}, hooks{})
	x.handshake(newAck())
	pad := strings.Repeat("a", MaxLine)
	if err := x.host.SendLine([]byte(`{"type":"command_invoked","id":"c","name":"mcp","args":"` + pad + `"}`)); err != nil {
		t.Fatal(err)
	}
	if err := x.host.SendLine([]byte(`{"type":"event_intercept","id":"i","event":"tool_call","tool_args":"` + pad + `"}`)); err != nil {
		t.Fatal(err)
	}
	f, err := x.host.Next(x.ctx, func(f exttest.Frame) bool { return f.Type == "command_response" && f.ID == "c" })
	if err != nil || !strings.Contains(string(f.Raw), "line limit") {
		t.Fatalf("command response: %v %s", err, f.Raw)
	}
	if _, err := x.host.Next(x.ctx, func(f exttest.Frame) bool { return f.Type == "event_intercept_response" && f.ID == "i" }); err != nil {
		t.Fatalf("intercept response: %v", err)
	}
}

// TestScanFrameHead: the type, id and name are read from whole string members only, at
// any place among the members, from a start that may be cut anywhere.
func TestScanFrameHead(t *testing.T) {
	tests := []struct {
		head string
		want frameHead
	}{
		{`{"type":"tool_call","id":"a\"1","name":"t","args":{"x":"`, frameHead{"tool_call", `a"1`, "t"}},
		{`{"args":{"x":["}"]},"type":"tool_call","id":"b"`, frameHead{"tool_call", "b", ""}},
		{`{"type":"tool_call","id":"cut`, frameHead{typ: "tool_call"}},
		{`{"type":"tool_call","id":7,"name":"t"}`, frameHead{typ: "tool_call", name: "t"}},
		{`["type","tool_call"]`, frameHead{}},
	}
	for _, tc := range tests {
		if got := scanFrameHead([]byte(tc.head)); got != tc.want {
			t.Errorf("scanFrameHead(%s) = %+v, want %+v", tc.head, got, tc.want)
		}
	}
}
