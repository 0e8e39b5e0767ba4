package remote

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/rs/zerolog"
)

// LogHandler sends mcp-go's log records to our logger, redacted. mcp-go's errors become
// warnings, its warnings info, the rest debug.
type LogHandler struct {
	Log    zerolog.Logger
	Redact func(string) string
	attrs  []slog.Attr
}

// zlogLevel is the zerolog level an mcp-go record of level l is logged at.
func zlogLevel(l slog.Level) zerolog.Level {
	switch {
	case l >= slog.LevelError:
		return zerolog.WarnLevel
	case l >= slog.LevelWarn:
		return zerolog.InfoLevel
	}
	return zerolog.DebugLevel
}

// Enabled honours our logger's level (and zerolog's global one), so that slog drops
// records we would discard before mcp-go's attributes are formatted.
func (h *LogHandler) Enabled(_ context.Context, l slog.Level) bool {
	zl := zlogLevel(l)
	return zl >= h.Log.GetLevel() && zl >= zerolog.GlobalLevel()
}

func (h *LogHandler) Handle(_ context.Context, r slog.Record) error {
	ev := h.Log.WithLevel(zlogLevel(r.Level))
	if ev == nil {
		return nil
	}
	var sb strings.Builder
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&sb, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	if sb.Len() > 0 {
		ev = ev.Str("detail", h.Redact(strings.TrimSpace(sb.String())))
	}
	ev.Msg(h.Redact("mcp-go: " + r.Message))
	return nil
}

func (h *LogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr{}, h.attrs...), attrs...)
	return &n
}

func (h *LogHandler) WithGroup(string) slog.Handler { return h }
