package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/capserver"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// openCapped opens a session to c through a 1 MiB cap.
func openCapped(t *testing.T, c *capserver.Server, log *testutil.SyncBuffer) session.Session {
	t.Helper()
	return openCappedOn(t, c, log, clock.System{})
}

// openCappedOn is openCapped with the session's clock.
func openCappedOn(t *testing.T, c *capserver.Server, log *testutil.SyncBuffer, clk clock.Clock) session.Session {
	t.Helper()
	u, kind := c.Start(t)
	return openCappedAt(t, u, kind, log, clk, testHandlers())
}

// openCappedAt opens a session to the server at u through a 1 MiB cap.
func openCappedAt(t *testing.T, u string, kind config.Transport, log *testutil.SyncBuffer, clk clock.Clock, h session.Handlers) session.Session {
	t.Helper()
	cfg := &config.Server{Name: "capped", Source: "mcp.json", URL: u, Transport: kind,
		ConnectTimeout: 30 * time.Second, RequestTimeout: 30 * time.Second, Raw: config.Raw{URL: u}}
	d := testDeps()
	d.MaxReply = 1 << 20
	d.Clock = clk
	if log != nil {
		d.Log = zerolog.New(log)
	}
	sess, err := NewServer(cfg, d).Open(testCtx(t), h)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = sess.Close(context.Background()) })
	return sess
}

func callBig(ctx context.Context, sess session.Session, n int) (*mcp.CallToolResult, error) {
	return sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "big", Arguments: map[string]any{"bytes": n}}})
}

var capModes = []string{"json", "sse", "legacy"}

// TestRemoteOversizeReplyFailsOnlyThatCall: on every HTTP transport, a reply over the cap
// fails its call with the error that names the cap and the setting to raise; the same
// session answers the next call, small and large-but-under-the-cap replies pass whole.
// Before, the whole reply was read into memory and delivered.
func TestRemoteOversizeReplyFailsOnlyThatCall(t *testing.T) {
	t.Parallel()
	for _, mode := range capModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			sess := openCapped(t, &capserver.Server{Mode: mode}, nil)
			_, err := callBig(testCtx(t), sess, 3<<20)
			if err == nil || !strings.Contains(err.Error(), "larger than the bridge accepts (1 MiB)") || !strings.Contains(err.Error(), session.MaxReplyEnv) {
				t.Fatalf("over-size reply: %v", err)
			}
			for _, n := range []int{10, 900 << 10} {
				res, err := callBig(testCtx(t), sess, n)
				if err != nil {
					t.Fatalf("%d bytes after the over-size one: %v", n, err)
				}
				if tc, ok := res.Content[0].(mcp.TextContent); !ok || len(tc.Text) != n {
					t.Fatalf("%d bytes: got %+v", n, res.Content[0])
				}
			}
		})
	}
}

// TestRemoteOversizeReplyWithIDInTheMiddle: an over-size reply whose id is neither at its
// start nor at its end fails its call at once with the cap's error (naming the setting to
// raise), within a requestTimeout on the fake clock that the test never advances. On a
// POST's event stream the request it answers is known, so only that call fails and the
// session goes on; on the legacy SSE stream (every answer on the one GET stream) it cannot
// be matched, so the session ends as a stdio server's does (the next use reconnects).
// Before, that reply was dropped and its call waited for requestTimeout.
func TestRemoteOversizeReplyWithIDInTheMiddle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode  string
		ended bool
	}{{"sse", false}, {"legacy", true}} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			fake := clock.NewFake()
			start := fake.Now()
			sess := openCappedOn(t, &capserver.Server{Mode: tc.mode, IDMiddle: true}, nil, fake)
			ctx, cancel := clock.WithTimeout(testCtx(t), fake, 30*time.Second)
			defer cancel()
			_, err := callBig(ctx, sess, 3<<20)
			if err == nil || !strings.Contains(err.Error(), "larger than the bridge accepts (1 MiB)") || !strings.Contains(err.Error(), session.MaxReplyEnv) {
				t.Fatalf("over-size reply with its id in the middle: %v", err)
			}
			if ctx.Err() != nil || !fake.Now().Equal(start) {
				t.Fatalf("the call ended with its deadline (%v, clock moved %v), not at once", ctx.Err(), fake.Now().Sub(start))
			}
			if !tc.ended {
				if ended(sess) {
					t.Fatalf("session ended (%v); only the call should fail", sess.End())
				}
				if res, err := callBig(ctx, sess, 10); err != nil || len(res.Content) != 1 {
					t.Fatalf("next call: %v", err)
				}
				return
			}
			var end *session.EndedError
			if !errors.As(err, &end) || !errors.Is(sess.End().Err, session.ErrReplyTooLarge) {
				t.Fatalf("got %v (session end %v); want the session ended by the over-size reply", err, sess.End())
			}
		})
	}
}

