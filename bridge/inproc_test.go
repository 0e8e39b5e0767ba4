package bridge

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/testkit/inproctest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
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
	return loadBridge(e.t, Options{ZotHome: e.home, LookupEnv: func(string) (string, bool) { return "", false }, Clock: e.clock,
		Log: zerolog.New(testutil.Log(e.t)), Resolver: noDNS(), Connect: e.servers.Connect}, e.t.TempDir(), extension.GenNew)
}

func (e *inprocEnv) srv(b *Bridge, name string) *lifecycle.Server { return mustServer(e.t, b, name) }
