package ctxval

import (
	"context"
	"testing"
	"time"
)

type key struct{}

func TestWithoutValues(t *testing.T) {
	parent, cancel := context.WithTimeout(context.WithValue(context.Background(), key{}, "v"), time.Hour)
	ctx := WithoutValues(parent)
	if ctx.Value(key{}) != nil {
		t.Fatal("a value came through")
	}
	if _, ok := ctx.Deadline(); !ok {
		t.Fatal("the deadline was lost")
	}
	cancel()
	<-ctx.Done()
	if ctx.Err() != context.Canceled {
		t.Fatalf("err %v, want the parent's", ctx.Err())
	}
}
