package lifecycle

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/session"
)

// TestServerLogMessagesAreBounded: MCP log notifications go to the same kind of budget as
// stderr, and through the redactor; before, each one was logged as sent.
func TestServerLogMessagesAreBounded(t *testing.T) {
	t.Parallel()
	var logBuf bytes.Buffer // serverLog logs on the caller's goroutine
	cfg := &config.Server{Name: "s", Env: map[string]string{"API_TOKEN": "supersecretvalue123"}, Raw: config.Raw{Env: map[string]string{"API_TOKEN": "supersecretvalue123"}}}
	s := New(cfg, &Deps{Clock: clock.NewFake(), Log: zerolog.New(&logBuf)})
	for i := 0; i < 5000; i++ {
		s.serverLog(mcp.LoggingMessageNotificationParams{Level: mcp.LoggingLevelInfo, Data: "token is supersecretvalue123"})
	}
	out := logBuf.String()
	if n := strings.Count(out, `"message":"server log message"`); n > session.LineBurst {
		t.Fatalf("%d log messages logged at once, burst %d", n, session.LineBurst)
	}
	if !strings.Contains(out, "server log messages: more than") {
		t.Fatalf("no drop notice:\n%s", textcut.Truncate(out, 500))
	}
	if strings.Contains(out, "supersecretvalue123") {
		t.Fatal("a secret from the server's log message reached our log")
	}
}
