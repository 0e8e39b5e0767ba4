package query

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"iter"
	"math"
	"math/bits"
	"strings"
)

// table is a read-only map from keys to lists, held in a few flat arrays
// rather than in a map's buckets: the query tables live as long as the
// process, at any catalog size, and a map of thousands of short keys holds
// several times the bytes of its keys and lists. Keys are found through a
// hash index of small slots, as a map finds them; their bytes are spans of
// one text, which a table may share with another that holds the same keys
// (the bilingual lexicon's keys are also the intents' keys); lists that are
// alike are held once. It is not package search's wordTable, which grows
// while an index is built and which this package, below search, cannot use.
type table[V comparable] struct {
	text    string   // every key's bytes, possibly shared with another table
	entries []entry  // one per key
	vals    []V      // every entry's list
	slots   []uint32 // the entries' hash index (see slotIndex)
	seed    maphash.Seed
}

// entry is one key of a table: its bytes are text[key:key+keyLen], its list
// vals[val:val+valLen] (nil when valLen is 0).
type entry struct {
	key, val       uint32
	keyLen, valLen uint16
}

// get returns k's list, or nil when k is not a key (or its list is empty).
// The list is the table's: it must not be written to, and appending to it
// copies it.
func (t *table[V]) get(k string) []V {
	if len(t.slots) == 0 {
		return nil
	}
	return t.listOf(probe(t, maphash.String(t.seed, k), k))
}

// getBytes is get for a key held as bytes, without copying them.
func (t *table[V]) getBytes(k []byte) []V {
	if len(t.slots) == 0 {
		return nil
	}
	return t.listOf(probe(t, maphash.Bytes(t.seed, k), k))
}

// has reports whether k is a key, even of an empty list.
func (t *table[V]) has(k string) bool { return find(t, k) != nil }

// len returns the number of keys.
func (t *table[V]) len() int { return len(t.entries) }

// all yields every key and its list, in no set order.
func (t *table[V]) all() iter.Seq2[string, []V] {
	return func(yield func(string, []V) bool) {
		for i := range t.entries {
			if !yield(t.key(i), t.list(i)) {
				return
			}
		}
	}
}

func (t *table[V]) key(i int) string {
	e := t.entries[i]
	return t.text[e.key : e.key+uint32(e.keyLen)]
}

func (t *table[V]) list(i int) []V { return t.listOf(&t.entries[i]) }

// listOf returns the list of e, nil when e is nil or its list empty.
func (t *table[V]) listOf(e *entry) []V {
	if e == nil || e.valLen == 0 {
		return nil
	}
	end := e.val + uint32(e.valLen)
	return t.vals[e.val:end:end]
}

// find returns k's entry in t, or nil.
func find[V comparable](t *table[V], k string) *entry {
	if len(t.slots) == 0 {
		return nil
	}
	return probe(t, maphash.String(t.seed, k), k)
}

// probe returns the entry of k, whose hash is h, or nil. It
// takes the key as bytes or as a string, and compares without converting
// (a conversion in a comparison copies nothing).
func probe[V comparable, K string | []byte](t *table[V], h uint64, k K) *entry {
	mask := uint64(len(t.slots) - 1)
	tag := uint32(h>>32) &^ slotIndex
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return nil
		}
		if s&^slotIndex == tag {
			if e := &t.entries[s&slotIndex-1]; t.text[e.key:e.key+uint32(e.keyLen)] == string(k) {
				return e
			}
		}
	}
}

// slotIndex are the bits of a slot that hold its entry's index plus one (0
// is an empty slot); the others hold bits of its key's hash, so that a
// lookup compares keys only where those agree.
const slotIndex = 1<<20 - 1

