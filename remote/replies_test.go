package remote

import (
	"context"
	"encoding/json"
	"errors"
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

// TestRemoteReplyWithAnotherIDIsNotTheResult: over streamable HTTP, an answer to a POST
// that names another request's id (a number, or a string where ours is a number) is not
// taken as the call's result, as mcp-go's transport takes it. On an event stream it is
// ignored and logged, and the true answer behind it is the result; when no answer comes
// behind it, or in a JSON body, which holds no other answer, the call fails saying so
// (a body: *session.ForeignReplyError). The same holds on the GET that resumes a POST's
// event stream the server ended before the answer (SEP-1699). The session goes on.
// Before, "not yours" was the call's result (on a resumed stream, until this test).
func TestRemoteReplyWithAnotherIDIsNotTheResult(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, mode string
		alone      bool   // no answer follows on the event stream
		tool       string // "other", or "resumed": the answers come on the GET that resumes the POST's stream
	}{
		{"event stream", "sse", false, "other"}, {"event stream, nothing after it", "sse", true, "other"}, {"JSON body", "json", false, "other"},
		{"resumed event stream", "sse", false, "resumed"}, {"resumed event stream, nothing after it", "sse", true, "resumed"},
	} {
		for _, other := range []string{`99999`, `"2"`, `"x"`} {
			t.Run(tc.name+"/"+other, func(t *testing.T) {
				t.Parallel()
				var log testutil.SyncBuffer
				sess := openCapped(t, &capserver.Server{Mode: tc.mode}, &log)
				res, err := sess.CallTool(testCtx(t), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tc.tool,
					Arguments: map[string]any{"id": json.RawMessage(other), "alone": tc.alone}}})
				switch {
				case tc.mode == "sse" && !tc.alone:
					if err != nil {
						t.Fatalf("call behind a reply with another id: %v", err)
					}
					if tc, ok := res.Content[0].(mcp.TextContent); !ok || tc.Text != "ok" {
						t.Fatalf("the result is %+v, want the true answer", res.Content[0])
					}
				case err == nil:
					t.Fatalf("a reply with another id became the result: %+v", res.Content)
				case !strings.Contains(err.Error(), "named another request's id ("+other+")"):
					t.Fatalf("got %v; want the reply with another id refused", err)
				case tc.mode == "json":
					var foreign *session.ForeignReplyError
					if !errors.As(err, &foreign) {
						t.Fatalf("got %v (%T); want a *session.ForeignReplyError", err, err)
					}
				}
				if l := log.String(); !strings.Contains(l, "named another request's id") || !strings.Contains(l, `"server":"capped"`) {
					t.Fatalf("the ignored reply was not logged: %s", l)
				}
				if res, err := callBig(testCtx(t), sess, 10); err != nil || len(res.Content) != 1 {
					t.Fatalf("the next call: %v", err)
				}
			})
		}
	}
}

// TestRemoteEndlessEventFailsAtTheCap: an event on a POST's event stream that never ends
// fails the call at once with the cap's error, within a requestTimeout on the fake clock
// that the test never advances, and the bridge stops reading it: the server never gets to
// write OverrunBytes of it. For a reply that is at the cap; for the server's own
// notification, which is dropped as it crosses the cap and may be followed by the answer,
// it is once the dropped event has gone on for some multiple of the cap. The session
// goes on. Before, the bridge read the event until requestTimeout.
func TestRemoteEndlessEventFailsAtTheCap(t *testing.T) {
	t.Parallel()
	for _, shape := range []string{"reply", "notification"} {
		t.Run(shape, func(t *testing.T) {
			t.Parallel()
			fake := clock.NewFake()
			start := fake.Now()
			c := &capserver.Server{Mode: "sse", OverrunBytes: 256 << 20}
			sess := openCappedOn(t, c, nil, fake)
			guard := testCtx(t)
			ctx, cancel := clock.WithTimeout(guard, fake, 30*time.Second)
			defer cancel()
			calls := make(chan error, 1)
			go func() {
				_, err := sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "endless",
					Arguments: map[string]any{"shape": shape}}})
				calls <- err
			}()
			var err error
			select {
			case err = <-calls:
			case <-c.Overrun():
				t.Fatal("the bridge went on reading the endless event")
			case <-guard.Done():
				t.Fatal("the call never failed")
			}
			if err == nil || !strings.Contains(err.Error(), "larger than the bridge accepts (1 MiB)") || !strings.Contains(err.Error(), session.MaxReplyEnv) {
				t.Fatalf("endless event: %v", err)
			}
			if ctx.Err() != nil || !fake.Now().Equal(start) {
				t.Fatalf("the call ended with its deadline (%v, clock moved %v), not at once", ctx.Err(), fake.Now().Sub(start))
			}
			if ended(sess) {
				t.Fatalf("session ended: %v", sess.End())
			}
			if res, err := callBig(ctx, sess, 10); err != nil || len(res.Content) != 1 {
				t.Fatalf("the next call: %v", err)
			}
		})
	}
}

