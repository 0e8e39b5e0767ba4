package session_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/remote"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// sessionRequests are every request a Session makes, each run once.
var sessionRequests = []struct {
	name string
	do   func(context.Context, session.Session) error
}{
	{"ListTools", func(ctx context.Context, s session.Session) error { _, _, err := s.ListTools(ctx); return err }},
	{"CallTool", func(ctx context.Context, s session.Session) error {
		_, err := s.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}})
		return err
	}},
	{"ListResources", func(ctx context.Context, s session.Session) error { _, err := s.ListResources(ctx); return err }},
	{"ListResourceTemplates", func(ctx context.Context, s session.Session) error { _, err := s.ListResourceTemplates(ctx); return err }},
	{"ListPrompts", func(ctx context.Context, s session.Session) error { _, err := s.ListPrompts(ctx); return err }},
	{"ReadResource", func(ctx context.Context, s session.Session) error {
		_, err := s.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "test://r"}})
		return err
	}},
	{"GetPrompt", func(ctx context.Context, s session.Session) error {
		_, err := s.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "p"}})
		return err
	}},
	{"Ping", func(ctx context.Context, s session.Session) error { return s.Ping(ctx) }},
	{"Request", func(ctx context.Context, s session.Session) error {
		_, err := s.Request(ctx, string(mcp.MethodTasksGet), map[string]any{"taskId": "t"})
		return err
	}},
	{"TaskResult", func(ctx context.Context, s session.Session) error {
		_, err := s.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: "t"}})
		return err
	}},
	{"CancelTask", func(ctx context.Context, s session.Session) error {
		return s.CancelTask(ctx, mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: "t"}})
	}},
}

func testInit() session.Handlers {
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	return session.Handlers{Init: init, Era: session.Era{Clock: clock.System{}}}
}

// echoServer is an mcp-go server with the one tool the requests call.
func echoServer() *server.MCPServer {
	srv := server.NewMCPServer("ended", "1.0", server.WithToolCapabilities(true), server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false))
	srv.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	return srv
}

