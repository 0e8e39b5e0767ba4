// Package ring keeps the last entries of a stream (a server's stderr lines, its log
// messages) within a count cap and, optionally, a size cap: the one line ring of the tree.
package ring

import "sync"

// Ring keeps the last entries added, oldest first, and counts every entry ever added. It
// is safe for concurrent use.
type Ring[T any] struct {
	mu      sync.Mutex
	items   []T
	max     int
	maxSize int         // 0: no size cap
	sizeOf  func(T) int // with maxSize
	size    int         // the kept entries' sizes summed
	seen    int         // entries ever added
}

// New keeps the last max entries.
func New[T any](max int) *Ring[T] { return &Ring[T]{max: max} }

// NewSized keeps the last max entries whose sizes (sizeOf) sum to at most maxSize; an
// entry larger than maxSize alone is kept alone (the caller cuts it first when that
// matters).
func NewSized[T any](max, maxSize int, sizeOf func(T) int) *Ring[T] {
	return &Ring[T]{max: max, maxSize: maxSize, sizeOf: sizeOf}
}

// Add keeps v, dropping the oldest entries over the caps.
func (r *Ring[T]) Add(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen++
	r.items = append(r.items, v)
	if r.maxSize > 0 {
		r.size += r.sizeOf(v)
	}
	drop := 0
	for len(r.items)-drop > r.max || (r.maxSize > 0 && r.size > r.maxSize && len(r.items)-drop > 1) {
		if r.maxSize > 0 {
			r.size -= r.sizeOf(r.items[drop])
		}
		drop++
	}
	if drop > 0 {
		// Copy down instead of reslicing, so the backing array does not creep forward
		// and grow for ever.
		n := copy(r.items, r.items[drop:])
		clear(r.items[n:])
		r.items = r.items[:n]
	}
}

// Last returns a copy of the last n kept entries (all when fewer), oldest first.
func (r *Ring[T]) Last(n int) []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := max(len(r.items)-n, 0)
	return append([]T(nil), r.items[start:]...)
}

// All returns a copy of every kept entry, oldest first, and how many were ever added.
func (r *Ring[T]) All() ([]T, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]T(nil), r.items...), r.seen
}
