package config

import (
	"strings"
	"testing"
)

// TestProtocolVersion: "protocolVersion" takes a revision the bridge knows; anything
// else, or a modern revision over legacy SSE, is an error naming the field and what to
// write instead.
func TestProtocolVersion(t *testing.T) {
	tests := []struct {
		name, entry string
		want        string // the field's value when usable
		wantErr     string // substring of Err; "" = usable
	}{
		{name: "absent negotiates", entry: `{"command": "x"}`},
		{name: "legacy", entry: `{"command": "x", "protocolVersion": "2025-11-25"}`, want: "2025-11-25"},
		{name: "older legacy", entry: `{"command": "x", "protocolVersion": "2025-03-26"}`, want: "2025-03-26"},
		{name: "modern", entry: `{"url": "https://h/mcp", "protocolVersion": "2026-07-28"}`, want: "2026-07-28"},
		{name: "unknown", entry: `{"command": "x", "protocolVersion": "2027-01-01"}`,
			wantErr: `protocolVersion: unknown MCP revision "2027-01-01"; use "2026-07-28" (the modern protocol only), "2025-11-25" or an earlier legacy revision (2025-06-18, 2025-03-26, 2024-11-05), or remove the field`},
		{name: "not a string", entry: `{"command": "x", "protocolVersion": 2025}`, wantErr: "protocolVersion: must be a string"},
		{name: "modern over sse", entry: `{"url": "https://h/sse", "transport": "sse", "protocolVersion": "2026-07-28"}`,
			wantErr: `protocolVersion: "2026-07-28" cannot be spoken over the legacy SSE transport`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, problems := loadOne(t, tt.entry, nil)
			if tt.wantErr == "" {
				if !s.Usable() || s.ProtocolVersion != tt.want || len(problems) != 0 {
					t.Fatalf("err %q, protocolVersion %q, problems %v; want %q", s.Err, s.ProtocolVersion, problems, tt.want)
				}
				return
			}
			if s.Usable() || !strings.Contains(s.Err, tt.wantErr) {
				t.Fatalf("err %q, want %q", s.Err, tt.wantErr)
			}
		})
	}
}

// TestProtocolKey: the key of what decides the era follows the command, args, url and
// env names, not env values or settings.
func TestProtocolKey(t *testing.T) {
	base := func() *Server {
		return &Server{Transport: TransportStdio, Raw: Raw{Command: "npx", Args: []string{"srv"}, Env: map[string]string{"TOKEN": "a"}}}
	}
	k := base().ProtocolKey()
	same := []func(*Server){
		func(s *Server) { s.Raw.Env["TOKEN"] = "b" },
		func(s *Server) { s.IdleTimeout = 1 },
		func(s *Server) { s.Raw.Headers = map[string]string{"X": "y"} },
	}
	for i, f := range same {
		s := base()
		f(s)
		if s.ProtocolKey() != k {
			t.Errorf("change %d changed the key", i)
		}
	}
	other := []func(*Server){
		func(s *Server) { s.Raw.Command = "node" },
		func(s *Server) { s.Raw.Args = []string{"srv", "--v2"} },
		func(s *Server) { s.Raw.Env["OTHER"] = "a" },
		func(s *Server) { s.Raw.URL = "https://h/mcp"; s.Transport = TransportStreamableHTTP },
	}
	for i, f := range other {
		s := base()
		f(s)
		if s.ProtocolKey() == k {
			t.Errorf("change %d kept the key", i)
		}
	}
}
