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
