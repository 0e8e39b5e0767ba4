package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// TestLostWaitsForEvents: why a request failed is decided by the exit and close events
// however late they come, never by a fixed wait. Before, an exit reaped more than 50 ms
// after the pipe closed (a loaded machine) was reported as "server stopped".
func TestLostWaitsForEvents(t *testing.T) {
	closedErr := transport.NewError(transport.ErrTransportClosed)
	tests := []struct {
		name  string
		err   error
		exit  bool // the process exits (after a delay longer than the old 50 ms window)
		close bool // we close the session
		ctxUp bool // the caller's context has ended
		big   bool // the reply limiter ended the stream
		want  Cause
	}{
		{name: "late exit after pipe closed", err: closedErr, exit: true, want: CauseExited},
		{name: "our own close", err: closedErr, close: true, want: CauseClosed},
		{name: "server error answer, process alive", err: errors.New("tool failed"), want: 0},
		{name: "caller gave up", err: closedErr, ctxUp: true, want: 0},
		{name: "over-size reply without id", err: closedErr, big: true, want: CauseLost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &process{exitedC: make(chan struct{}), tail: NewStderrTail()}
			s := &stdioSession{Client: &Client{done: make(chan struct{})}, srv: p, lim: newReplyLimiter(nil, 0)}
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
			got := s.lost(ctx, tt.err)
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
