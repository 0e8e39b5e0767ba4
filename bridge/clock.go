package bridge

import (
	"context"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// Clock is the bridge's view of time (internal/clock), injected so idle sleep and backoff
// are testable without sleeping.
type Clock = clock.Clock

// Timer is a pending AfterFunc.
type Timer = clock.Timer

// SystemClock is the real clock.
type SystemClock = clock.System

// after returns a channel that is closed once d has passed on c, and the timer that stops
// it: a select-friendly timer on the injected clock.
func after(c Clock, d time.Duration) (<-chan struct{}, Timer) { return clock.After(c, d) }

// withClockTimeout is context.WithTimeout on the injected clock (clock.WithTimeout).
func withClockTimeout(parent context.Context, c Clock, d time.Duration) (context.Context, context.CancelFunc) {
	return clock.WithTimeout(parent, c, d)
}
