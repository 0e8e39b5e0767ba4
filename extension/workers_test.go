package extension

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"
)

// goid is the current goroutine's id, read from its stack header.
func goid() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := bytes.Fields(buf)
	return string(f[1])
}

// waitIdle waits until n workers wait for a job (the deadline only bounds a failure).
func waitIdle(t *testing.T, w *workers, n int32) {
	t.Helper()
	for end := time.Now().Add(hangGuard); w.idle.Load() != n; {
		if time.Now().After(end) {
			t.Fatalf("%d idle workers, want %d", w.idle.Load(), n)
		}
		runtime.Gosched()
	}
}

func TestWorkersReuseGoroutine(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	w := newWorkers(done)
	ids := make(chan string, 1)
	w.run(func() { ids <- goid() })
	first := <-ids
	waitIdle(t, w, 1)
	w.run(func() { ids <- goid() })
	if second := <-ids; second != first {
		t.Fatalf("second call ran on goroutine %s, the idle worker was %s", second, first)
	}
}

func TestWorkersNeverQueue(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	w := newWorkers(done)
	release := make(chan struct{})
	ran := make(chan struct{})
	w.run(func() { <-release }) // busy until the second job has run
	w.run(func() { close(ran) })
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	select {
	case <-ran:
	case <-ctx.Done():
		t.Fatal("a job waited for a busy worker")
	}
	close(release)
}

func TestWorkersEndWithConnection(t *testing.T) {
	done := make(chan struct{})
	w := newWorkers(done)
	finished := make(chan struct{}, maxIdleWorkers+4)
	release := make(chan struct{})
	for range maxIdleWorkers + 4 {
		w.run(func() { <-release; finished <- struct{}{} })
	}
	close(release)
	for range maxIdleWorkers + 4 {
		<-finished
	}
	waitIdle(t, w, maxIdleWorkers) // the rest returned
	close(done)
	waitIdle(t, w, 0)
}
