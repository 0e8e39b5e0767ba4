package clock

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestWithTimeout: the context ends exactly when the fake clock passes its timeout, with
// DeadlineExceeded; a parent's end or the cancel func end it with their own reason.
func TestWithTimeout(t *testing.T) {
	tests := []struct {
		name    string
		advance time.Duration
		cancel  bool // call the cancel func
		parent  bool // cancel the parent
		want    error
	}{
		{name: "before the timeout", advance: 999 * time.Millisecond, want: nil},
		{name: "at the timeout", advance: time.Second, want: context.DeadlineExceeded},
		{name: "cancelled", cancel: true, want: context.Canceled},
		{name: "parent ended", parent: true, want: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewFake()
			parent, stopParent := context.WithCancel(context.Background())
			defer stopParent()
			ctx, cancel := WithTimeout(parent, c, time.Second)
			defer cancel()
			c.Advance(tt.advance)
			if tt.cancel {
				cancel()
			}
			if tt.parent {
				stopParent()
				<-ctx.Done() // the parent's end reaches ctx through context.AfterFunc
			}
			if err := ctx.Err(); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("Err = %v, want %v", err, tt.want)
			}
			if tt.want == nil && c.Pending() != 1 {
				t.Fatalf("%d timers pending, want the timeout's", c.Pending())
			}
		})
	}
}

// TestWaitTimer: WaitTimer returns once a timer due exactly d from now is set (already, or
// later by another goroutine, after other timers), and fails when its context ends first;
// AdvanceWhenSet then fires it.
func TestWaitTimer(t *testing.T) {
	tests := []struct {
		name    string
		before  []time.Duration // timers set before the wait
		after   []time.Duration // set while it waits
		wantErr bool
	}{
		{name: "already set", before: []time.Duration{time.Second}},
		{name: "set later, after another", after: []time.Duration{2 * time.Second, time.Second}},
		{name: "never set", before: []time.Duration{2 * time.Second}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewFake()
			for _, d := range tt.before {
				c.AfterFunc(d, func() {})
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fired := make(chan struct{})
			done := make(chan error, 1)
			go func() { done <- c.WaitTimer(ctx, time.Second) }()
			for _, d := range tt.after {
				f := func() {}
				if d == time.Second {
					f = func() { close(fired) }
				}
				c.AfterFunc(d, f)
			}
			if tt.wantErr {
				cancel()
			}
			err := <-done
			if (err != nil) != tt.wantErr {
				t.Fatalf("WaitTimer: %v, want error %v", err, tt.wantErr)
			}
			if err == nil && len(tt.after) > 0 {
				c.Advance(time.Second)
				<-fired
			}
		})
	}
	c := NewFake()
	fired := make(chan struct{})
	go c.AfterFunc(time.Minute, func() { close(fired) })
	if err := c.AdvanceWhenSet(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
	<-fired
}

// TestWithTimeoutDerivedContextsStartNoGoroutine: contexts made from a WithTimeout context
// join its cancellation without a goroutine each (every tool call derives several), and
// still end when it ends, on either clock.
func TestWithTimeoutDerivedContextsStartNoGoroutine(t *testing.T) {
	const n = 200
	for _, tt := range []struct {
		name  string
		clock Clock
	}{
		{"system", System{}},
		{"fake", NewFake()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := WithTimeout(context.Background(), tt.clock, time.Hour)
			before := runtime.NumGoroutine()
			children := make([]context.Context, n)
			for i := range children {
				var stop context.CancelFunc
				children[i], stop = context.WithCancel(ctx)
				defer stop()
			}
			// A goroutine per child would be n more; other tests' goroutines come and go,
			// which half of n leaves room for.
			if grew := runtime.NumGoroutine() - before; grew >= n/2 {
				t.Fatalf("%d goroutines more after deriving %d contexts", grew, n)
			}
			cancel()
			for i, c := range children {
				<-c.Done()
				if !errors.Is(c.Err(), context.Canceled) {
					t.Fatalf("child %d: Err = %v, want Canceled", i, c.Err())
				}
			}
		})
	}
}

// TestWithTimeoutAfterFuncStop: a derived context cancelled before its parent is no longer
// tied to it, and one derived after the parent ended ends at once.
func TestWithTimeoutAfterFuncStop(t *testing.T) {
	c := NewFake()
	ctx, cancel := WithTimeout(context.Background(), c, time.Second)
	child, stop := context.WithCancel(ctx)
	stop()
	if cc := ctx.(*clockCtx); len(cc.after) != 0 {
		t.Fatalf("%d functions still registered after the child was cancelled", len(cc.after))
	}
	c.Advance(time.Second)
	if !errors.Is(child.Err(), context.Canceled) {
		t.Fatalf("child Err = %v, want its own Canceled", child.Err())
	}
	late, stopLate := context.WithCancel(ctx)
	defer stopLate()
	<-late.Done()
	if !errors.Is(late.Err(), context.DeadlineExceeded) {
		t.Fatalf("late child Err = %v, want the parent's DeadlineExceeded", late.Err())
	}
	cancel()
}

// TestEndsWithin: only a real deadline that comes first makes a timeout redundant.
func TestEndsWithin(t *testing.T) {
	tests := []struct {
		name     string
		clock    Clock
		deadline time.Duration // 0: none
		d        time.Duration
		want     bool
	}{
		{"deadline first", System{}, time.Minute, time.Hour, true},
		{"deadline later", System{}, time.Hour, time.Minute, false},
		{"no deadline", System{}, 0, time.Minute, false},
		{"fake clock", NewFake(), time.Minute, time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			if got := EndsWithin(ctx, tt.clock, tt.d); got != tt.want {
				t.Fatalf("EndsWithin = %v, want %v", got, tt.want)
			}
		})
	}
}
