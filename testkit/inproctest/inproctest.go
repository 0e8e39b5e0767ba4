// Package inproctest is the in-process MCP server of the state machine's tests (package
// lifecycle's and bridge's): an mcp-go server in the test process with echo, pid, slow
// and generated tools, knobs for a hung open, a failed open and unanswered pings, and a
// record of the sessions opened.
package inproctest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/session"
)

// guard bounds WaitStarted (a failure bound, never a timing assertion).
const guard = 60 * time.Second

// Server is one configured server of an in-process test: an mcp-go server run in the
// test process, opened through the state machine's injected connector (Open). It counts opens and
// lets a test end a session the way a crash or a dropped stream would, on demand.
type Server struct {
	srv *server.MCPServer

	mu       sync.Mutex
	opens    int
	inits    int // initialize requests the server saw
	sessions []*session.InProcess
	// OpenErr, when set, decides the outcome of the n-th open (nil: open normally).
	OpenErr func(n int) error
	// HangOpen makes every open wait until its context ends.
	HangOpen bool
	// HangPing makes the server leave pings unanswered until the ping's context ends:
	// ping, and server/discover (a modern connection's ping, and a new one's probe).
	HangPing bool

	started chan string // tool names whose calls reached the server
	// Cancelled receives the tool names whose calls saw their context end.
	Cancelled chan string
}

// New is a server with echo (read-only), pid (which session answered),
// slow (waits for its context to end) and n generated tools.
func New(n int) *Server {
	f := &Server{started: make(chan string, 100), Cancelled: make(chan string, 100)}
	hooks := &server.Hooks{}
	hooks.AddBeforeInitialize(func(context.Context, any, *mcp.InitializeRequest) {
		f.mu.Lock()
		f.inits++
		f.mu.Unlock()
	})
	hangPing := func(ctx context.Context) {
		f.mu.Lock()
		hang := f.HangPing
		f.mu.Unlock()
		if hang {
			<-ctx.Done()
		}
	}
	hooks.AddBeforePing(func(ctx context.Context, _ any, _ *mcp.PingRequest) { hangPing(ctx) })
	// A modern connection pings with server/discover (session.Client.Ping).
	hooks.AddBeforeDiscover(func(ctx context.Context, _ any, _ *mcp.DiscoverRequest) { hangPing(ctx) })
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
		f.Cancelled <- "slow"
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

// SetTool adds a tool that answers "ok" from its name, or replaces the tool of that name
// (a server changing its tools after it was approved); sessions are told the list changed.
func (f *Server) SetTool(name, description string) {
	f.srv.AddTool(mcp.NewTool(name, mcp.WithDescription(description)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok from " + name), nil
		})
}

// ShareListings makes the server mark its list results cacheScope "public" (ttlMs 0) in
// the modern era, where mcp-go's default is "private": a project server's private listing
// is never written to the tool cache, so a test about cached tools of a project server
// needs a server that allows it. Call it before the first session opens.
func (f *Server) ShareListings() { server.WithCacheHints(0, mcp.CacheScopePublic)(f.srv) }

// SetResource adds a text resource at uri, or replaces the one there; the server offers
// resources from then on.
func (f *Server) SetResource(uri, text string) {
	f.srv.AddResource(mcp.NewResource(uri, uri, mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: text}}, nil
		})
}

// RemoveTool removes the named tools.
func (f *Server) RemoveTool(names ...string) { f.srv.DeleteTools(names...) }

// Open opens a session to the server, as Deps.Connect does, honouring HangOpen and
// OpenErr.
func (f *Server) Open(ctx context.Context, h session.Handlers) (session.Session, error) {
	f.mu.Lock()
	f.opens++
	n, hang, OpenErr := f.opens, f.HangOpen, f.OpenErr
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if OpenErr != nil {
		if err := OpenErr(n); err != nil {
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

// Last is the newest session opened.
func (f *Server) Last() *session.InProcess {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[len(f.sessions)-1]
}

// Counts is how many sessions were opened and how many initialize requests arrived.
func (f *Server) Counts() (opens, inits int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.opens, f.inits
}

// Set changes f's knobs under its lock.
func (f *Server) Set(fn func(f *Server)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// WaitStarted waits until a call of tool reached the in-process server.
func (f *Server) WaitStarted(t testing.TB, tool string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
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
