package bridge

import (
	"errors"
	"fmt"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/remote"
)

// TestServerClosedIdleIsUnreachable: net/http reports a server that closed our pooled
// connection with an unexported error; it used to be worded as a tool failure, which made
// TestHTTPServerGoneDuringSession fail now and then.
func TestServerClosedIdleIsUnreachable(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"r": map[string]any{"url": "http://127.0.0.1:1/mcp", "transport": "streamable-http"}}, nil)
	s := e.srv(e.bridge(extension.GenNew), "r")
	err := fmt.Errorf("transport error: failed to send request: %w", errors.New(`Post "http://127.0.0.1:1/mcp": http: server closed idle connection`))
	if f := s.classifyHTTP(config.TransportStreamableHTTP, remote.ProbeInfo{}, err); f.kind != KindUnreachable {
		t.Fatalf("kind %d (%s), want unreachable", f.kind, f.msg)
	}
}
