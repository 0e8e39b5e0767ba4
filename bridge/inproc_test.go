package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/inproctest"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/session"
)

// inprocEnv is a bridge whose servers are all in-process (Options.Connect): no process,
// no network, time only on the fake clock.
type inprocEnv struct {
	t       *testing.T
	home    string
	clock   *fakeClock
	servers map[string]*inproctest.Server
}

// newInprocEnv writes a config with one stdio entry per server (extra fields merged in)
// and builds the in-process servers behind them.
func newInprocEnv(t *testing.T, entries map[string]map[string]any) *inprocEnv {
	e := &inprocEnv{t: t, home: t.TempDir(), clock: newFakeClock(), servers: map[string]*inproctest.Server{}}
	doc := map[string]any{}
	for name, extra := range entries {
		doc[name] = mergeMap(map[string]any{"command": "in-process"}, extra)
		e.servers[name] = inproctest.New(0)
	}
	raw, _ := json.Marshal(map[string]any{"mcpServers": doc})
	if err := os.WriteFile(filepath.Join(e.home, "mcp.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *inprocEnv) connect(ctx context.Context, cfg *config.Server, h session.Handlers) (session.Session, error) {
	f, ok := e.servers[cfg.Name]
	if !ok {
		return nil, fmt.Errorf("no in-process server %q", cfg.Name)
	}
	return f.Open(ctx, h)
}

func (e *inprocEnv) bridge() *Bridge {
	b := New(Options{ZotHome: e.home, LookupEnv: func(string) (string, bool) { return "", false }, Clock: e.clock,
		Log: zerolog.New(testLog(e.t)), Resolver: noDNS(), Connect: e.connect})
	b.Load(e.t.TempDir(), extension.GenNew)
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		b.Close(ctx)
	})
	return b
}

func (e *inprocEnv) srv(b *Bridge, name string) *lifecycle.Server {
	s, ok := b.Server(name)
	if !ok {
		e.t.Fatalf("no server %q", name)
	}
	return s
}
