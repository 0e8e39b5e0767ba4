// Package zslog sends log/slog records (mcp-go logs through slog) to our zerolog logger.
package zslog

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/rs/zerolog"
)

// Handler sends mcp-go's log records to our logger, redacted. mcp-go's errors become
// warnings, its warnings info, the rest debug. Without it mcp-go writes to slog's default
// logger, which is the terminal's stderr in the CLI.
type Handler struct {
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
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool {
	zl := zlogLevel(l)
	return zl >= h.Log.GetLevel() && zl >= zerolog.GlobalLevel()
}

// Handle logs r at its zerolog level: its message, and its attributes (with those of
// WithAttrs) as one redacted "detail" field.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
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
		ev = ev.Str("detail", h.redact(strings.TrimSpace(sb.String())))
	}
	ev.Msg(h.redact("mcp-go: " + r.Message))
	return nil
}

// redact applies Redact, when set.
func (h *Handler) redact(s string) string {
	if h.Redact == nil {
		return s
	}
	return h.Redact(s)
}

// New is an slog logger that writes to log through a Handler.
func New(log zerolog.Logger, redact func(string) string) *slog.Logger {
	return slog.New(&Handler{Log: log, Redact: redact})
}

// WithAttrs is a Handler that adds attrs to every record's detail.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr{}, h.attrs...), attrs...)
	return &n
}

// WithGroup is h: mcp-go's few attributes need no groups in a one-line detail.
func (h *Handler) WithGroup(string) slog.Handler { return h }
