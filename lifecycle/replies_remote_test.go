package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/remote"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/capserver"
)

// TestRemoteRepliesNotOursAreRefused: what a call on an HTTP server says, with
// connectTimeout and requestTimeout on the fake clock (never advanced), when the server's
// answer is not the call's. A legacy SSE server whose endpoint event names another
// origin fails the start at once, saying so and that it is refused for safety (before,
// the start waited out connectTimeout and then said no endpoint event came); a JSON
// answer that names another request's id fails the call, saying so (before, it was the
// call's result).
func TestRemoteRepliesNotOursAreRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		srv       *capserver.Server
		transport string
		tool      string
		args      map[string]any
		kind      session.Kind
		want      []string
		typed     func(error) bool
	}{
		{name: "endpoint on another origin", srv: &capserver.Server{Mode: "legacy", Endpoint: "http://127.0.0.1:1/msg"}, transport: "sse",
			tool: "small", args: map[string]any{}, kind: session.KindBadResponse,
			want:  []string{"cannot connect to", "pointed at another origin than its url (http://127.0.0.1:1/msg?…)", "refuses", "for safety"},
			typed: func(err error) bool { var e *remote.EndpointError; return errors.As(err, &e) }},
		{name: "JSON answer with another id", srv: &capserver.Server{Mode: "json"}, transport: "streamable-http",
			tool: "other", args: map[string]any{"id": json.RawMessage(`77`)}, kind: session.KindBadResponse,
			want:  []string{"named another request's id (77)", "not taken as the answer"},
			typed: func(err error) bool { var e *session.ForeignReplyError; return errors.As(err, &e) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u, _ := tc.srv.Start(t)
			fake := clock.NewFake()
			start := fake.Now()
			s := newRemoteServer(t, u, tc.transport, fake, 0)
			ctx, cancel := context.WithTimeout(context.Background(), testGuard)
			defer cancel()

			res, err := s.Call(ctx, tc.tool, tc.args, true)
			var e *Error
			if !errors.As(err, &e) || e.Kind != tc.kind || !tc.typed(err) {
				t.Fatalf("got %v (%+v); want a %v failure that keeps its cause", err, res, tc.kind)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("%q does not say %q", err, w)
				}
			}
			if !fake.Now().Equal(start) {
				t.Fatalf("the clock moved %v", fake.Now().Sub(start))
			}
		})
	}
}
