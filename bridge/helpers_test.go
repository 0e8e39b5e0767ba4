package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/supervise"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/fakemcp/fake"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// kindOf is the kind of a server error (lifecycle.KindOf).
var kindOf = lifecycle.KindOf

func TestMain(m *testing.M) {
	supervise.MaybeRun() // this test binary doubles as the per-server supervisor
	testutil.RaiseParallel(testutil.WaitingParallelism)
	code := m.Run()
	testutil.RemoveBuilt()
	os.Exit(code)
}

// supervisorArgv is the Supervisor option that runs this test binary as each server's
// supervisor. Under -race the binary would pause at exit for the race runtime's default
// second (GORACE atexit_sleep_ms), which held every server stop until the bridge's SIGTERM
// grace ran out; a supervisor has no late reports to wait for.
func supervisorArgv() []string {
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return []string{"env", "GORACE=" + gorace, os.Args[0], supervise.Arg}
}

// guard bounds waits so a broken test fails instead of hanging; never a measurement.
const guard = 60 * time.Second

// fakeClock is a manual clock: timers fire, synchronously, only inside Advance.
// fakeClock is the shared fake clock (internal/clock).
type fakeClock = clock.Fake

func newFakeClock() *fakeClock { return clock.NewFake() }

// testEnv is a zot home with a config file, and a bridge loaded from it. Its fake
// servers run in the test's process behind pipe sessions (connect) unless the test asks
// for processes (useProcesses) or its config has a server a pipe cannot play.
type testEnv struct {
	t       *testing.T
	home    string
	project string
	marker  string
	// fake is the fake server's command in the config: fakeInProcess until processes
	// are needed, then the built fakemcp binary.
	fake  string
	clock *fakeClock
	env   map[string]string
	// wire: the test asked for processes; piped: the config last written runs in process.
	wire, piped bool
	starts      atomic.Int64 // pipe servers started, for the pid tool's distinct answers
	b           *Bridge      // the last made by bridge, whose MaxReply the pipes take
}

// fakeInProcess stands for the fake server's command in a config whose servers run in
// the test's process: this test binary, so that a check of the command finds a file.
var fakeInProcess = os.Args[0]

func newTestEnv(t *testing.T) *testEnv {
	e := &testEnv{t: t, home: t.TempDir(), project: t.TempDir(), marker: testutil.NewMarker(t), fake: fakeInProcess,
		clock: newFakeClock(), env: map[string]string{}}
	t.Cleanup(func() { testutil.KillProcsWithMarker(e.marker) })
	return e
}

// useProcesses makes the test's fake servers processes, run by the bridge under its
// supervisor (a wire smoke test, or one that needs what only a process has); before
// write.
func (e *testEnv) useProcesses() {
	e.wire = true
	e.fake = testutil.FakeServer(e.t)
}

// pipeable says whether a config entry lets the config run in process: the fake server
// over stdio with no flag that needs a process of its own, or another stdio command that
// is no program on disk, which such a test must never start (the connector fails it: the
// test then asks for processes). A real server (an npm one) and a remote entry need the
// bridge's own transports.
func pipeable(entry any) bool {
	m, ok := entry.(map[string]any)
	if !ok || m["url"] != nil || (m["type"] != nil && m["type"] != "stdio") {
		return false
	}
	if m["command"] != fakeInProcess {
		cmd, _ := m["command"].(string)
		if fi, err := os.Stat(cmd); filepath.IsAbs(cmd) && err == nil && !fi.IsDir() {
			return false
		}
		return true
	}
	args, ok := m["args"].([]string)
	if !ok && m["args"] != nil {
		return false
	}
	_, needs := fake.NeedsProcess(args)
	return !needs
}

