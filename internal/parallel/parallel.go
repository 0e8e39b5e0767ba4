// Package parallel runs the steps of one job on a few goroutines, each goroutine taking
// the next step as it finishes one: the one worker loop of the start's path (decoding a
// cache file in parts, reading its listings, building the frames in pieces), whose steps
// differ a lot in size, so that a fixed share per goroutine would leave one idle.
package parallel

import (
	"sync"
	"sync/atomic"
)

// Start runs step(i) for i from 0 to n-1 in order of taking on up to workers goroutines
// (at least one while there are steps), each taking the next i as it finishes one, until
// the steps run out or one of its steps returns false (that goroutine then takes no
// more). It returns at once; wait blocks until every goroutine has ended, and may be
// called more than once.
func Start(n, workers int, step func(i int) bool) (wait func()) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(max(workers, 1), n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || !step(i) {
					return
				}
			}
		})
	}
	return wg.Wait
}

// Each runs step(i) for every i from 0 to n-1 as Start does and returns once all ran; on
// this goroutine alone when workers is 1 or less.
func Each(n, workers int, step func(i int)) {
	if workers <= 1 {
		for i := range n {
			step(i)
		}
		return
	}
	Start(n, workers, func(i int) bool { step(i); return true })()
}
