package inproctest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/session"
)

// Servers are the in-process servers of one test, by configured name.
type Servers map[string]*Server

// WriteConfig writes dir/mcp.json with one stdio entry per name ("command": "in-process",
// the entry's extra fields on top) and makes the in-process server behind each, reached
// through Servers.Connect instead of a process.
func WriteConfig(t testing.TB, dir string, entries map[string]map[string]any) Servers {
	t.Helper()
	doc := map[string]any{}
	servers := Servers{}
	for name, extra := range entries {
		entry := map[string]any{"command": "in-process"}
		maps.Copy(entry, extra)
		doc[name] = entry
		servers[name] = New(0)
	}
	raw, err := json.Marshal(map[string]any{"mcpServers": doc})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return servers
}

// Connect opens a session of cfg's in-process server: the state machine's injected
// connector in these tests.
func (s Servers) Connect(ctx context.Context, cfg *config.Server, h session.Handlers) (session.Session, error) {
	f, ok := s[cfg.Name]
	if !ok {
		return nil, fmt.Errorf("no in-process server %q", cfg.Name)
	}
	return f.Open(ctx, h)
}
