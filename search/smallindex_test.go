package search

import (
	"runtime"
	"testing"
)

// TestSmallIndexHoldsLittle: an index of a few tools holds about what they need, not
// tables sized for a large catalog (a vocabulary map made for thousands of words). Not
// parallel: it reads the heap's size.
func TestSmallIndexHoldsLittle(t *testing.T) {
	Prepare() // the query tables are the process's, built once
	docs := []Doc{mk("files", "read_file", "Read a file from disk."), mk("files", "write_file", "Write a file to disk.")}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC() // a second collection empties the pools the first one kept
	runtime.ReadMemStats(&before)
	ix := New(docs)
	runtime.GC()
	runtime.ReadMemStats(&after)
	const limit = 64 << 10
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > limit {
		t.Errorf("an index of %d tools holds %d bytes, want at most %d", len(docs), held, limit)
	}
	if hits := ix.Search("read a file", 1); len(hits) != 1 || hits[0].Doc != 0 {
		t.Errorf("Search(read a file) = %v, want read_file first", hits)
	}
	runtime.KeepAlive(ix)
}
