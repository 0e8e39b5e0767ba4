package remote

import (
	"errors"
	"fmt"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/session"
)

// TestServerClosedIdleIsUnreachable: net/http reports a server that closed our pooled
// connection with an unexported error; it used to be worded as a tool failure, which made
// TestHTTPServerGoneDuringSession fail now and then.
func TestServerClosedIdleIsUnreachable(t *testing.T) {
	t.Parallel()
	s := NewServer(&config.Server{Name: "r", URL: "http://127.0.0.1:1/mcp", Transport: config.TransportStreamableHTTP},
		&Deps{Cmd: func(sub string, args ...string) string { return "/mcp " + sub }})
	err := fmt.Errorf("transport error: failed to send request: %w", errors.New(`Post "http://127.0.0.1:1/mcp": http: server closed idle connection`))
	if f := s.classify(config.TransportStreamableHTTP, ProbeInfo{}, err); f.Kind != session.KindUnreachable {
		t.Fatalf("kind %d (%s), want unreachable", f.Kind, f.Msg)
	}
}
