package commands

import (
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
)

// TestProtocolText: /mcp <server> and `mcp-bridge get` say which MCP revision the server
// speaks and how it was decided.
func TestProtocolText(t *testing.T) {
	tests := []struct {
		pin, spoke, want string
	}{
		{"", "", "not negotiated yet (the first connection asks with server/discover)"},
		{"", "2026-07-28", "2026-07-28 (modern), negotiated"},
		{"", "2025-11-25", "2025-11-25 (legacy), negotiated"},
		{"2025-06-18", "2025-06-18", `2025-06-18 (legacy), pinned by "protocolVersion" in /h/mcp.json`},
	}
	for _, tt := range tests {
		c := &config.Server{Source: "/h/mcp.json", ProtocolVersion: tt.pin}
		if got := protocolText(c, Status{Protocol: tt.spoke}); got != tt.want {
			t.Errorf("pin %q spoke %q: %q, want %q", tt.pin, tt.spoke, got, tt.want)
		}
	}
}