// openLegacy opens a session to a legacy SSE server at u; the error is Open's.
func openLegacy(t *testing.T, u string, log *testutil.SyncBuffer) (session.Session, error) {
	t.Helper()
	cfg := &config.Server{Name: "legacy", Source: "mcp.json", URL: u, Transport: config.TransportSSE,
		ConnectTimeout: 30 * time.Second, RequestTimeout: 30 * time.Second, Raw: config.Raw{URL: u}}
	d := testDeps()
	if log != nil {
		d.Log = zerolog.New(log)
	}
	sess, err := NewServer(cfg, d).Open(testCtx(t), testHandlers())
	if err == nil {
		t.Cleanup(func() { _ = sess.Close(context.Background()) })
	}
	return sess, err
}

// TestSSEEndpointOnAnotherOriginIsRefused: a legacy SSE server whose endpoint event names
// another origin (another port, another scheme on the same host, with user info) fails
// Open at once with *EndpointError, saying so and that it is refused for safety, naming
// the endpoint without its user info or query. Before, mcp-go ignored an endpoint on
// another host, so the connect waited out its endpoint timeout and then said no endpoint
// event came; and it took an https endpoint of an http server's host (or the reverse) as
// is.
func TestSSEEndpointOnAnotherOriginIsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ endpoint, shown string }{
		{"http://127.0.0.1:1/msg", "http://127.0.0.1:1/msg?…"},
		{"https://{host}/msg", "https://127.0.0.1:"},
		{"http://user:secret@127.0.0.1:1/msg", "http://127.0.0.1:1/msg?…"},
	} {
		t.Run(tc.endpoint, func(t *testing.T) {
			t.Parallel()
			u, _ := (&capserver.Server{Mode: "legacy", Endpoint: tc.endpoint}).Start(t)
			_, err := openLegacy(t, u, nil)
			var ee *EndpointError
			if !errors.As(err, &ee) {
				t.Fatalf("got %v; want the endpoint refused", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "pointed at another origin") || !strings.Contains(msg, "refuses") || !strings.Contains(msg, tc.shown) {
				t.Fatalf("the error does not say what was refused and why: %s", msg)
			}
			if strings.Contains(msg, "secret") || strings.Contains(msg, "session=") {
				t.Fatalf("the error shows the endpoint's user info or query: %s", msg)
			}
		})
	}
}

// TestSSEEndpointMovedElsewhereEndsTheSession: an endpoint event on a live legacy SSE
// session that moves the endpoint to another origin ends the session with the reason
// (*EndpointError), rather than being ignored (another host) or followed (the same host
// on another scheme) as mcp-go does.
func TestSSEEndpointMovedElsewhereEndsTheSession(t *testing.T) {
	t.Parallel()
	for _, endpoint := range []string{"http://127.0.0.1:1/msg", "https://{host}/msg?session=1"} {
		t.Run(endpoint, func(t *testing.T) {
			t.Parallel()
			c := &capserver.Server{Mode: "legacy"}
			u, _ := c.Start(t)
			sess, err := openLegacy(t, u, nil)
			if err != nil {
				t.Fatal(err)
			}
			guard := testCtx(t)
			if err := c.Push(guard, capserver.EndpointEvent, json.RawMessage(endpoint), 0); err != nil {
				t.Fatalf("push: %v", err)
			}
			select {
			case <-sess.Done():
			case <-guard.Done():
				t.Fatal("the session went on after its endpoint was moved to another origin")
			}
			var ee *EndpointError
			if e := sess.End(); e.Cause != session.CauseLost || !errors.As(e.Err, &ee) || !strings.Contains(session.LostText(e), "pointed at another origin") {
				t.Fatalf("session end %+v (%s); want it lost to the refused endpoint", e, session.LostText(e))
			}
		})
	}
}
