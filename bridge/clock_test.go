package bridge

import (
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// advanceWhenWaiting waits until something has a timer due d from now on the fake clock,
// then advances the clock by d. Polling is bounded by guard: the timer is set by a
// goroutine of the code under test.
func advanceWhenWaiting(t *testing.T, c *fakeClock, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for {
		if c.HasTimer(d) {
			c.Advance(d)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no timer of %s was set on the clock", d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAfterFollowsTheClock(t *testing.T) {
	t.Parallel()
	c := newFakeClock()
	ch, _ := clock.After(c, time.Second)
	stopped, tm := clock.After(c, time.Second)
	if !tm.Stop() {
		t.Fatal("Stop of a pending timer reported false")
	}
	c.Advance(999 * time.Millisecond)
	select {
	case <-ch:
		t.Fatal("fired before its time on the clock")
	default:
	}
	c.Advance(time.Millisecond)
	select {
	case <-ch:
	default:
		t.Fatal("did not fire when the clock reached its time")
	}
	select {
	case <-stopped:
		t.Fatal("a stopped timer fired")
	default:
	}
}
