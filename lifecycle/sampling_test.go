package lifecycle

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
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

// TestSamplingFloodIsCollapsed: a server that asks for sampling thousands of times gets
// every request refused, the user is told once, and our log says it once, then how many
// more came when the window ends; the next request after it is reported again.
func TestSamplingFloodIsCollapsed(t *testing.T) {
	const requests = 5000
	c := clock.NewFake()
	var logBuf bytes.Buffer // the collapser's report runs in Advance, on this goroutine
	host := &refusalHost{}
	s := New(&config.Server{Name: "s"}, &Deps{Clock: c, Log: zerolog.New(&logBuf), Host: host})
	h := guard{server: "s", refused: s.samplingRefused}.handler(func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		t.Fatal("a sampling request was passed on")
		return nil, nil
	})
	req := transport.JSONRPCRequest{Method: string(mcp.MethodSamplingCreateMessage)}
	refused := 0
	for range requests {
		if _, err := h(context.Background(), req); err != nil {
			refused++
		}
	}
	c.Advance(refusalWindow)
	lines := strings.Split(strings.TrimSpace(logBuf.String()), "\n")
	for _, tt := range []struct {
		what      string
		got, want int
	}{
		{"requests refused", refused, requests},
		{"notes to the host", int(host.notes.Load()), 1},
		{"log lines", len(lines), 2},
		{"log lines with the count", strings.Count(logBuf.String(), `"refused":4999`), 1},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: %d, want %d\n%s", tt.what, tt.got, tt.want, logBuf.String())
		}
	}
	if _, err := h(context.Background(), req); err == nil || host.notes.Load() != 2 {
		t.Errorf("after the window: %v, %d notes; want a refusal and a second note", err, host.notes.Load())
	}
}
