package bridge

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestLostBecauseWaitsForEvents: the cause of a lost connection is decided by the exit
// and close events however late they come, never by a fixed wait. Before, an exit reaped
// more than 50 ms after the pipe closed (a loaded machine) was reported as "server stopped".
func TestLostBecauseWaitsForEvents(t *testing.T) {
	closedErr := transport.NewError(transport.ErrTransportClosed)
	tests := []struct {
		name  string
		err   error
		exit  bool // the process exits (after a delay longer than the old 50 ms window)
		close bool // we close the connection
		ctxUp bool // the caller's context has ended
		big   bool // the reply limiter ended the stream
		want  lostCause
	}{
		{name: "late exit after pipe closed", err: closedErr, exit: true, want: lostExited},
		{name: "our own close", err: closedErr, close: true, want: lostClosed},
		{name: "server error answer, process alive", err: errors.New("tool failed"), want: lostNot},
		{name: "caller gave up", err: closedErr, ctxUp: true, want: lostNot},
		{name: "over-size reply without id", err: closedErr, big: true, want: lostTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lost := make(chan struct{})
			c := &conn{proc: &process{exited: make(chan struct{})}, closing: make(chan struct{}), replyLost: lost}
			if tt.big {
				close(lost)
			}
			ctx, cancel := context.WithCancel(ctxGuard(t))
			defer cancel()
			if tt.ctxUp {
				cancel()
			}
			// A delay here is the scenario (a slow reap), not synchronisation: the answer
			// must be the same however long it is.
			if tt.exit {
				time.AfterFunc(200*time.Millisecond, func() { close(c.proc.exited) })
			}
			if tt.close {
				time.AfterFunc(200*time.Millisecond, c.markClosing)
			}
			if got := c.lostBecause(ctx, tt.err); got != tt.want {
				t.Fatalf("lostBecause = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestServerClosedIdleIsUnreachable: net/http reports a server that closed our pooled
// connection with an unexported error; it used to be worded as a tool failure, which made
// TestHTTPServerGoneDuringSession fail now and then.
func TestServerClosedIdleIsUnreachable(t *testing.T) {
	e := newTestEnv(t)
	e.write(map[string]any{"r": map[string]any{"url": "http://127.0.0.1:1/mcp", "transport": "streamable-http"}}, nil)
	s := e.srv(e.bridge(extension.GenNew), "r")
	err := fmt.Errorf("transport error: failed to send request: %w", errors.New(`Post "http://127.0.0.1:1/mcp": http: server closed idle connection`))
	if f := s.classifyHTTP(config.TransportStreamableHTTP, probeInfo{}, err); f.kind != KindUnreachable {
		t.Fatalf("kind %d (%s), want unreachable", f.kind, f.msg)
	}
}
