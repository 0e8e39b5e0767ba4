package testutil

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// pollEvery is how often WaitFor looks again; only a bound for conditions no event
// announces (a file written, a state reached), never a timing assertion.
const pollEvery = 5 * time.Millisecond

// WaitFor polls cond until it holds; when ctx ends first, the test fails with "timed out
// waiting for <what>".
func WaitFor(ctx context.Context, t testing.TB, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(pollEvery):
		}
	}
}

// AdvanceWhenWaiting advances c by d once something has set a timer due d from now on it
// (the clock's own event, no polling): the code under test is then waiting on the clock,
// and the advance fires its timer. When ctx ends first, the test fails.
func AdvanceWhenWaiting(ctx context.Context, t testing.TB, c *clock.Fake, d time.Duration) {
	t.Helper()
	if err := c.AdvanceWhenSet(ctx, d); err != nil {
		t.Fatal(err)
	}
}

// Stacks is every goroutine's stack, for a failure that waited too long: a hang seen once
// under load can then be read from the log instead of guessed at.
func Stacks() string {
	for size := 1 << 20; ; size *= 2 {
		buf := make([]byte, size)
		if n := runtime.Stack(buf, true); n < size {
			return string(buf[:n])
		}
	}
}
