package session

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// TestStderrFloodIsBounded: a server printing 1 KB lines in a loop once wrote hundreds of
// MB of log in seconds. The log is now rate-limited and capped on the injected clock,
// drops are reported once per burst, and the tail for /mcp still holds the last lines.
func TestStderrFloodIsBounded(t *testing.T) {
	line := strings.Repeat("x", 1000)
	tests := []struct {
		name    string
		lines   int
		every   time.Duration // clock step between lines
		maxLogs int           // "server stderr" lines logged at most
		maxNote int           // drop notices at most
	}{
		{name: "instant flood", lines: 20000, every: 0, maxLogs: LineBurst, maxNote: 2},
		{name: "100 lines/s for 10 s", lines: 1000, every: 10 * time.Millisecond, maxLogs: LineBurst + stderrRate*10 + 1, maxNote: 2*(10/(LineBurst/2/stderrRate)) + 2},
		{name: "quiet server", lines: 50, every: time.Second, maxLogs: 50, maxNote: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logBuf bytes.Buffer
			clk := clock.NewFake()
			out := NewLineLog(zerolog.New(&logBuf), "s", "server stderr", clk)
			tail := NewStderrTail()
			var in strings.Builder
			for i := 0; i < tt.lines; i++ {
				if tt.every == 0 {
					in.WriteString(line + "\n")
				}
			}
			if tt.every == 0 {
				pipeStderr(strings.NewReader(in.String()), tail, out)
			} else {
				for i := 0; i < tt.lines; i++ {
					tail.add(line)
					out.line(line)
					clk.Advance(tt.every)
				}
				out.close()
			}
			logs := strings.Count(logBuf.String(), `"message":"server stderr"`)
			notes := strings.Count(logBuf.String(), "dropping lines") + strings.Count(logBuf.String(), "lines were dropped")
			if logs > tt.maxLogs || notes > tt.maxNote {
				t.Fatalf("logged %d lines and %d notices, want at most %d and %d", logs, notes, tt.maxLogs, tt.maxNote)
			}
			if logs+0 < tt.lines && !strings.Contains(logBuf.String(), "lines were dropped") {
				t.Fatalf("%d of %d lines logged but no drop count reported", logs, tt.lines)
			}
			if kept, seen := tail.Lines(); seen != tt.lines || len(kept) == 0 || kept[len(kept)-1] != line {
				t.Fatalf("tail saw %d lines (want %d), kept %d", seen, tt.lines, len(kept))
			}
		})
	}
}

// TestStderrLogTotalCap: a slow but endless writer stops being logged after the total cap.
func TestStderrLogTotalCap(t *testing.T) {
	var logBuf bytes.Buffer
	clk := clock.NewFake()
	out := NewLineLog(zerolog.New(&logBuf), "s", "server stderr", clk)
	line := strings.Repeat("y", 4000)
	for i := 0; i < 3*stderrTotal/len(line); i++ {
		out.line(line)
		clk.Advance(time.Second)
	}
	out.close()
	if n := strings.Count(logBuf.String(), `"message":"server stderr"`); n*len(line) > stderrTotal {
		t.Fatalf("logged %d bytes of stderr, cap %d", n*len(line), stderrTotal)
	}
	if strings.Count(logBuf.String(), "the cap for one run") != 1 {
		t.Fatalf("cap notice missing or repeated")
	}
}
