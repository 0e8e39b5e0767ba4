package bridge

import (
	"fmt"
	"strings"
	"sync"

	"github.com/zot-mcp/mcp-bridge/internal/ring"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// serverLogKeep is how many log messages per server /mcp <server> can show.
const serverLogKeep = 10

// serverLogs keeps the last few notifications/message of every server (a bounded ring
// per server) for /mcp <server>; all of them go to the bridge's log as they arrive.
type serverLogs struct {
	mu  sync.Mutex
	per map[string]*ring.Ring[lifecycle.LogLine]
}

func newServerLogs() *serverLogs { return &serverLogs{per: map[string]*ring.Ring[lifecycle.LogLine]{}} }

func (l *serverLogs) add(server string, line lifecycle.LogLine) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.per[server]
	if r == nil {
		r = ring.New[lifecycle.LogLine](serverLogKeep)
		l.per[server] = r
	}
	r.Add(line)
}

// last returns the kept messages of server, oldest first, and how many arrived in all.
func (l *serverLogs) last(server string) ([]lifecycle.LogLine, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.per[server]
	if r == nil {
		return nil, 0
	}
	return r.All()
}

// serverLogText is what /mcp <server> adds about MCP beyond tools: the cached resources,
// templates and prompts, and the server's last log messages.
func (b *Bridge) serverLogText(server string) string {
	var sb strings.Builder
	if e := b.extras().Servers[server]; e != nil && len(e.Resources)+len(e.ResourceTemplates)+len(e.Prompts) > 0 {
		fmt.Fprintf(&sb, "\n  resources:  %d, %d templates (search them with %s); prompts: %d (/mcp prompts %s)",
			len(e.Resources), len(e.ResourceTemplates), SearchToolName, len(e.Prompts), server)
	}
	lines, seen := b.x.logs.last(server)
	if len(lines) == 0 {
		return sb.String()
	}
	fmt.Fprintf(&sb, "\n  log messages (last %d of %d):", len(lines), seen)
	// A server's log lines are its raw output, shown escaped (internal/safetext) as a
	// result printed to a terminal is.
	for _, l := range lines {
		fmt.Fprintf(&sb, "\n    %s %-9s", l.At.Format("15:04:05"), safetext.Escape(l.Level))
		if l.Logger != "" {
			sb.WriteString(" [" + safetext.Escape(l.Logger) + "]")
		}
		sb.WriteString(" " + safetext.Escape(l.Text))
	}
	return sb.String()
}
