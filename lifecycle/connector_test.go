package lifecycle

import (
	"context"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// recordingConnector is a server's connector as a host wires it: it opens in-process
// sessions, counts them, and says what a transport's connector keeps beyond a session
// (a process's stderr tail, a wanted login).
type recordingConnector struct {
	open  func(ctx context.Context, h session.Handlers) (session.Session, error)
	opens int
	login bool
	// tails counts the askings for the stderr tail.
	tails atomic.Int32
}

func (c *recordingConnector) Open(ctx context.Context, h session.Handlers) (session.Session, error) {
	c.opens++
	return c.open(ctx, h)
}

func (c *recordingConnector) Tail() *session.Ring {
	c.tails.Add(1)
	return session.NewStderrTail()
}

func (c *recordingConnector) NeedsLogin() bool { return c.login }

// failingCall is a live session whose tools/call fails as a connector classified it.
type failingCall struct {
	session.Session
	err error
}

func (f failingCall) CallTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, f.err
}

// TestServerUsesItsConnector: the state machine opens every session through the
// connector the host wired for the server (Deps.Connector), whatever the transport the
// configuration names; what only a transport knows (the stderr tail, a wanted login)
// reaches Status through it, and a connector's failure keeps its kind (session.Kind,
// one set for every transport) and its words, at start and on a call. Before, open
// switched on the transport and only tests could inject a connector, the login state
// lived in the Server, and remote's kinds were mapped onto the Server's one by one.
func TestServerUsesItsConnector(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {}})
	tests := []struct {
		name      string
		transport config.Transport
		open      func(c *config.Server) func(ctx context.Context, h session.Handlers) (session.Session, error)
		login     bool
		wantStart session.Kind // 0: starts
		wantCall  session.Kind // 0: the call answers
		wantText  []string
	}{
		{name: "stdio entry, in-process sessions", transport: config.TransportStdio},
		{name: "HTTP entry, in-process sessions", transport: config.TransportStreamableHTTP, login: true},
		{name: "a connect the connector classified", transport: config.TransportStreamableHTTP, wantStart: session.KindAuth,
			open: func(*config.Server) func(context.Context, session.Handlers) (session.Session, error) {
				return func(context.Context, session.Handlers) (session.Session, error) {
					return nil, &session.Error{Kind: session.KindAuth, Msg: "the server refused access (HTTP 401)"}
				}
			}, wantText: []string{`MCP server "s": the server refused access (HTTP 401)`}},
		{name: "a call the connector classified", transport: config.TransportStdio, wantCall: session.KindUnreachable,
			open: func(c *config.Server) func(context.Context, session.Handlers) (session.Session, error) {
				return func(ctx context.Context, h session.Handlers) (session.Session, error) {
					sess, err := e.servers.Connect(ctx, c, h)
					if err != nil {
						return nil, err
					}
					return failingCall{Session: sess, err: &session.Error{Kind: session.KindUnreachable, MaybeRan: true, Msg: "the connection was closed before an answer came"}}, nil
				}
			}, wantText: []string{"echo failed: the connection was closed before an answer came", "may already have applied the call"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := &config.Server{Name: "s", Enabled: true, Transport: tt.transport, ConnectTimeout: 60e9, RequestTimeout: 60e9}
			if tt.transport == config.TransportStdio {
				cfg.Command = "never-run"
			} else {
				cfg.URL = "https://example.invalid/mcp"
			}
			c := &recordingConnector{login: tt.login}
			c.open = func(ctx context.Context, h session.Handlers) (session.Session, error) {
				return e.servers.Connect(ctx, cfg, h)
			}
			if tt.open != nil {
				c.open = tt.open(cfg)
			}
			var wiredFor *config.Server
			s := New(cfg, &Deps{Clock: e.clock, Log: zerolog.New(testutil.Log(t)), Surface: zotSurface{},
				Connector: func(cfg *config.Server) Connector { wiredFor = cfg; return c }})
			t.Cleanup(func() { s.Stop(context.Background()) })
			if wiredFor != cfg || s.Connector() != Connector(c) {
				t.Fatalf("the server's connector was not the one wired for it")
			}
			var err error
			if err = s.Start(ctxGuard(t)); err == nil && tt.wantStart == 0 {
				_, err = s.Call(ctxGuard(t), "echo", map[string]any{"text": "hi"}, false)
			}
			switch want := max(tt.wantStart, tt.wantCall); {
			case want == 0 && err != nil:
				t.Fatalf("start and call: %v", err)
			case want != 0 && KindOf(err) != want:
				t.Fatalf("got %v (kind %d), want kind %d", err, KindOf(err), want)
			}
			for _, w := range tt.wantText {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("error %v lacks %q", err, w)
				}
			}
			if c.opens != 1 {
				t.Fatalf("connector opened %d sessions, want 1", c.opens)
			}
			before := c.tails.Load()
			st := s.Status()
			if st.NeedsLogin != tt.login || c.tails.Load() == before {
				t.Fatalf("status %+v: want the connector's login state (%v) and stderr tail", st, tt.login)
			}
		})
	}
}

// TestServerWithoutConnectorCannotStart: a server wired with no connector says so when
// asked to start, instead of choosing a transport itself.
func TestServerWithoutConnectorCannotStart(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {}})
	cfg := &config.Server{Name: "s", Enabled: true, Transport: config.TransportStdio, Command: "never-run", ConnectTimeout: 60e9}
	s := New(cfg, &Deps{Clock: e.clock, Log: zerolog.New(testutil.Log(t)), Surface: zotSurface{}})
	err := s.Start(ctxGuard(t))
	if KindOf(err) != session.KindStart || !strings.Contains(err.Error(), "no connector") {
		t.Fatalf("start without a connector: %v", err)
	}
}

// TestLifecycleImportsNoTransport: the state machine's production code imports no
// transport package (a server's connector is chosen where the host wires it) and none of
// the packages that hold what a host does with a server's offers (the cache, resources,
// tasks, the questions and progress shown to the user). Before, lifecycle imported remote
// to open HTTP sessions and map remote's failure kinds, and cache, extras and interact.
func TestLifecycleImportsNoTransport(t *testing.T) {
	var forbidden []string
	for _, p := range []string{"remote", "cache", "resources", "tasks", "interact"} {
		forbidden = append(forbidden, "github.com/zot-mcp/mcp-bridge/"+p)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if path == bad {
					t.Errorf("%s imports %s", f, path)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no production file checked")
	}
}

// TestTooLargeWordingFollowsTheConnector: after a reply too large to match ended the
// session, the model is told the server is restarted when its sessions are processes of
// ours and that the next call reconnects otherwise, decided by what the connector is, not
// by the transport the configuration names.
func TestTooLargeWordingFollowsTheConnector(t *testing.T) {
	t.Parallel()
	end := session.End{Cause: session.CauseLost, Err: session.ErrReplyTooLarge}
	for _, tc := range []struct {
		name      string
		transport config.Transport
		connector Connector
		want      string
	}{
		{"a process connector", config.TransportStreamableHTTP, &recordingConnector{}, "The server is restarted for the next call"},
		{"a connection connector", config.TransportStdio, ConnectFunc(nil).For(nil), "The next call reconnects"},
	} {
		cfg := &config.Server{Name: "s", Transport: tc.transport}
		s := New(cfg, &Deps{Clock: clock.NewFake(), Log: zerolog.Nop(), Surface: zotSurface{},
			Connector: func(*config.Server) Connector { return tc.connector }})
		if err := s.endedErr(end, session.ErrReplyTooLarge, "t", false); !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, err.Error(), tc.want)
		}
	}
}
