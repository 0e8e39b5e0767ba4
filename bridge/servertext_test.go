package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestServerLogLinesAreEscaped: a server's log messages are its raw output; /mcp <server>
// shows their control and invisible characters escaped.
func TestServerLogLinesAreEscaped(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"s": e.server("-name", "s")}, nil)
	b := e.bridge(extension.GenNew)
	b.x.logs.add("s", logLine{At: time.Unix(0, 0), Level: "error\x1b[2J", Logger: "db\u202e", Text: "lost\x1b]52;c;eA==\x07 it\U000E0041"})
	out := b.serverLogText("s")
	if strings.ContainsAny(out, "\x1b\x07\u202e\U000E0041") {
		t.Fatalf("/mcp s carries a raw control or invisible character: %q", out)
	}
	if !strings.Contains(out, `error\x1b[2J [db\u202e] lost\x1b]52;c;eA==\x07 it\U000e0041`) {
		t.Errorf("log line not shown escaped:\n%s", out)
	}
}