// TestEndedSessionFailsEveryRequest: on every transport, once a session has ended (we
// closed it, its process exited, its transport was lost), every request fails the same
// way: an *EndedError saying how the session ended, of kind KindEnded, never sent
// (ErrEnded). Before, only CallTool said so (stdio overrode only it, in-process also
// Ping and ListTools, HTTP ListTools), and ReadResource, GetPrompt, Request, TaskResult
// and the lists gave the transport's own error.
func TestEndedSessionFailsEveryRequest(t *testing.T) {
	t.Parallel()
	bin := testutil.FakeServer(t)
	openStdio := func(t *testing.T, ctx context.Context) session.Session {
		cfg := &config.Server{Name: "s", Source: "mcp.json", Command: bin, Transport: config.TransportStdio, Raw: config.Raw{Command: bin}}
		env := append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
		c := &session.StdioConnector{Options: func() session.Stdio {
			return session.Stdio{Config: cfg, Env: env, Log: zerolog.Nop(), Clock: clock.System{}}
		}}
		s, err := c.Open(ctx, testInit())
		if err != nil {
			t.Fatalf("open stdio: %v", err)
		}
		return s
	}
	openHTTP := func(t *testing.T, ctx context.Context) (session.Session, *httptest.Server) {
		hs := httptest.NewServer(server.NewStreamableHTTPServer(echoServer()))
		t.Cleanup(hs.Close)
		cfg := &config.Server{Name: "h", Source: "mcp.json", URL: hs.URL + "/mcp", Transport: config.TransportStreamableHTTP,
			ConnectTimeout: time.Minute, RequestTimeout: time.Minute}
		d := &remote.Deps{Log: zerolog.Nop(), Clock: clock.System{}, ClientName: "test", Cmd: func(sub string, args ...string) string { return sub }}
		s, err := remote.NewServer(cfg, d).Open(ctx, testInit())
		if err != nil {
			t.Fatalf("open http: %v", err)
		}
		return s, hs
	}
	openInProcess := func(t *testing.T, ctx context.Context) *session.InProcess {
		s, err := session.OpenInProcess(ctx, echoServer(), testInit())
		if err != nil {
			t.Fatalf("open in-process: %v", err)
		}
		return s
	}
	tests := []struct {
		name string
		want session.Cause
		// end opens a session and ends it.
		end func(t *testing.T, ctx context.Context) session.Session
	}{
		{"stdio closed", session.CauseClosed, func(t *testing.T, ctx context.Context) session.Session {
			s := openStdio(t, ctx)
			_ = s.Close(ctx)
			return s
		}},
		{"stdio process exited", session.CauseExited, func(t *testing.T, ctx context.Context) session.Session {
			s := openStdio(t, ctx)
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			res, err := s.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "pid"}})
			if err != nil || len(res.Content) != 1 {
				t.Fatalf("pid: %v", err)
			}
			pid, err := strconv.Atoi(res.Content[0].(mcp.TextContent).Text)
			if err != nil {
				t.Fatal(err)
			}
			p, err := os.FindProcess(pid)
			if err != nil {
				t.Fatal(err)
			}
			_ = p.Kill()
			select {
			case <-s.Done():
			case <-ctx.Done():
				t.Fatal("the killed process never ended the session")
			}
			return s
		}},
		{"streamable HTTP closed", session.CauseClosed, func(t *testing.T, ctx context.Context) session.Session {
			s, _ := openHTTP(t, ctx)
			_ = s.Close(ctx)
			return s
		}},
		{"streamable HTTP server gone", session.CauseLost, func(t *testing.T, ctx context.Context) session.Session {
			s, hs := openHTTP(t, ctx)
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			hs.CloseClientConnections()
			hs.Close()
			// The failed request is what tells the session the server cannot be reached.
			if err := s.Ping(ctx); err == nil {
				t.Fatal("ping of a closed server answered")
			}
			select {
			case <-s.Done():
			case <-ctx.Done():
				t.Fatal("an unreachable server never ended the session")
			}
			return s
		}},
		{"in-process closed", session.CauseClosed, func(t *testing.T, ctx context.Context) session.Session {
			s := openInProcess(t, ctx)
			_ = s.Close(ctx)
			return s
		}},
		{"in-process exited", session.CauseExited, func(t *testing.T, ctx context.Context) session.Session {
			s := openInProcess(t, ctx)
			s.Exit("exited: exit status 3", "")
			return s
		}},
		{"in-process lost", session.CauseLost, func(t *testing.T, ctx context.Context) session.Session {
			s := openInProcess(t, ctx)
			s.Lose(errors.New("stream dropped"))
			return s
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			s := tt.end(t, ctx)
			if got := s.End().Cause; got != tt.want {
				t.Fatalf("session ended %v, want cause %d", s.End(), tt.want)
			}
			for _, r := range sessionRequests {
				err := r.do(ctx, s)
				var ended *session.EndedError
				if !errors.As(err, &ended) || ended.End.Cause != tt.want || !errors.Is(err, session.ErrEnded) || session.KindOf(err) != session.KindEnded {
					t.Errorf("%s on an ended session: %v (%T, kind %d); want an *EndedError of cause %d, never sent", r.name, err, err, session.KindOf(err), tt.want)
				}
			}
			if ctx.Err() != nil {
				t.Fatal("the requests waited for the test's deadline")
			}
		})
	}
}

