package zslog

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// countingValue counts how often it is formatted.
type countingValue struct{ n *int }

func (c countingValue) String() string { *c.n++; return "v" }

// TestZlogHandlerHonoursLevel checks that the adapter for mcp-go's slog records reports
// as disabled, and never formats, what our logger's level would drop, and still logs
// the rest at the mapped level.
func TestZlogHandlerHonoursLevel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		level    zerolog.Level // our logger's level
		record   slog.Level
		enabled  bool
		wantWord string // the zerolog level written, when enabled
	}{
		{"debug dropped at info", zerolog.InfoLevel, slog.LevelDebug, false, ""},
		{"info dropped at info", zerolog.InfoLevel, slog.LevelInfo, false, ""}, // mcp-go's info is our debug
		{"warn kept at info", zerolog.InfoLevel, slog.LevelWarn, true, `"level":"info"`},
		{"error kept at info", zerolog.InfoLevel, slog.LevelError, true, `"level":"warn"`},
		{"error dropped at error", zerolog.ErrorLevel, slog.LevelError, false, ""},
		{"debug kept at debug", zerolog.DebugLevel, slog.LevelDebug, true, `"level":"debug"`},
		{"nothing when disabled", zerolog.Disabled, slog.LevelError, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			h := &Handler{Log: zerolog.New(&out).Level(tt.level), Redact: func(s string) string { return s }}
			if got := h.Enabled(context.Background(), tt.record); got != tt.enabled {
				t.Fatalf("Enabled(%v) at %v = %v, want %v", tt.record, tt.level, got, tt.enabled)
			}
			formatted := 0
			slog.New(h).Log(context.Background(), tt.record, "hello", "k", countingValue{&formatted})
			if !tt.enabled {
				if formatted != 0 || out.Len() != 0 {
					t.Fatalf("a dropped record was formatted %d times and wrote %q", formatted, out.String())
				}
				return
			}
			if !strings.Contains(out.String(), tt.wantWord) || !strings.Contains(out.String(), "mcp-go: hello") || !strings.Contains(out.String(), "k=v") {
				t.Fatalf("logged %q, want %s with the message and detail", out.String(), tt.wantWord)
			}
		})
	}
}
