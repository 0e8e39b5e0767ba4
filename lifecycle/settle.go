package lifecycle

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// SettleGrace is how long a request outlives its deadline before it is given up. A
// bridge stopped past a deadline (a closed laptop lid, SIGSTOP) wakes with the deadline
// passed and a reply that came meanwhile still unread, in the pipe or in the transport;
// ending the request at once throws that reply away and reports a timeout (mcp-go,
// finding both its context ended and the reply in, picks either). The grace lets what
// has arrived be read first; a request with no reply in ends after it. (Not a round
// number: on a fake clock its timer is told apart from the deadlines it follows.)
const SettleGrace = 1500 * time.Millisecond

// settled returns the context to send a request under, given ctx, the request's
// deadline and cancellation: cancelled with ctx at once when ctx is cancelled, and
// SettleGrace (on c) after ctx's deadline has passed. Callers decide what failed from
// ctx, never from the returned context. release ends it.
func settled(ctx context.Context, c clock.Clock) (_ context.Context, release func()) {
	inner, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	var mu sync.Mutex
	var grace clock.Timer
	done := false
	stop := context.AfterFunc(ctx, func() {
		err := ctx.Err()
		if !errors.Is(err, context.DeadlineExceeded) {
			cancel(err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !done {
			grace = c.AfterFunc(SettleGrace, func() { cancel(err) })
		}
	})
	return inner, func() {
		stop()
		cancel(nil)
		mu.Lock()
		done = true
		if grace != nil {
			grace.Stop()
		}
		mu.Unlock()
	}
}
