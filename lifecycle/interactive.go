package lifecycle

import (
	"context"
	"time"
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
