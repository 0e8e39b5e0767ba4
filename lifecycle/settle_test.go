package lifecycle

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// suspendedSession is a session whose tools/call is answered by the test: each call
// reports its arrival on called, then waits for the test to let it run (run), which
// says whether its reply is in by then. A call whose context has ended when it runs
// gives up, as mcp-go may when it finds both its context ended and the reply in.
type suspendedSession struct {
	session.Session
	called chan struct{}
	run    chan bool // true: the reply is in
}

func (s *suspendedSession) CallTool(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.called <- struct{}{}
	var in bool
	select {
	case in = <-s.run:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if !in {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return mcp.NewToolResultText("answered"), nil
}

// TestSuspendKeepsArrivedReply: a bridge stopped past a call's deadline (a laptop lid
// closed for 20 s) wakes with the deadline passed; a reply that arrived meanwhile is
// returned, not reported as a timeout. A call with no reply in still times out, once the
// grace for what has arrived has passed. Both on the fake clock: the clock jumps past the
// deadline before the call's goroutine runs again. Before, the request's context ended
// with the deadline, and the arrived reply was thrown away.
func TestSuspendKeepsArrivedReply(t *testing.T) {
	const rt = 37 * time.Second // requestTimeout: no other timer of the test has it
	for _, replyIn := range []bool{true, false} {
		name := "reply in"
		if !replyIn {
			name = "no reply"
		}
		t.Run(name, func(t *testing.T) {
			e := newInprocEnv(t, map[string]map[string]any{"s": {"requestTimeout": rt.Seconds()}})
			fake := &suspendedSession{called: make(chan struct{}, 1), run: make(chan bool, 1)}
			cfg := config.Load(config.Options{ZotHome: e.home, ProjectDir: t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false }})
			d := &Deps{Clock: e.clock, Log: zerolog.New(testutil.Log(t)), Surface: zotSurface{},
				Connector: ConnectFunc(func(ctx context.Context, c *config.Server, h session.Handlers) (session.Session, error) {
					sess, err := e.servers.Connect(ctx, c, h)
					if err != nil {
						return nil, err
					}
					fake.Session = sess
					return fake, nil
				}).For}
			s := New(&cfg.Servers[0], d)
			t.Cleanup(func() { s.Stop(context.Background()) })
			ctx := ctxGuard(t)
			type out struct {
				res *mcp.CallToolResult
				err error
			}
			done := make(chan out, 1)
			go func() {
				res, err := s.Call(ctx, "echo", map[string]any{"text": "x"}, true)
				done <- out{res, err}
			}()
			recv := func() {
				select {
				case <-fake.called:
				case <-ctx.Done():
					t.Fatal("the call never reached the session")
				}
			}
			recv()
			// The lid closes; 20 s past the deadline it opens again (one jump of the
			// clock), the reply (or none) in, and only then does the call's goroutine run.
			if err := e.clock.WaitTimer(ctx, rt); err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(rt + 20*time.Second)
			fake.run <- replyIn
			if !replyIn {
				if err := e.clock.AdvanceWhenSet(ctx, SettleGrace); err != nil {
					t.Fatal(err)
				}
			}
			var o out
			select {
			case o = <-done:
			case <-ctx.Done():
				t.Fatal("the call never returned")
			}
			if replyIn {
				if o.err != nil || resultText(o.res) != "answered" {
					t.Fatalf("a reply in before the deadline was declared passed: %v %v", o.res, o.err)
				}
				return
			}
			var le *Error
			if !errors.As(o.err, &le) || le.Kind != session.KindTimeout || !strings.Contains(le.Msg, "requestTimeout") {
				t.Fatalf("no reply: %v", o.err)
			}
		})
	}
}
