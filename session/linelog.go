package session

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// What one server may write to our log from its stderr. Every line still reaches the
// tail kept for /mcp <server>; only logging is limited, because a server that prints in a
// loop would otherwise fill the disk with the log.
const (
	stderrRate  = 20      // lines per second, sustained
	LineBurst   = 200     // lines at once
	stderrTotal = 4 << 20 // bytes logged per process run; after that only the tail is kept
)

// LineLog logs one server's stderr lines through a token bucket on the injected clock,
// with a cap on the total, and says once per burst how many lines it dropped.
// It is owned by the goroutine that reads the stderr pipe.
type LineLog struct {
	log    zerolog.Logger
	server string
	what   string // what is logged, for the notices ("server stderr")
	clock  clock.Clock
	redact func(string) string // nil: log lines as written
	rate   float64
	burst  float64
	total  int

	tokens   float64
	last     time.Time
	logged   int // bytes logged so far
	dropped  int // lines dropped since the last report
	capped   bool
	dropping bool
}

// NewLineLog limits what one server may log; what names the lines in the notices
// ("server stderr").
func NewLineLog(log zerolog.Logger, server, what string, clk clock.Clock) *LineLog {
	return &LineLog{log: log, server: server, what: what, clock: clk, rate: stderrRate, burst: LineBurst, total: stderrTotal,
		tokens: LineBurst, last: clk.Now()}
}

// line logs text if the budget allows; otherwise it is counted as dropped.
func (l *LineLog) line(text string) {
	if !l.Allow(len(text)) {
		return
	}
	if l.redact != nil {
		text = l.redact(text)
	}
	l.log.Info().Str("server", l.server).Str("stderr", text).Msg("server stderr")
}

// Allow reports whether a line of n bytes may be logged now, counting it as dropped when
// not, and logs the notices.
func (l *LineLog) Allow(n int) bool {
	if l.capped {
		l.dropped++
		return false
	}
	now := l.clock.Now()
	if el := now.Sub(l.last).Seconds(); el > 0 {
		l.tokens += el * l.rate
		if l.tokens > l.burst {
			l.tokens = l.burst
		}
	}
	l.last = now
	if l.logged+n > l.total {
		l.capped = true
		l.dropped++
		l.log.Warn().Str("server", l.server).Int("logged_bytes", l.logged).
			Msgf("%s: %d bytes logged, the cap for one run; further lines are counted, not logged (the last lines stay in /mcp %s)", l.what, l.logged, l.server)
		return false
	}
	// Once dropping, stay quiet until half the burst has come back, so a steady flood
	// gets one notice per burst rather than one per line let through.
	if l.dropping && l.tokens >= l.burst/2 {
		l.dropping = false
		l.log.Warn().Str("server", l.server).Int("dropped", l.dropped).Msgf("%s: %d lines were dropped", l.what, l.dropped)
		l.dropped = 0
	}
	if l.dropping || l.tokens < 1 {
		l.dropped++
		if !l.dropping {
			l.dropping = true
			l.log.Warn().Str("server", l.server).
				Msgf("%s: more than %d lines/s; dropping lines until it calms down (the last lines stay in /mcp %s)", l.what, int(l.rate), l.server)
		}
		return false
	}
	l.tokens--
	l.logged += n
	return true
}

// close reports lines dropped since the last report.
func (l *LineLog) close() {
	if l.dropped > 0 {
		l.log.Warn().Str("server", l.server).Int("dropped", l.dropped).Msgf("%s: %d lines were dropped", l.what, l.dropped)
	}
}