// TestRemoteOversizeNotificationIsDropped: an over-size notification on an event stream
// is dropped and logged with the server's name and its method, never its content; the
// stream stays usable and the reply behind it, to the call waiting for it, arrives. That
// holds wherever the notification names its method: first, or mid-message (neither first
// nor last member), where before it was taken for an unmatched reply that failed the
// POST's call, or ended the legacy SSE stream.
func TestRemoteOversizeNotificationIsDropped(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"sse", "legacy"} {
		for _, middle := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/method-mid-message=%v", mode, middle), func(t *testing.T) {
				t.Parallel()
				var log testutil.SyncBuffer
				c := &capserver.Server{Mode: mode, NoiseMethodMiddle: middle}
				sess := openCapped(t, c, &log)
				c.Noise.Store(3 << 20)
				res, err := callBig(testCtx(t), sess, 10)
				if err != nil {
					t.Fatalf("call behind an over-size notification: %v", err)
				}
				if tc, ok := res.Content[0].(mcp.TextContent); !ok || len(tc.Text) != 10 {
					t.Fatalf("got %+v", res.Content[0])
				}
				if ended(sess) {
					t.Fatalf("session ended: %v", sess.End())
				}
				l := log.String()
				if !strings.Contains(l, `"server":"capped"`) || !strings.Contains(l, `"method":"notifications/message"`) ||
					!strings.Contains(l, "larger than the bridge accepts (1 MiB)") || !strings.Contains(l, "the stream goes on") {
					t.Fatalf("log does not report the dropped message: %s", l)
				}
				if strings.Contains(l, "xxxxxxxx") {
					t.Fatalf("log holds the notification's content: %.300s", l)
				}
			})
		}
	}
}

// TestRemoteGetStreamOversizeMessage: on a streamable-HTTP server's own GET stream no
// request is there to fall back on, and mcp-go hands no reply read there to its caller.
// An over-size reply, wherever it names its id (first, among the scalar members it ends
// with, in its middle, or nowhere), cannot be matched to its call, so the stream and the
// connection end at once, as on stdio and legacy SSE for a reply whose id is not found: the call waiting on it fails with the cap's error
// and the setting to raise, within a requestTimeout on the fake clock the test never
// advances; the warning is logged; a new connection to the same server works. An
// over-size notification whose method sits mid-message is dropped instead, and the
// stream goes on: the notification behind it arrives and so does the waiting call's
// answer.
func TestRemoteGetStreamOversizeMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		msg   capserver.Message
		lost  bool
		posts string // how the server answers POSTs (capserver.Server.Mode)
	}{
		{name: "reply with its id in the middle", msg: capserver.ReplyIDMiddle, lost: true, posts: "json"},
		{name: "reply with its id in the middle, POSTs answered as event streams", msg: capserver.ReplyIDMiddle, lost: true, posts: "sse"},
		{name: "reply with no id", msg: capserver.ReplyNoID, lost: true, posts: "json"},
		{name: "reply with its id first", msg: capserver.ReplyIDFirst, lost: true, posts: "json"},
		{name: "reply with its id behind a scalar member", msg: capserver.ReplyIDLate, lost: true, posts: "json"},
		{name: "notification with its method mid-message", msg: capserver.NotificationMethodMiddle, posts: "json"},
		{name: "notification with its method mid-message, POSTs answered as event streams", msg: capserver.NotificationMethodMiddle, posts: "sse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := clock.NewFake()
			start := fake.Now()
			var log testutil.SyncBuffer
			c := &capserver.Server{Mode: tc.posts, Listen: true}
			u, kind := c.Start(t)
			notes := make(chan mcp.JSONRPCNotification, 4)
			h := testHandlers()
			h.OnNotification = func(n mcp.JSONRPCNotification) { notes <- n }
			sess := openCappedAt(t, u, kind, &log, fake, h)
			guard := testCtx(t)
			ctx, cancel := clock.WithTimeout(guard, fake, 30*time.Second)
			defer cancel()

			calls := make(chan error, 1)
			go func() {
				_, err := sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "hold"}})
				calls <- err
			}()
			var id []byte
			select {
			case id = <-c.Held():
			case <-guard.Done():
				t.Fatal("the call never reached the server")
			}
			if err := c.Push(guard, tc.msg, id, 2<<20); err != nil {
				t.Fatalf("push: %v (the client neither read the message nor closed the stream)\n%s", err, testutil.Stacks())
			}

			if !tc.lost {
				if err := c.Push(guard, capserver.Notification, nil, 0); err != nil {
					t.Fatalf("push: %v", err)
				}
				select {
				case n := <-notes:
					if n.Method != "notifications/message" {
						t.Fatalf("got notification %q", n.Method)
					}
				case <-sess.Done():
					t.Fatalf("session ended: %v", sess.End())
				case <-guard.Done():
					t.Fatal("the notification behind the over-size one never arrived: the stream did not go on")
				}
				if ended(sess) {
					t.Fatalf("session ended: %v", sess.End())
				}
				if l := log.String(); !strings.Contains(l, `"method":"notifications/message"`) || !strings.Contains(l, "the stream goes on") {
					t.Fatalf("log does not report the dropped notification: %s", l)
				}
				if res, err := callBig(ctx, sess, 10); err != nil || len(res.Content) != 1 {
					t.Fatalf("next call: %v", err)
				}
				// A dropped notification fails nothing: the held call is still waiting
				// (its failure would have come before the later call's answer).
				select {
				case err := <-calls:
					t.Fatalf("the held call ended (%v) though the server never answered it", err)
				default:
				}
				return
			}

			var err error
			select {
			case err = <-calls:
			case <-guard.Done():
				t.Fatal("the waiting call never failed")
			}
			if err == nil || !strings.Contains(err.Error(), "larger than the bridge accepts (1 MiB)") || !strings.Contains(err.Error(), session.MaxReplyEnv) {
				t.Fatalf("waiting call: %v", err)
			}
			var end *session.EndedError
			if !errors.As(err, &end) || end.End.Cause != session.CauseLost || !errors.Is(sess.End().Err, session.ErrReplyTooLarge) {
				t.Fatalf("got %v (session end %v); want the session ended by the over-size reply", err, sess.End())
			}
			if ctx.Err() != nil || !fake.Now().Equal(start) {
				t.Fatalf("the call ended with its deadline (%v, clock moved %v), not at once", ctx.Err(), fake.Now().Sub(start))
			}
			if l := log.String(); !strings.Contains(l, "could not be matched to its call") || !strings.Contains(l, `"transport":"streamable-http"`) {
				t.Fatalf("log does not report the lost stream: %s", l)
			}
			again := openCappedAt(t, u, kind, nil, fake, testHandlers())
			if res, err := callBig(ctx, again, 10); err != nil || len(res.Content) != 1 {
				t.Fatalf("a call on a new connection: %v", err)
			}
		})
	}
}

