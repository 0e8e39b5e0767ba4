package bridge

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/inproctest"
	"github.com/zot-mcp/mcp-bridge/internal/testutil"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// inprocEnv is a bridge whose servers are all in-process (Options.Connect): no process,
// no network, time only on the fake clock.
type inprocEnv struct {
	t       *testing.T
	home    string
	clock   *fakeClock
	servers inproctest.Servers
}

// newInprocEnv writes a config with one stdio entry per server (extra fields merged in)
// and builds the in-process servers behind them.
func newInprocEnv(t *testing.T, entries map[string]map[string]any) *inprocEnv {
	e := &inprocEnv{t: t, home: t.TempDir(), clock: newFakeClock()}
	e.servers = inproctest.WriteConfig(t, e.home, entries)
	return e
}

func (e *inprocEnv) bridge() *Bridge {
	b := New(Options{ZotHome: e.home, LookupEnv: func(string) (string, bool) { return "", false }, Clock: e.clock,
		Log: zerolog.New(testutil.Log(e.t)), Resolver: noDNS(), Connect: e.servers.Connect})
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
