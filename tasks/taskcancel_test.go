package tasks

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// TestCancelBoundOnInjectedClock: the tasks/cancel of a task whose call ended is bounded
// on the board's clock, so a server that never answers it holds the caller only until the
// clock passes taskCancelTimeout; the task leaves the board either way.
func TestCancelBoundOnInjectedClock(t *testing.T) {
	c := clock.NewFake()
	tb := NewBoard(c)
	task := lifecycle.NewTask("s", "slow", "t-1", c.Now(), nil, zerolog.Nop(), func() {})
	ended := make(chan error, 1)
	task.CancelFn = func(ctx context.Context) error {
		<-ctx.Done()
		ended <- ctx.Err()
		return ctx.Err()
	}
	tb.Add(task)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tb.Cancel(context.Background(), task)
	}()
	guard, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.AdvanceWhenSet(guard, taskCancelTimeout); err != nil {
		t.Fatal(err)
	}
	<-done
	if err := <-ended; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("tasks/cancel ended with %v, want its deadline", err)
	}
	if tb.Get("s", "t-1") != nil {
		t.Fatal("a cancelled task stays on the board")
	}
}
