package clock

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Fake is a Clock for tests: time moves only by Advance, which runs the timers that came
// due, in order, before it returns.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	// set is closed, and replaced, whenever a timer is set: what WaitTimer waits on.
	set chan struct{}
}

type fakeTimer struct {
	c    *Fake
	at   time.Time
	f    func()
	done bool
}

// NewFake returns a fake clock at a fixed instant.
func NewFake() *Fake { return &Fake{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

// Now returns the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc arranges for f to run when Advance passes d from now.
func (c *Fake) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	if c.set != nil {
		close(c.set)
		c.set = nil
	}
	return t
}

// WaitTimer returns once a timer is pending that comes due exactly d from now: the event
// "the code under test is now waiting on the clock", after which Advance(d) fires it. It
// fails when ctx ends first.
func (c *Fake) WaitTimer(ctx context.Context, d time.Duration) error {
	for {
		c.mu.Lock()
		found := c.hasTimer(d)
		if c.set == nil {
			c.set = make(chan struct{})
		}
		set := c.set
		c.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-set:
		case <-ctx.Done():
			return fmt.Errorf("no timer of %s was set on the clock: %w", d, ctx.Err())
		}
	}
}

// AdvanceWhenSet waits for a timer due d from now (WaitTimer), then advances the clock by
// d, which fires it.
func (c *Fake) AdvanceWhenSet(ctx context.Context, d time.Duration) error {
	if err := c.WaitTimer(ctx, d); err != nil {
		return err
	}
	c.Advance(d)
	return nil
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

// Advance moves time forward and runs every timer that came due, in order.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	for _, t := range c.timers {
		if !t.done && !t.at.After(c.now) {
			t.done = true
			due = append(due, t)
		}
	}
	c.mu.Unlock()
	sort.Slice(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		t.f()
	}
}

// Pending counts timers that have not fired or been stopped.
func (c *Fake) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.done {
			n++
		}
	}
	return n
}

func (c *Fake) hasTimer(d time.Duration) bool {
	due := c.now.Add(d)
	for _, t := range c.timers {
		if !t.done && t.at.Equal(due) {
			return true
		}
	}
	return false
}
