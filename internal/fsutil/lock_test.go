package fsutil

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestLockWaitsForHolder checks that a second Lock on the same file waits until the
// first is released, and then gets it.
func TestLockWaitsForHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := Lock(context.Background(), path)
		if err == nil {
			u()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("second Lock returned (%v) while the first was held", err)
	case <-time.After(50 * time.Millisecond): // a bound on a non-event: the second must still be waiting
	}
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("second Lock after release: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("second Lock never got the released lock")
	}
}

// TestLockEndsWithContext checks that waiting stops with the context's error.
func TestLockEndsWithContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Lock(ctx, path)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Lock after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Lock did not return after its context was cancelled")
	}
	if _, err := Lock(ctx, path); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock with an ended context: %v, want context.Canceled", err)
	}
}

// TestLockMissingDir checks that a lock in a directory that does not exist is an error,
// not a wait.
func TestLockMissingDir(t *testing.T) {
	if _, err := Lock(context.Background(), filepath.Join(t.TempDir(), "no", "x.lock")); err == nil {
		t.Fatal("Lock in a missing directory succeeded")
	}
}
