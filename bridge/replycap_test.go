package bridge

import (
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/session"
)

// TestReplyLimiter: lines up to the limit pass untouched; a longer one is cut, the rest
// of it discarded, and an error for its id takes its place; without an id the stream
// ends. Read the way mcp-go reads: ReadString('\n') over a bufio.Reader.
// TestOversizeReplyFailsOnlyThatCall: a tool result larger than the cap fails its call
// with a clear error; the same server process answers the next call. Before, the whole
// reply was read into memory and delivered.
func TestOversizeReplyFailsOnlyThatCall(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"s": e.server()}, nil)
	b := e.bridge(extension.GenNew)
	b.opts.MaxReplyBytes = 1 << 20
	s := e.srv(b, "s")
	pid := mustCall(t, s, "pid", nil)
	_, err := s.Call(ctxGuard(t), "big", map[string]any{"bytes": 3 << 20}, true)
	if err == nil || !strings.Contains(err.Error(), "larger than the bridge accepts (1 MiB)") {
		t.Fatalf("over-size reply: %v", err)
	}
	if got := mustCall(t, s, "pid", nil); got != pid {
		t.Fatalf("server restarted (pid %s, was %s); only the call should fail", got, pid)
	}
	if got := mustCall(t, s, "big", map[string]any{"bytes": 1000}); len(got) != 1000 {
		t.Fatalf("reply under the cap: %d bytes", len(got))
	}
}

func TestMaxReplyFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		val     string
		set     bool
		want    int
		wantErr bool
	}{
		{set: false, want: 0},
		{val: "16", set: true, want: 16 << 20},
		{val: "0", set: true, wantErr: true},
		{val: "lots", set: true, wantErr: true},
	}
	for _, tt := range tests {
		lookup := func(string) (string, bool) { return tt.val, tt.set }
		got, err := session.MaxReplyFrom(lookup)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("%q: got %d, %v", tt.val, got, err)
		}
		if b := New(Options{LookupEnv: lookup, ZotHome: t.TempDir()}); b.opts.MaxReplyBytes != tt.want {
			t.Errorf("%q: Options.MaxReplyBytes = %d, want %d", tt.val, b.opts.MaxReplyBytes, tt.want)
		}
	}
}

// TestRemoteOversizeReplyFailsOnlyThatCall: the cap covers HTTP servers too (the bridge's
// MaxReplyBytes reaches remote's transport): on streamable HTTP and legacy SSE a reply
// over it fails that call with an error naming the server, the cap and the setting to
// raise; the same connection answers the next call.
func TestRemoteOversizeReplyFailsOnlyThatCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ mode, transport string }{{"-http", "streamable-http"}, {"-sse", "sse"}} {
		t.Run(tc.transport, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			url, record := startFakeHTTP(t, tc.mode)
			e.write(map[string]any{"r": map[string]any{"url": url, "transport": tc.transport}}, nil)
			s := e.srv(e.bridgeWith(func(o *Options) { o.MaxReplyBytes = 1 << 20 }), "r")
			_, err := s.Call(ctxGuard(t), "big", map[string]any{"bytes": 3 << 20}, true)
			if err == nil || !strings.Contains(err.Error(), `MCP server "r"`) ||
				!strings.Contains(err.Error(), "larger than the bridge accepts (1 MiB)") || !strings.Contains(err.Error(), session.MaxReplyEnv) {
				t.Fatalf("over-size reply: %v", err)
			}
			if got := mustCall(t, s, "big", map[string]any{"bytes": 1000}); len(got) != 1000 {
				t.Fatalf("reply under the cap: %d bytes", len(got))
			}
			if n := countRecord(t, record, isHTTP("GET", "")); tc.transport == "sse" && n != 1 {
				t.Fatalf("%d SSE streams opened; the over-size reply must not cost the connection", n)
			}
		})
	}
}
