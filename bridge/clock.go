package bridge

import "time"

// Clock is the bridge's view of time, injected so idle sleep and backoff are testable
// without sleeping.
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

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// AfterFunc wraps time.AfterFunc.
func (SystemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// after returns a channel that is closed once d has passed on c, and the timer that stops
// it: a select-friendly timer on the injected clock.
func after(c Clock, d time.Duration) (<-chan struct{}, Timer) {
	ch := make(chan struct{})
	return ch, c.AfterFunc(d, func() { close(ch) })
}
