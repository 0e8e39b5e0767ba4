package parallel

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// TestStartAndEach: every step runs once, on no more goroutines than asked for (Each on
// the caller's alone for one worker or fewer), and a goroutine whose step returns false
// takes no more steps.
func TestStartAndEach(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{{0, 4}, {1, 4}, {5, 1}, {5, 0}, {100, 3}, {3, 8}} {
		ran := make([]atomic.Int32, tc.n)
		var running, most atomic.Int32
		var mu sync.Mutex
		step := func(i int) {
			now := running.Add(1)
			mu.Lock()
			most.Store(max(most.Load(), now))
			mu.Unlock()
			ran[i].Add(1)
			running.Add(-1)
		}
		Each(tc.n, tc.workers, step)
		for i := range ran {
			if ran[i].Load() != 1 {
				t.Fatalf("n %d, workers %d: step %d ran %d times", tc.n, tc.workers, i, ran[i].Load())
			}
		}
		if limit := int32(max(tc.workers, 1)); most.Load() > limit {
			t.Errorf("n %d, workers %d: %d steps at once", tc.n, tc.workers, most.Load())
		}
	}
	// One worker, whose step 3 says stop: nothing after it runs.
	var got []int
	Start(10, 1, func(i int) bool { got = append(got, i); return i < 3 })()
	if !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("steps %v, want [0 1 2 3]", got)
	}
	// Each step taken once whatever the workers say.
	var taken atomic.Int32
	wait := Start(50, 4, func(int) bool { taken.Add(1); return true })
	wait()
	wait()
	if taken.Load() != 50 {
		t.Errorf("%d steps, want 50", taken.Load())
	}
}
