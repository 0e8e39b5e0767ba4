package lifecycle

import (
	"context"
	"errors"
	"testing"

	"github.com/rs/zerolog"

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
