// Package repeats collapses an event that a server can repeat at will (a refused sampling
// request, a declined question) into one report and a count, on the injected clock: the
// first of a burst is reported by the caller at once, the ones after it within the window
// are only counted, and the count is handed over once when the window ends.
package repeats

import (
	"sync"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// Collapser counts repeats of events by key. It is safe for concurrent use.
type Collapser[K comparable] struct {
	clock  clock.Clock
	window time.Duration
	more   func(key K, n int)

	mu   sync.Mutex
	open map[K]int // keys whose window runs: repeats counted since the first
}

// New returns a collapser whose windows last window on c; more is called (in the timer's
// goroutine) with a key and how many repeats followed its first event in the window that
// just ended, and never for a window without repeats.
func New[K comparable](c clock.Clock, window time.Duration, more func(key K, n int)) *Collapser[K] {
	return &Collapser[K]{clock: c, window: window, more: more, open: map[K]int{}}
}

// First reports whether this event of key opens a window, in which case the caller
// reports it in full; otherwise the event is counted for the window's end.
func (c *Collapser[K]) First(key K) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.open[key]; ok {
		c.open[key]++
		return false
	}
	c.open[key] = 0
	c.clock.AfterFunc(c.window, func() { c.close(key) })
	return true
}

// close ends key's window and hands over its repeats.
func (c *Collapser[K]) close(key K) {
	c.mu.Lock()
	n := c.open[key]
	delete(c.open, key)
	c.mu.Unlock()
	if n > 0 && c.more != nil {
		c.more(key, n)
	}
}
