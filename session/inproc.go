package session

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/ctxval"
)

// InProcess is a session with an mcp-go server in this process (mcp-go's in-process
// transport), for tests and benchmarks: no process, no pipes. Exit and Lose end it the
// way a crashing process or a broken stream would, so the bridge's reaction to a crash
// can be tested without one.
type InProcess struct {
	*Client
	once sync.Once
	// hold, when set, is what Close waits for after ending the session, as a real
	// process's stop graces or an HTTP DELETE make a close take time.
	hold atomic.Pointer[chan struct{}]
}

// OpenInProcess connects to srv and initializes within ctx. The transport reports itself
// as stdio (Info.Transport) since the bridge treats it like a local server.
func OpenInProcess(ctx context.Context, srv *server.MCPServer, h Handlers) (*InProcess, error) {
	s := &InProcess{Client: NewClient(apart{transport.NewInProcessTransport(srv)}, config.TransportStdio, h)}
	s.SetLink(Link{Around: inProcessAround})
	if err := s.Initialize(ctx, h); err != nil {
		_ = s.Close(context.Background())
		return nil, err
	}
	return s, nil
}

// inProcessAround fails a request answered after its context ended (its deadline, or
// the session's end): the in-process transport runs the handler to its end and answers,
// where a real client would have given up. Over a real transport a reply that arrived is
// kept, even when the deadline fires just after.
func inProcessAround(ctx context.Context, _ string, do func(context.Context) error) error {
	err := do(ctx)
	if err == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// apart hands the in-process server a request's cancellation and deadline only, never
// its context's values, as a process across a pipe receives nothing else. Without it a
// caller that is itself an mcp-go server handling an HTTP request (serve) passes that
// request's headers on, and the backend checks them against its own request: a call
// named mcp__alpha__echo in front fails as "Mcp-Name does not match echo" behind.
type apart struct{ transport.Interface }

func (a apart) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return a.Interface.SendRequest(ctxval.WithoutValues(ctx), req)
}

func (a apart) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	return a.Interface.SendNotification(ctxval.WithoutValues(ctx), n)
}

// Exit ends the session as if its process had exited with status, having written
// stderr.
func (s *InProcess) Exit(status, stderr string) {
	s.end(End{Cause: CauseExited, Status: status, Stderr: stderr})
}

// Lose ends the session as if its transport broke with err.
func (s *InProcess) Lose(err error) { s.end(End{Cause: CauseLost, Err: err}) }

// Close ends the session; with HoldClose set, it returns once that channel closes or
// ctx ends.
func (s *InProcess) Close(ctx context.Context) error {
	s.end(End{Cause: CauseClosed})
	if h := s.hold.Load(); h != nil {
		select {
		case <-*h:
		case <-ctx.Done():
		}
	}
	return nil
}

// HoldClose makes every later Close wait until release closes, so that a test can
// show what does not wait for a close.
func (s *InProcess) HoldClose(release chan struct{}) { s.hold.Store(&release) }

func (s *InProcess) end(e End) {
	s.Finish(e)
	s.once.Do(func() { _ = s.cl.Close() })
}