// connect is the Connector that runs every server of the config in this process: the
// fake server (fake.ServeStdio) behind a pipe session, so the bridge's stdio framing,
// reply limiter and loss detection run as over a process's pipes. nil when the test runs
// processes.
func (e *testEnv) connect() lifecycle.ConnectFunc {
	if !e.piped {
		return nil
	}
	log := zerolog.New(testutil.Log(e.t))
	return func(ctx context.Context, cfg *config.Server, h session.Handlers) (session.Session, error) {
		if cfg.Transport != config.TransportStdio || cfg.Command != fakeInProcess {
			return nil, fmt.Errorf("server %s is not the fake server and cannot run in process: the test must call useProcesses before write", cfg.Name)
		}
		env := map[string]string{}
		for _, kv := range lifecycle.Env(cfg, os.Environ()) {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		dir := cfg.Cwd
		if dir == "" {
			dir = e.project
		}
		fe := fake.Env{Getenv: func(k string) string { return env[k] }, Dir: dir, PID: 1_000_000 + int(e.starts.Add(1))}
		args := cfg.Args
		maxReply := 0
		if e.b != nil {
			maxReply = e.b.opts.MaxReplyBytes
		}
		return session.OpenPipe(ctx, session.Pipe{Name: cfg.Name, Log: log, Clock: e.clock, MaxReply: maxReply,
			Serve: func(ctx context.Context, in io.Reader, out, stderr io.Writer) error {
				return fake.ServeStdio(ctx, args, fe, in, out, stderr)
			}}, h)
	}
}

// server returns an mcpServers entry running the fake server with extra flags.
func (e *testEnv) server(extra ...string) map[string]any {
	return map[string]any{"command": e.fake, "args": append([]string{"-marker", e.marker, "-max-lifetime", "5m"}, extra...)}
}

func (e *testEnv) write(servers map[string]any, top map[string]any) {
	e.piped = !e.wire
	for _, entry := range servers {
		e.piped = e.piped && pipeable(entry)
	}
	if !e.piped {
		// A server needs a process: every fake one runs as one.
		for _, entry := range servers {
			if m, ok := entry.(map[string]any); ok && m["command"] == fakeInProcess {
				if e.fake == fakeInProcess {
					e.fake = testutil.FakeServer(e.t)
				}
				m["command"] = e.fake
			}
		}
	}
	doc := map[string]any{"mcpServers": servers}
	for k, v := range top {
		doc[k] = v
	}
	raw, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(filepath.Join(e.home, "mcp.json"), raw, 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (e *testEnv) lookup(k string) (string, bool) {
	v, ok := e.env[k]
	return v, ok
}

// bridge loads a bridge from the written config (no host).
func (e *testEnv) bridge(gen extension.Generation) *Bridge {
	e.b = loadBridge(e.t, Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(testutil.Log(e.t)),
		Supervisor: supervisorArgv(), Resolver: noDNS(), Connect: e.connect()}, e.project, gen)
	return e.b
}

func (e *testEnv) srv(b *Bridge, name string) *lifecycle.Server { return mustServer(e.t, b, name) }

// loadBridge makes a bridge from opts, loads projectDir for gen and closes it at test end.
func loadBridge(t *testing.T, opts Options, projectDir string, gen extension.Generation) *Bridge {
	b := New(opts)
	b.Load(projectDir, gen)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		b.Close(ctx)
	})
	return b
}

// mustServer is b's server of that name; the test fails without one.
func mustServer(t *testing.T, b *Bridge, name string) *lifecycle.Server {
	t.Helper()
	s, ok := b.Server(name)
	if !ok {
		t.Fatalf("no server %q", name)
	}
	return s
}

func ctxGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	return ctx
}

// wantState fails the test unless the server is in st now; why says what was checked.
func wantState(t *testing.T, s *lifecycle.Server, st lifecycle.State, why string) {
	t.Helper()
	if got := s.Status().State; got != st {
		t.Fatalf("%s: server %s is %s, want %s", why, s.Name(), got, st)
	}
}

// waitState polls until the server reaches st (bounded by the guard).
func waitState(t *testing.T, s *lifecycle.Server, st lifecycle.State) {
	t.Helper()
	ctx := ctxGuard(t)
	for s.Status().State != st {
		select {
		case <-ctx.Done():
			t.Fatalf("server %s stuck in %s, want %s", s.Name(), s.Status().State, st)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// waitInFlight polls until n calls are in flight on s (bounded by the guard).
func waitInFlight(t *testing.T, s *lifecycle.Server, n int) {
	t.Helper()
	ctx := ctxGuard(t)
	for s.Status().InFlight != n {
		select {
		case <-ctx.Done():
			t.Fatalf("server %s has %d calls in flight, want %d", s.Name(), s.Status().InFlight, n)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func textOf(t *testing.T, r extension.ToolResult) string {
	t.Helper()
	s := ""
	for _, c := range r.Content {
		if c.Type == "text" {
			if s != "" {
				s += "\n"
			}
			s += c.Text
		}
	}
	return s
}

// noDNS is a resolver that fails every lookup (as for an unknown host), so no test sends
// anything beyond loopback.
func noDNS() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no DNS server in tests")
	}}
}

// serveHost runs b as an extension behind a fake host over pipes and reads its hello. At
// test end the host shuts it down, extension.Run must return, and b is closed.
func serveHost(t *testing.T, b *Bridge) *exttest.Host {
	t.Helper()
	// Registered first, so it runs after the host's shutdown (cleanups run last first).
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		b.Close(ctx)
	})
	h := exttest.Serve(t, guard, func(in io.Reader, out io.Writer) error {
		return extension.Run(context.Background(), in, out, b, extension.Options{Name: "mcp"})
	})
	h.ExpectHello(ctxGuard(t))
	return h
}

// statusText is the /mcp dashboard, as package commands words it for this bridge.
func (b *Bridge) statusText() string {
	text, _ := b.Command(context.Background(), "status")
	return text
}

// detailText is /mcp <server> without the tasks and log lines.
func (b *Bridge) detailText(name string) string {
	text, _ := commands.Detail(b.Commands(), name)
	return text
}
