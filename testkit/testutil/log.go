package testutil

import (
	"io"
	"strings"
	"sync"
	"testing"
)

// Log is a writer for a test's logger: it writes to t.Log while the test runs and drops
// what background goroutines log after the test ended (t.Log would panic then).
func Log(t testing.TB) io.Writer {
	w := &testLog{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return w
}

type testLog struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *testLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimSpace(string(p)))
	}
	return len(p), nil
}