// index fills t.slots, the open-addressed hash index of t's entries, at
// most half full: most lookups are of words that are no key, and a fuller
// index makes them step through long runs of taken slots before they meet
// an empty one.
func (t *table[V]) index() {
	if len(t.entries) == 0 {
		return
	}
	if len(t.entries) >= slotIndex {
		panic(fmt.Sprintf("query: a lexicon table of %d keys is more than slotIndex can number (%d): widen the slots", len(t.entries), slotIndex-1))
	}
	t.seed = maphash.MakeSeed()
	t.slots = make([]uint32, 1<<bits.Len(uint(2*len(t.entries)-1)))
	mask := uint64(len(t.slots) - 1)
	for e := range t.entries {
		h := maphash.String(t.seed, t.key(e))
		i := h & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(h>>32)&^slotIndex | uint32(e+1)
	}
}

// tableBuilder makes tables whose lists share one array of values, each
// value and each list held once however many tables or keys have it.
type tableBuilder[V comparable] struct {
	vals  []V
	ids   map[V]uint32      // value → its index in uniq
	uniq  []V               // each value once, the first copy met
	lists map[string]uint32 // a list's values' ids, as bytes → its offset in vals
	buf   []byte
	got   []uint32 // the ids of the list add is putting
}

func newTableBuilder[V comparable]() *tableBuilder[V] {
	return &tableBuilder[V]{ids: map[V]uint32{}, lists: map[string]uint32{}}
}

// add returns the offset in the builder's values of a list equal to l,
// putting l there if no such list is yet.
func (b *tableBuilder[V]) add(l []V) uint32 {
	b.buf, b.got = b.buf[:0], b.got[:0]
	for _, v := range l {
		id, ok := b.ids[v]
		if !ok {
			id = uint32(len(b.uniq))
			b.ids[v] = id
			b.uniq = append(b.uniq, v)
		}
		b.buf = binary.AppendUvarint(b.buf, uint64(id))
		b.got = append(b.got, id)
	}
	if at, ok := b.lists[string(b.buf)]; ok {
		return at
	}
	at := uint32(len(b.vals))
	// By the ids found above, not by looking each value up again: a value that
	// is not equal to itself (a NaN weight) would find no id a second time.
	for _, id := range b.got {
		b.vals = append(b.vals, b.uniq[id])
	}
	b.lists[string(b.buf)] = at
	return at
}

// table returns the table of m. A key's bytes are a span of text where
// span finds them there (ok set); the other keys' bytes are appended to
// text, and the table's text is the whole. span may be nil.
func (b *tableBuilder[V]) table(m map[string][]V, text string, span func(k string) (at int, ok bool)) table[V] {
	// The keys stay in the map's order: the index finds them in any.
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	t := table[V]{entries: make([]entry, len(keys))}
	ownLen := 0
	for i, k := range keys {
		l := m[k]
		if len(k) > math.MaxUint16 || len(l) > math.MaxUint16 {
			panic(fmt.Sprintf("query: the lexicon key %.40q (%d bytes) or its list of %d words passes the %d a table entry holds: shorten the entry or widen entry's lengths", k, len(k), len(l), math.MaxUint16))
		}
		at, ok := 0, false
		if span != nil {
			at, ok = span(k)
		}
		if !ok {
			at = len(text) + ownLen
			ownLen += len(k)
		}
		t.entries[i] = entry{key: uint32(at), keyLen: uint16(len(k)), valLen: uint16(len(l))}
		if len(l) > 0 {
			t.entries[i].val = b.add(l)
		}
	}
	if ownLen == 0 {
		t.text = text
		t.index()
		return t
	}
	var all strings.Builder
	all.Grow(len(text) + ownLen)
	all.WriteString(text)
	for i, k := range keys {
		if int(t.entries[i].key) >= len(text) {
			all.WriteString(k)
		}
	}
	t.text = all.String()
	t.index()
	return t
}

// finish gives every table made the builder's values, which must all be
// made by then.
func (b *tableBuilder[V]) finish(tables ...*table[V]) {
	vals := make([]V, len(b.vals))
	copy(vals, b.vals)
	for _, t := range tables {
		t.vals = vals
	}
}
