package bridge

import (
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

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