// TestEndFailsRequestsInFlight: a request waiting for its answer when the session ends
// fails with an *EndedError at once, whichever request it is, on every transport. Before,
// only the in-process session's CallTool, Ping and ListTools were cut short; a
// ReadResource waited for an answer that could not come; and over HTTP a tools/list in
// flight failed as "cancelled while listing tools".
func TestEndFailsRequestsInFlight(t *testing.T) {
	t.Parallel()
	// blocking is echoServer with a resource read and a tool listing that wait, once
	// started says so, until their request ends or release closes.
	blocking := func(started chan<- struct{}, release <-chan struct{}) *server.MCPServer {
		hooks := &server.Hooks{}
		hooks.AddBeforeListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
			case <-release:
			}
		})
		srv := server.NewMCPServer("ended", "1.0", server.WithToolCapabilities(true), server.WithResourceCapabilities(false, false), server.WithHooks(hooks))
		srv.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
		srv.AddResource(mcp.NewResource("test://r", "r"), func(ctx context.Context, _ mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
			case <-release:
			}
			return nil, errors.New("released")
		})
		return srv
	}
	readResource := func(ctx context.Context, s session.Session) error {
		_, err := s.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "test://r"}})
		return err
	}
	listTools := func(ctx context.Context, s session.Session) error { _, _, err := s.ListTools(ctx); return err }
	tests := []struct {
		name    string
		want    session.Cause
		request func(context.Context, session.Session) error
		// open opens a session on srv; end ends it while a request is in flight.
		open func(t *testing.T, ctx context.Context, srv *server.MCPServer, exit <-chan struct{}) session.Session
		end  func(ctx context.Context, s session.Session, exit chan<- struct{})
	}{
		{"in-process exited", session.CauseExited, readResource,
			func(t *testing.T, ctx context.Context, srv *server.MCPServer, _ <-chan struct{}) session.Session {
				s, err := session.OpenInProcess(ctx, srv, testInit())
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			func(_ context.Context, s session.Session, _ chan<- struct{}) {
				s.(*session.InProcess).Exit("exited: signal: killed", "")
			}},
		{"pipe exited", session.CauseExited, readResource,
			func(t *testing.T, ctx context.Context, srv *server.MCPServer, exit <-chan struct{}) session.Session {
				serve := func(ctx context.Context, in io.Reader, out, _ io.Writer) error {
					// The server is left running when the "process" exits: a handler that
					// stopped at the exit could answer before the session saw the end,
					// which a dead process never does.
					go func() { _ = server.NewStdioServer(srv).Listen(ctx, in, out) }()
					select {
					case <-exit:
						return errors.New("signal: killed")
					case <-ctx.Done():
						return nil
					}
				}
				s, err := session.OpenPipe(ctx, session.Pipe{Name: "piped", Serve: serve, Log: zerolog.Nop()}, testInit())
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			func(_ context.Context, _ session.Session, exit chan<- struct{}) { close(exit) }},
		{"streamable HTTP closed", session.CauseClosed, listTools,
			func(t *testing.T, ctx context.Context, srv *server.MCPServer, _ <-chan struct{}) session.Session {
				hs := httptest.NewServer(server.NewStreamableHTTPServer(srv))
				t.Cleanup(hs.Close)
				cfg := &config.Server{Name: "h", Source: "mcp.json", URL: hs.URL + "/mcp", Transport: config.TransportStreamableHTTP,
					ConnectTimeout: time.Minute, RequestTimeout: time.Minute}
				d := &remote.Deps{Log: zerolog.Nop(), Clock: clock.System{}, ClientName: "test", Cmd: func(sub string, args ...string) string { return sub }}
				s, err := remote.NewServer(cfg, d).Open(ctx, testInit())
				if err != nil {
					t.Fatalf("open http: %v", err)
				}
				return s
			},
			func(ctx context.Context, s session.Session, _ chan<- struct{}) { _ = s.Close(ctx) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
			defer cancel()
			started := make(chan struct{}, 4)
			release := make(chan struct{})
			exit := make(chan struct{})
			s := tt.open(t, ctx, blocking(started, release), exit)
			t.Cleanup(func() { close(release) }) // before the HTTP server's Close, which waits for its handlers
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			errc := make(chan error, 1)
			go func() { errc <- tt.request(ctx, s) }()
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatal("the request never reached the server")
			}
			tt.end(ctx, s, exit)
			err := <-errc
			var ended *session.EndedError
			if !errors.As(err, &ended) || ended.End.Cause != tt.want || session.KindOf(err) != session.KindEnded || ctx.Err() != nil {
				t.Fatalf("request in flight when the session ended: %v (%T, kind %d); want an *EndedError of cause %d", err, err, session.KindOf(err), tt.want)
			}
		})
	}
}
