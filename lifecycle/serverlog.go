package lifecycle

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/session"
)

// LogLine is one log message of a server as the host keeps it for /mcp <server>.
type LogLine struct {
	At     time.Time
	Level  string
	Logger string
	Text   string
}

// serverLog records one log message of the server: in our log with the server's name
// and level, and in the ring /mcp <server> shows.
func (s *Server) serverLog(p mcp.LoggingMessageNotificationParams) {
	// Log messages are the server's words: redacted like stderr, and logged within the
	// same per-server budget, so a chatty server cannot fill the disk this way either.
	text := s.Redact(logData(p.Data))
	s.logMu.Lock()
	if s.logBudget == nil {
		s.logBudget = session.NewLineLog(s.d.Log, s.cfg.Name, "server log messages", s.d.Clock)
	}
	logIt := s.logBudget.Allow(len(text))
	s.logMu.Unlock()
	if s.d.Host != nil {
		s.d.Host.ServerLog(s.cfg.Name, LogLine{At: s.d.Clock.Now(), Level: string(p.Level), Logger: p.Logger, Text: text})
	}
	if !logIt {
		return
	}
	var ev *zerolog.Event
	switch p.Level {
	case mcp.LoggingLevelDebug:
		ev = s.d.Log.Debug()
	case mcp.LoggingLevelInfo, mcp.LoggingLevelNotice:
		ev = s.d.Log.Info()
	case mcp.LoggingLevelWarning:
		ev = s.d.Log.Warn()
	default:
		ev = s.d.Log.Error()
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
	return textcut.Truncate(strings.Join(strings.Fields(s), " "), 500)
}
