package search

import (
	"testing"
	"unsafe"
)

// TestPostingPacksNameWord: a posting carries the name-word mark in the sign of its
// weight; both read back unchanged.
func TestPostingPacksNameWord(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sat  float32
		name bool
	}{{0.5, true}, {0.5, false}, {0.000001, true}, {0.99, false}} {
		p := newPosting(7, c.sat, c.name)
		if p.doc != 7 || p.weight() != float64(c.sat) || p.nameWord() != c.name {
			t.Errorf("newPosting(7, %v, %v) reads back as doc %d, weight %v, name word %v", c.sat, c.name, p.doc, p.weight(), p.nameWord())
		}
	}
	if size := unsafe.Sizeof(posting{}); size != 8 {
		t.Errorf("a posting takes %d bytes, want 8", size)
	}
}
