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
// context.DeadlineExceeded. On the real clock it is context.WithTimeout itself: every
// call runs under such budgets, and the standard context joins its parent's cancellation
// without a timer callback, a watch on the parent or a goroutine per derived context.
func WithTimeout(parent context.Context, c Clock, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := c.(System); ok {
		return context.WithTimeout(parent, d)
	}
	ctx := &clockCtx{Context: parent, done: make(chan struct{})}
	t := c.AfterFunc(d, func() { ctx.finish(context.DeadlineExceeded) })
	stop := context.AfterFunc(parent, func() { ctx.finish(parent.Err()) })
	return ctx, func() {
		t.Stop()
		stop()
		ctx.finish(context.Canceled)
	}
}

// EndsWithin reports whether ctx ends by itself no later than d from now on c: c is the
// real clock and ctx's deadline comes first. A WithTimeout(ctx, c, d) would then only add a
// timer that never fires first.
func EndsWithin(ctx context.Context, c Clock, d time.Duration) bool {
	if _, ok := c.(System); !ok {
		return false // a fake clock's deadlines are not ctx.Deadline's
	}
	dl, ok := ctx.Deadline()
	return ok && !dl.After(c.Now().Add(d))
}

type clockCtx struct {
	context.Context
	once  sync.Once
	done  chan struct{}
	mu    sync.Mutex
	err   error
	after []*func() // AfterFunc's functions not yet run
}

func (c *clockCtx) finish(err error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.err = err
		after := c.after
		c.after = nil
		c.mu.Unlock()
		close(c.done)
		for _, f := range after {
			go (*f)()
		}
	})
}

// AfterFunc arranges for f to run in its own goroutine once c is done, and returns a
// func that cancels that if it has not happened (reporting whether it did so). The
// context package uses it to tie a derived context to c; without it, every context made
// from c would get a goroutine watching c's Done.
func (c *clockCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		go f()
		return func() bool { return false }
	}
	p := &f
	c.after = append(c.after, p)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, q := range c.after {
			if q == p {
				c.after = append(c.after[:i], c.after[i+1:]...)
				return true
			}
		}
		return false
	}
}

func (c *clockCtx) Done() <-chan struct{} { return c.done }

func (c *clockCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
