package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/testkit/inproctest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// The harness of the state machine's tests: Servers made from a real config file whose
// sessions are mcp-go servers run in the test process (Deps.Connect), on the fake clock.
// No process, no network, no bridge.

// testGuard bounds every wait of a test (a failure bound, never a timing assertion).
const testGuard = 60 * time.Second

// inprocEnv is a set of Servers whose sessions are all in-process.
type inprocEnv struct {
	t       *testing.T
	home    string
	clock   *clock.Fake
	servers inproctest.Servers
}

// newInprocEnv writes a config with one stdio entry per server (extra fields merged in)
// and builds the in-process servers behind them.
func newInprocEnv(t *testing.T, entries map[string]map[string]any) *inprocEnv {
	e := &inprocEnv{t: t, home: t.TempDir(), clock: clock.NewFake()}
	e.servers = inproctest.WriteConfig(t, e.home, entries)
	return e
}

// zotSurface words commands as zot's /mcp does.
type zotSurface struct{}

func (zotSurface) Cmd(sub string, args ...string) string {
	return strings.Join(append([]string{"/mcp", sub}, args...), " ")
}

func (zotSurface) Reload() string { return "run /reload-ext" }

func (zotSurface) StderrCmd(server string) string { return "/mcp " + server }

// loaded is the Servers of one load of the config, by name.
type loaded map[string]*Server

// load loads the config and makes its Servers, stopped at test end.
func (e *inprocEnv) load() loaded {
	cfg := config.Load(config.Options{ZotHome: e.home, ProjectDir: e.t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
	d := &Deps{Clock: e.clock, Log: zerolog.New(testutil.Log(e.t)), Connector: ConnectFunc(e.servers.Connect).For, Surface: zotSurface{}}
	l := loaded{}
	for i := range cfg.Servers {
		c := &cfg.Servers[i]
		l[c.Name] = New(c, d)
	}
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, s := range l {
			s.Stop(ctx)
		}
	})
	return l
}

func (e *inprocEnv) srv(l loaded, name string) *Server {
	s, ok := l[name]
	if !ok {
		e.t.Fatalf("no server %q", name)
	}
	return s
}

func resultText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func mustCall(t *testing.T, s *Server, tool string, args map[string]any) string {
	t.Helper()
	r, err := s.Call(ctxGuard(t), tool, args, false)
	if err != nil {
		t.Fatalf("%s/%s: %v", s.Name(), tool, err)
	}
	return resultText(r)
}

func ctxGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testGuard)
	t.Cleanup(cancel)
	return ctx
}

// wantState fails the test unless the server is in st now; why says what was checked.
func wantState(t *testing.T, s *Server, st State, why string) {
	t.Helper()
	if got := s.Status().State; got != st {
		t.Fatalf("%s: server %s is %s, want %s", why, s.Name(), got, st)
	}
}

// waitFor polls cond until it holds, bounded by the test's guard (testutil.WaitFor).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.WaitFor(ctxGuard(t), t, what, cond)
}

// waitState polls until the server reaches st (bounded by the guard).
func waitState(t *testing.T, s *Server, st State) {
	t.Helper()
	waitFor(t, fmt.Sprintf("server %s to reach %s", s.Name(), st), func() bool { return s.Status().State == st })
}

// waitInFlight polls until the server has n calls in flight (bounded by the guard).
func waitInFlight(t *testing.T, s *Server, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d calls in flight on %s", n, s.Name()), func() bool { return s.Status().InFlight == n })
}
