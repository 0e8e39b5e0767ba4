package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
)

// The harness of the state machine's tests: Servers made from a real config file whose
// sessions are mcp-go servers run in the test process (Deps.Connect), on the fake clock.
// No process, no network, no bridge.

// testGuard bounds every wait of a test (a failure bound, never a timing assertion).
const testGuard = 60 * time.Second

// inprocServer is one configured server of an in-process test: an mcp-go server run in
// the test process, opened through the injected connector. It counts opens and
// lets a test end a session the way a crash or a dropped stream would, on demand.
type inprocServer struct {
	srv *server.MCPServer

	mu       sync.Mutex
	opens    int
	inits    int // initialize requests the server saw
	sessions []*session.InProcess
	// openErr, when set, decides the outcome of the n-th open (nil: open normally).
	openErr func(n int) error
	// hangOpen makes every open wait until its context ends.
	hangOpen bool
	// hangPing makes the server leave pings unanswered until the ping's context ends.
	hangPing bool

	started   chan string // tool names whose calls reached the server
	cancelled chan string // tool names whose calls saw their context end
}

// newInprocServer is a server with echo (read-only), pid (which session answered),
// slow (waits for its context to end) and n generated tools.
func newInprocServer(n int) *inprocServer {
	f := &inprocServer{started: make(chan string, 100), cancelled: make(chan string, 100)}
	hooks := &server.Hooks{}
	hooks.AddBeforeInitialize(func(context.Context, any, *mcp.InitializeRequest) {
		f.mu.Lock()
		f.inits++
		f.mu.Unlock()
	})
	hooks.AddBeforePing(func(ctx context.Context, _ any, _ *mcp.PingRequest) {
		f.mu.Lock()
		hang := f.hangPing
		f.mu.Unlock()
		if hang {
			<-ctx.Done()
		}
	})
	f.srv = server.NewMCPServer("inproc", "1.0", server.WithToolCapabilities(true), server.WithHooks(hooks))
	f.srv.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required()), mcp.WithReadOnlyHintAnnotation(true)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f.started <- "echo"
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	f.srv.AddTool(mcp.NewTool("pid"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return mcp.NewToolResultText(strconv.Itoa(len(f.sessions))), nil
	})
	f.srv.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.started <- "slow"
		<-ctx.Done()
		f.cancelled <- "slow"
		return nil, ctx.Err()
	})
	for i := range n {
		f.srv.AddTool(mcp.NewTool(fmt.Sprintf("gen_%03d", i), mcp.WithDescription("generated")),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
	}
	return f
}

func (f *inprocServer) open(ctx context.Context, h session.Handlers) (session.Session, error) {
	f.mu.Lock()
	f.opens++
	n, hang, openErr := f.opens, f.hangOpen, f.openErr
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if openErr != nil {
		if err := openErr(n); err != nil {
			return nil, err
		}
	}
	s, err := session.OpenInProcess(ctx, f.srv, h)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.sessions = append(f.sessions, s)
	f.mu.Unlock()
	return s, nil
}

// last is the newest session opened.
func (f *inprocServer) last() *session.InProcess {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[len(f.sessions)-1]
}

func (f *inprocServer) counts() (opens, inits int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.opens, f.inits
}

func (f *inprocServer) set(fn func(f *inprocServer)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// inprocEnv is a set of Servers whose sessions are all in-process.
type inprocEnv struct {
	t       *testing.T
	home    string
	clock   *clock.Fake
	servers map[string]*inprocServer
}

// newInprocEnv writes a config with one stdio entry per server (extra fields merged in)
// and builds the in-process servers behind them.
func newInprocEnv(t *testing.T, entries map[string]map[string]any) *inprocEnv {
	e := &inprocEnv{t: t, home: t.TempDir(), clock: clock.NewFake(), servers: map[string]*inprocServer{}}
	doc := map[string]any{}
	for name, extra := range entries {
		doc[name] = mergeMap(map[string]any{"command": "in-process"}, extra)
		e.servers[name] = newInprocServer(0)
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
	return f.open(ctx, h)
}

// zotSurface words commands as zot's /mcp does.
type zotSurface struct{}

func (zotSurface) Cmd(sub string, args ...string) string {
	return strings.Join(append([]string{"/mcp", sub}, args...), " ")
}

func (zotSurface) Reload() string { return "run /reload-ext" }

// loaded is the Servers of one load of the config, by name.
type loaded map[string]*Server

// load loads the config and makes its Servers, stopped at test end.
func (e *inprocEnv) load() loaded {
	cfg := config.Load(config.Options{ZotHome: e.home, ProjectDir: e.t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
	d := &Deps{Clock: e.clock, Log: zerolog.New(testLog(e.t)), Connect: e.connect, Surface: zotSurface{}}
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

// waitStarted waits until a call of tool reached the in-process server.
func (f *inprocServer) waitStarted(t *testing.T, tool string) {
	t.Helper()
	ctx := ctxGuard(t)
	for {
		select {
		case got := <-f.started:
			if got == tool {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no call of %s reached the server", tool)
		}
	}
}

func mergeMap(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
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

// waitFor polls cond until it holds (bounded by the guard).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx := ctxGuard(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(5 * time.Millisecond):
		}
	}
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

// advanceWhenWaiting advances the clock by d once a timer of d is set on it.
func advanceWhenWaiting(t *testing.T, c *clock.Fake, d time.Duration) {
	t.Helper()
	waitFor(t, fmt.Sprintf("a timer of %s on the clock", d), func() bool { return c.HasTimer(d) })
	c.Advance(d)
}

// testLog writes to t.Log while the test runs and drops what background goroutines log
// after it ended.
func testLog(t *testing.T) io.Writer {
	w := &tlog{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return w
}

type tlog struct {
	mu   sync.Mutex
	t    *testing.T
	done bool
}

func (w *tlog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimSpace(string(p)))
	}
	return len(p), nil
}
