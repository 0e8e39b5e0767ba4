package bridge

import (
	"context"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/session"
)

// TestConnectorFailsClearly: a server the bridge has no connection for opens with a
// clear start failure. Before, an HTTP server missing from the wired remotes got a
// typed nil *remote.Server whose Open panicked.
func TestConnectorFailsClearly(t *testing.T) {
	tests := []struct {
		name      string
		transport config.Transport
		want      string
	}{
		{"streamable HTTP not wired", config.TransportStreamableHTTP, "no remote connection was wired"},
		{"SSE not wired", config.TransportSSE, "no remote connection was wired"},
		{"unknown transport", config.Transport("carrier-pigeon"), "unknown transport"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Bridge{}
			cfg := &config.Server{Name: "s", Transport: tt.transport}
			c := b.connector(cfg)
			if c == nil {
				t.Fatal("no connector")
			}
			s, err := c.Open(context.Background(), session.Handlers{})
			if s != nil || session.KindOf(err) != session.KindStart || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("open: %v, %v; want a start failure saying %q", s, err, tt.want)
			}
		})
	}
}
