package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/session"
)

// inprocServer is one configured server of an in-process test: an mcp-go server run in
// the test process, opened through the bridge's injected connector. It counts opens and
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

// inprocEnv is a bridge whose servers are all in-process (Options.Connect): no process,
// no network, time only on the fake clock.
type inprocEnv struct {
	t       *testing.T
	home    string
	clock   *fakeClock
	servers map[string]*inprocServer
}

// newInprocEnv writes a config with one stdio entry per server (extra fields merged in)
// and builds the in-process servers behind them.
func newInprocEnv(t *testing.T, entries map[string]map[string]any) *inprocEnv {
	e := &inprocEnv{t: t, home: t.TempDir(), clock: newFakeClock(), servers: map[string]*inprocServer{}}
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

func (e *inprocEnv) srv(b *Bridge, name string) *Server {
	s, ok := b.Server(name)
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
