package lifecycle

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
)

// TestTaskCancelBoundOnInjectedClock: a task that keeps asking for input is cancelled,
// and that tasks/cancel is bounded by taskCancelTimeout on the injected clock: a server
// that never answers it holds the poll only until the clock passes the bound.
func TestTaskCancelBoundOnInjectedClock(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"srv": nil})
	s := e.srv(e.load(), "srv")
	task := NewTask("srv", "slow", "t-1", e.clock.Now(), nil, zerolog.Nop(), func() {})
	ended := make(chan error, 1)
	task.CancelFn = func(ctx context.Context) error {
		<-ctx.Done()
		ended <- ctx.Err()
		return ctx.Err()
	}
	rounds := session.MaxInputRounds
	done := make(chan error, 1)
	go func() {
		done <- s.answerTask(context.Background(), nil, task, &extTask{InputRequests: []byte(`{"q1":{"method":"elicitation/create"}}`)}, session.Inputs{}, map[string]bool{}, &rounds)
	}()
	if err := e.clock.AdvanceWhenSet(ctxGuard(t), taskCancelTimeout); err != nil {
		t.Fatal(err)
	}
	if err := <-ended; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("tasks/cancel ended with %v, want its deadline", err)
	}
	if err := <-done; err == nil {
		t.Fatal("a task that kept asking was not failed")
	}
}

// TestTaskCreateErrOfAnEndedSession: a task-augmented call whose session ended before
// the task was created is worded as a plain call's would be: an exited process with its
// stderr and "the next call starts it again", a lost transport that the next call
// reconnects. Before, only a closed session was; the others got a generic call failure.
func TestTaskCreateErrOfAnEndedSession(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		end  session.End
		kind session.Kind
		want []string
	}{
		{"exited", session.End{Cause: session.CauseExited, Status: "exited: exit status 3", Stderr: "fatal: boom"},
			session.KindEnded, []string{"exit status 3", "The next call starts it again", "fatal: boom"}},
		{"lost", session.End{Cause: session.CauseLost, Err: errors.New("stream dropped")},
			session.KindEnded, []string{"The next call reconnects"}},
		{"closed", session.End{Cause: session.CauseClosed}, KindStopped, []string{"server stopped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Server{Name: "s", Transport: config.TransportStdio}
			s := New(cfg, &Deps{Clock: clock.NewFake(), Log: zerolog.Nop(), Surface: zotSurface{},
				Connector: func(*config.Server) Connector { return &recordingConnector{} }})
			err := s.taskCreateErr(context.Background(), context.Background(), "slow", &session.EndedError{End: tt.end, Err: session.ErrEnded}, false)
			var e *Error
			if !errors.As(err, &e) || e.Kind != tt.kind {
				t.Fatalf("%v (%T); want kind %d", err, err, tt.kind)
			}
			text := e.Msg + " | " + e.User
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q lacks %q", text, w)
				}
			}
		})
	}
}
