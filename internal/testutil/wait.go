package testutil

import (
	"context"
	"testing"
	"time"
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
