package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// TestLostWaitsForEvents: why a request failed is decided by the exit and close events
// however late they come, never by a fixed wait. Before, an exit reaped more than 50 ms
// after the pipe closed (a loaded machine) was reported as "server stopped". The one
// bound is reapGrace on the session's clock: a server that closed its stdout but keeps
// running fails the request as a plain failure. Before, such a request without a
// deadline never returned.
func TestLostWaitsForEvents(t *testing.T) {
	closedErr := transport.NewError(transport.ErrTransportClosed)
	tests := []struct {
		name  string
		err   error
		exit  bool // the process exits (after a delay longer than the old 50 ms window)
		close bool // we close the session
		ctxUp bool // the caller's context has ended
		big   bool // the reply limiter ended the stream
		alive bool // the process keeps running: the clock passes reapGrace
		want  Cause
	}{
		{name: "late exit after pipe closed", err: closedErr, exit: true, want: CauseExited},
		{name: "our own close", err: closedErr, close: true, want: CauseClosed},
		{name: "server error answer, process alive", err: errors.New("tool failed"), want: 0},
		{name: "caller gave up", err: closedErr, ctxUp: true, want: 0},
		{name: "over-size reply without id", err: closedErr, big: true, want: CauseLost},
		{name: "stdout closed, process keeps running", err: closedErr, alive: true, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &process{exitedC: make(chan struct{}), tail: NewStderrTail()}
			clk := clock.NewFake()
			s := &stdioSession{Client: &Client{done: make(chan struct{}), link: Link{Lost: TransportLost, Clock: clk}}, srv: p, lim: newReplyLimiter(nil, 0)}
			go s.watch()
			if tt.big {
				s.lim.lostOnce.Do(func() { close(s.lim.lost) })
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if tt.ctxUp {
				cancel()
			}
			// A delay here is the scenario (a slow reap), not synchronisation: the answer
			// must be the same however long it is.
			if tt.exit {
				time.AfterFunc(200*time.Millisecond, func() { close(p.exitedC) })
			}
			if tt.close {
				time.AfterFunc(200*time.Millisecond, func() { s.Finish(End{Cause: CauseClosed}) })
			}
			advanced := make(chan error, 1)
			if tt.alive {
				go func() { advanced <- clk.AdvanceWhenSet(ctx, reapGrace) }()
			} else {
				advanced <- nil
			}
			got := s.awaitEnd(ctx, tt.err)
			if err := <-advanced; err != nil {
				t.Fatalf("no reap grace on the session's clock: %v", err)
			}
			if !tt.ctxUp && ctx.Err() != nil {
				t.Fatal("the wait lasted until the test's guard")
			}
			var cause Cause
			if got != nil {
				cause = got.End.Cause
			}
			if cause != tt.want {
				t.Fatalf("lost = %v, want cause %d", got, tt.want)
			}
			if tt.big && !errors.Is(got.End.Err, ErrReplyTooLarge) {
				t.Fatalf("over-size end: %v", got.End.Err)
			}
		})
	}
}
