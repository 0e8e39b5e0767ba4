package lifecycle

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// refusalHost counts the notes the server asked the host for; nothing else is used.
type refusalHost struct {
	Host
	notes atomic.Int32
}

func (h *refusalHost) SamplingRefused(string) { h.notes.Add(1) }

// TestSamplingFloodIsCollapsed: a server that asks for sampling thousands of times (each
// request refused by the session: session's TestSamplingGuard) has the user told once,
// and our log says it once, then how many more came when the window ends; the next
// request after it is reported again.
func TestSamplingFloodIsCollapsed(t *testing.T) {
	const requests = 5000
	c := clock.NewFake()
	var logBuf bytes.Buffer // the collapser's report runs in Advance, on this goroutine
	host := &refusalHost{}
	s := New(&config.Server{Name: "s"}, &Deps{Clock: c, Log: zerolog.New(&logBuf), Host: host})
	for range requests {
		s.samplingRefused()
	}
	c.Advance(refusalWindow)
	lines := strings.Split(strings.TrimSpace(logBuf.String()), "\n")
	for _, tt := range []struct {
		what      string
		got, want int
	}{
		{"notes to the host", int(host.notes.Load()), 1},
		{"log lines", len(lines), 2},
		{"log lines with the count", strings.Count(logBuf.String(), `"refused":4999`), 1},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: %d, want %d\n%s", tt.what, tt.got, tt.want, logBuf.String())
		}
	}
	s.samplingRefused()
	if host.notes.Load() != 2 {
		t.Errorf("after the window: %d notes; want a second note", host.notes.Load())
	}
}
