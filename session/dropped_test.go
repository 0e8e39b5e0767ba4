package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestLogDropped: the warning for a dropped server request or notification gives a
// reason of its own: what was dropped (with its method when known), the cap, that no call
// failed and the setting to raise. Not the reply's wording, which speaks of "the server's
// reply" and tells the user to ask for less, neither of which applies to a message nobody
// asked for. The failed reply keeps its own text.
func TestLogDropped(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    *TooLargeError
		method string // the "method" field (""): none
		want   []string
	}{
		{name: "notification with its method", err: &TooLargeError{Limit: 1 << 20, Method: "notifications/message", Dropped: true},
			method: "notifications/message",
			want:   []string{`a request or notification from the server (method "notifications/message") was larger than the bridge accepts (1 MiB) and was dropped`, "no call failed", MaxReplyEnv}},
		{name: "method not found", err: &TooLargeError{Limit: 3000, Dropped: true},
			want: []string{"a request or notification from the server was larger than the bridge accepts (3000 bytes) and was dropped", "no call failed", MaxReplyEnv}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf testutil.SyncBuffer
			LogDropped(zerolog.New(&buf), "capped", config.TransportStdio)(tc.err)
			var ev map[string]any
			if err := json.Unmarshal([]byte(buf.String()), &ev); err != nil {
				t.Fatalf("log line %q: %v", buf.String(), err)
			}
			if ev["level"] != "warn" || ev["server"] != "capped" || ev["transport"] != "stdio" {
				t.Fatalf("log line %v", ev)
			}
			if m, _ := ev["method"].(string); m != tc.method {
				t.Fatalf("method %q, want %q", m, tc.method)
			}
			reason, _ := ev["reason"].(string)
			for _, w := range tc.want {
				if !strings.Contains(reason, w) {
					t.Fatalf("reason %q lacks %q", reason, w)
				}
			}
			for _, bad := range []string{"server's reply", "ask for less"} {
				if strings.Contains(reason, bad) {
					t.Fatalf("reason %q says %q: that is the failed reply's wording", reason, bad)
				}
			}
		})
	}
	if got := (&TooLargeError{Limit: 1 << 20}).Error(); got != tooLargeText(1<<20) || !strings.Contains(got, "the server's reply was") {
		t.Fatalf("a reply's error reads %q, want the reply's text", got)
	}
}