// TestRemoteReplyMemoryIsBounded: a 64 MiB reply through a 1 MiB cap allocates a few MiB
// on every HTTP transport, not the reply: the rest is discarded as it streams past.
// Without the cap mcp-go reads the whole body or event into memory (several times over).
// Not parallel: it measures the process's allocations.
func TestRemoteReplyMemoryIsBounded(t *testing.T) {
	const reply = 64 << 20
	for _, mode := range capModes {
		t.Run(mode, func(t *testing.T) {
			sess := openCapped(t, &capserver.Server{Mode: mode}, nil)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := callBig(testCtx(t), sess, reply)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), "larger than the bridge accepts") {
				t.Fatalf("64 MiB reply: %v", err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Fatalf("a %d MiB reply through a 1 MiB cap allocated %d MiB; want about the cap", reply>>20, grew>>20)
			}
		})
	}
}

// TestRemoteOversizeReplyIDBehindScalarsFailsOnlyItsCall: on the legacy SSE stream, which
// carries every answer of the connection, an over-size reply that names its id after its
// result, among the scalar members it ends with (here before "jsonrpc"), fails only its
// own call, at once, with the cap's error and the setting to raise; another call in
// flight gets its answer and the session goes on. Before, the id was read only when it
// was the very last member: the reply was taken as unmatched and the connection ended
// under every call in flight.
func TestRemoteOversizeReplyIDBehindScalarsFailsOnlyItsCall(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake()
	start := fake.Now()
	c := &capserver.Server{Mode: "legacy"}
	u, kind := c.Start(t)
	sess := openCappedAt(t, u, kind, nil, fake, testHandlers())
	guard := testCtx(t)
	ctx, cancel := clock.WithTimeout(guard, fake, 30*time.Second)
	defer cancel()

	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	hold := func() (json.RawMessage, chan answer) {
		done := make(chan answer, 1)
		go func() {
			res, err := sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "hold"}})
			done <- answer{res, err}
		}()
		select {
		case id := <-c.Held():
			return id, done
		case <-guard.Done():
			t.Fatal("the call never reached the server")
			return nil, nil
		}
	}
	wait := func(done chan answer) answer {
		select {
		case a := <-done:
			return a
		case <-guard.Done():
			t.Fatal("the call was never answered")
			return answer{}
		}
	}
	inFlight, survivor := hold()
	late, failing := hold()
	if err := c.Push(guard, capserver.ReplyIDLate, late, 2<<20); err != nil {
		t.Fatalf("push: %v", err)
	}
	got := wait(failing)
	var end *session.EndedError
	if got.err == nil || !strings.Contains(got.err.Error(), "larger than the bridge accepts (1 MiB)") || !strings.Contains(got.err.Error(), session.MaxReplyEnv) ||
		errors.As(got.err, &end) {
		t.Fatalf("over-size reply with its id behind a scalar member: %v (session end %v)", got.err, sess.End())
	}
	if err := c.Push(guard, capserver.Reply, inFlight, 0); err != nil {
		t.Fatalf("push: %v", err)
	}
	got = wait(survivor)
	if got.err != nil {
		t.Fatalf("the call in flight beside the over-size reply: %v (session end %v)", got.err, sess.End())
	}
	if tc, ok := got.res.Content[0].(mcp.TextContent); !ok || tc.Text != "ok" {
		t.Fatalf("the call in flight got %+v", got.res.Content[0])
	}
	if ended(sess) {
		t.Fatalf("session ended: %v", sess.End())
	}
	if !fake.Now().Equal(start) {
		t.Fatalf("the clock moved %v", fake.Now().Sub(start))
	}
}
