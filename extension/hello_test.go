package extension

import (
	"strings"
	"testing"
)

// TestHelloAckReadForgivingly: a hello_ack field of an unexpected type costs that field,
// not the connection: protocol_version as a string holding a number is that number, and
// one that holds none, like a string field sent as a number, is said in the log; ready
// follows and the host info keeps the other fields. Before, `"protocol_version":"1"`
// failed the handshake and the bridge ended before ready.
func TestHelloAckReadForgivingly(t *testing.T) {
	tests := []struct {
		name    string
		ack     string
		version int
		cwd     string
		note    string // in the log ("": no warning)
	}{
		{"version as a string", `{"type":"hello_ack","protocol_version":"1","cwd":"/proj"}`, 1, "/proj", ""},
		{"version as a padded string", `{"type":"hello_ack","protocol_version":" 2 ","cwd":"/proj"}`, 2, "/proj", ""},
		{"version written 1.0", `{"type":"hello_ack","protocol_version":1.0,"cwd":"/proj"}`, 1, "/proj", ""},
		{"version that is no number", `{"type":"hello_ack","protocol_version":"one","cwd":"/proj"}`, 0, "/proj", `hello_ack.protocol_version is \"one\", not a number`},
		{"version as an object", `{"type":"hello_ack","protocol_version":{"v":1},"cwd":"/proj"}`, 0, "/proj", "not a number"},
		{"a string field as a number", `{"type":"hello_ack","protocol_version":1,"zot_version":7,"cwd":"/proj"}`, 1, "/proj", "hello_ack.zot_version is 7, not a string; ignored"},
		{"cwd as a number", `{"type":"hello_ack","protocol_version":1,"cwd":3}`, 1, "", "hello_ack.cwd is 3, not a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sessc := make(chan *Session, 1)
			x := startRun(t, &testHandler{setup: sessionOf(sessc)}, Options{}, hooks{})
			x.host.ExpectHello(x.ctx)
			if err := x.host.SendLine([]byte(tc.ack)); err != nil {
				t.Fatal(err)
			}
			if _, err := x.host.NextType(x.ctx, "ready"); err != nil {
				t.Fatalf("no ready after %s: %v (log %s)", tc.ack, err, x.logs.String())
			}
			info := recv(t, x.ctx, sessc, "session").Host()
			if info.ProtocolVersion != tc.version || info.Cwd != tc.cwd {
				t.Fatalf("host info %+v, want version %d cwd %q", info, tc.version, tc.cwd)
			}
			l := x.logs.String()
			if tc.note == "" && strings.Contains(l, `"level":"warn"`) {
				t.Fatalf("a warning for a readable hello_ack: %s", l)
			}
			if tc.note != "" && !strings.Contains(l, tc.note) {
				t.Fatalf("log lacks %q: %s", tc.note, l)
			}
		})
	}
}
