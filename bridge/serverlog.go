package bridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/session"
)

// serverLogKeep is how many log messages per server /mcp <server> can show.
const serverLogKeep = 10

// serverLogs keeps the last few notifications/message of every server (a bounded ring
// per server) for /mcp <server>; all of them go to the bridge's log as they arrive.
type serverLogs struct {
	mu  sync.Mutex
	per map[string]*logRing
}

type logRing struct {
	lines []logLine // oldest first, at most serverLogKeep
	seen  int
}

type logLine struct {
	at     time.Time
	level  string
	logger string
	text   string
}

func newServerLogs() *serverLogs { return &serverLogs{per: map[string]*logRing{}} }

func (l *serverLogs) add(server string, line logLine) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.per[server]
	if r == nil {
		r = &logRing{}
		l.per[server] = r
	}
	r.seen++
	if len(r.lines) == serverLogKeep {
		copy(r.lines, r.lines[1:])
		r.lines = r.lines[:serverLogKeep-1]
	}
	r.lines = append(r.lines, line)
}

// last returns the kept messages of server, oldest first, and how many arrived in all.
func (l *serverLogs) last(server string) ([]logLine, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.per[server]
	if r == nil {
		return nil, 0
	}
	return append([]logLine(nil), r.lines...), r.seen
}

// serverLog records one log message of the server: in our log with the server's name
// and level, and in the ring /mcp <server> shows.
func (s *Server) serverLog(p mcp.LoggingMessageNotificationParams) {
	// Log messages are the server's words: redacted like stderr, and logged within the
	// same per-server budget, so a chatty server cannot fill the disk this way either.
	text := s.redact(logData(p.Data))
	s.logMu.Lock()
	if s.logBudget == nil {
		s.logBudget = session.NewLineLog(s.d.log, s.cfg.Name, "server log messages", s.d.clock)
	}
	logIt := s.logBudget.Allow(len(text))
	s.logMu.Unlock()
	if s.d.host != nil {
		s.d.host.serverLog(s.cfg.Name, logLine{at: s.d.clock.Now(), level: string(p.Level), logger: p.Logger, text: text})
	}
	if !logIt {
		return
	}
	var ev *zerolog.Event
	switch p.Level {
	case mcp.LoggingLevelDebug:
		ev = s.d.log.Debug()
	case mcp.LoggingLevelInfo, mcp.LoggingLevelNotice:
		ev = s.d.log.Info()
	case mcp.LoggingLevelWarning:
		ev = s.d.log.Warn()
	default:
		ev = s.d.log.Error()
	}
	// "level" is zerolog's own key; the server's level gets a name of its own.
	ev = ev.Str("server", s.cfg.Name).Str("mcp_level", string(p.Level))
	if p.Logger != "" {
		ev = ev.Str("logger", p.Logger)
	}
	ev.Str("log", text).Msg("server log message")
}

// logData renders a log message's data (any JSON value) as one bounded line.
func logData(v any) string {
	var s string
	switch d := v.(type) {
	case string:
		s = d
	case nil:
		s = ""
	default:
		raw, err := json.Marshal(d)
		if err != nil {
			raw = []byte(fmt.Sprint(d))
		}
		s = string(raw)
	}
	return Truncate(strings.Join(strings.Fields(s), " "), 500)
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
	for _, l := range lines {
		fmt.Fprintf(&sb, "\n    %s %-9s", l.at.Format("15:04:05"), l.level)
		if l.logger != "" {
			sb.WriteString(" [" + l.logger + "]")
		}
		sb.WriteString(" " + l.text)
	}
	return sb.String()
}
