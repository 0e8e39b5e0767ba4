package lifecycle

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// InteractiveBudget replaces requestTimeout for a call whose limits the host lifted (a tool
// that waits for a person, on a host without a reply deadline for it): long enough for a
// person, still an end.
const InteractiveBudget = 24 * time.Hour

// liftedKey marks, in a call's context, a call whose limits are lifted.
type liftedKey struct{}

// LiftLimits marks ctx so that the server's requestTimeout becomes InteractiveBudget for
// the calls made with it.
func LiftLimits(ctx context.Context) context.Context {
	return context.WithValue(ctx, liftedKey{}, true)
}

// requestTimeout is the server's requestTimeout, lifted for a call marked by LiftLimits.
func (s *Server) requestTimeout(ctx context.Context) time.Duration {
	if lifted, _ := ctx.Value(liftedKey{}).(bool); lifted {
		return InteractiveBudget
	}
	return s.cfg.RequestTimeout
}

// taskWaitKey carries, in a call's context, when a wait for the call's task gives up.
type taskWaitKey struct{}

// WithTaskWaitEnd records when a wait for a task of the calls made with ctx gives up, on
// the injected clock: the host's budget for the call less the time its answer needs, so a
// task wait returns before the host's deadline and tests can end it by advancing a fake
// clock.
func WithTaskWaitEnd(ctx context.Context, end time.Time) context.Context {
	return context.WithValue(ctx, taskWaitKey{}, end)
}

// taskWaitEnd is what WithTaskWaitEnd recorded, or the zero time when the call has no
// budget on record.
func taskWaitEnd(ctx context.Context) time.Time {
	end, _ := ctx.Value(taskWaitKey{}).(time.Time)
	return end
}

// callMeta is the request _meta of the call ctx belongs to (Host.CallMeta); nil without
// a host.
func (s *Server) callMeta(ctx context.Context) *mcp.Meta {
	if s.d.Host == nil {
		return nil
	}
	return s.d.Host.CallMeta(ctx)
}
