// Package clock is the one view of time that everything deciding on timers is given, so
// idle sleep, backoff, deadlines and rate limits are testable without sleeping.
package clock

import (
	"context"
	"sync"
	"time"
)

// Clock is the injected view of time.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc.
type Timer interface {
	// Stop prevents the call if it has not happened; it reports whether it did so.
	Stop() bool
}

// System is the real clock.
type System struct{}

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// AfterFunc wraps time.AfterFunc.
func (System) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// After returns a channel that is closed once d has passed on c, and the timer that stops
// it: a select-friendly timer on the injected clock.
func After(c Clock, d time.Duration) (<-chan struct{}, Timer) {
	ch := make(chan struct{})
	return ch, c.AfterFunc(d, func() { close(ch) })
}

// WithTimeout is context.WithTimeout on the injected clock, so budgets that decide what
// the model is told are testable without waiting: once d has passed on c, Err is
// context.DeadlineExceeded.
func WithTimeout(parent context.Context, c Clock, d time.Duration) (context.Context, context.CancelFunc) {
	ctx := &clockCtx{Context: parent, done: make(chan struct{})}
	t := c.AfterFunc(d, func() { ctx.finish(context.DeadlineExceeded) })
	stop := context.AfterFunc(parent, func() { ctx.finish(parent.Err()) })
	return ctx, func() {
		t.Stop()
		stop()
		ctx.finish(context.Canceled)
	}
}

type clockCtx struct {
	context.Context
	once sync.Once
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func (c *clockCtx) finish(err error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		close(c.done)
	})
}

func (c *clockCtx) Done() <-chan struct{} { return c.done }

func (c *clockCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
