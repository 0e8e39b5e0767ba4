package clock

import (
	"context"
	"errors"
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
