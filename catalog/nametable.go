package catalog

import "hash/maphash"

// nameTable is the set of names a Namer has given, each held as its place in the Namer's
// given list: a slot is four bytes where a map from the name took a string header, a value
// and the map's own overhead per name. Open addressing with linear probing; names are
// never removed.
type nameTable struct {
	seed  maphash.Seed
	slots []int32 // place in given + 1; 0: empty
	n     int
}

func newNameTable() nameTable { return nameTable{seed: maphash.MakeSeed()} }

// find returns the place in given of name.
func (t *nameTable) find(given []givenEntry, name []byte) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for h := maphash.Bytes(t.seed, name) & mask; ; h = (h + 1) & mask {
		v := t.slots[h]
		if v == 0 {
			return 0, false
		}
		if given[v-1].name == string(name) {
			return v - 1, true
		}
	}
}

// has reports whether name is in the table.
func (t *nameTable) has(given []givenEntry, name string) bool {
	if len(t.slots) == 0 {
		return false
	}
	mask := uint64(len(t.slots) - 1)
	for h := maphash.String(t.seed, name) & mask; ; h = (h + 1) & mask {
		v := t.slots[h]
		if v == 0 {
			return false
		}
		if given[v-1].name == name {
			return true
		}
	}
}

// add puts given[i]'s name in the table; the name must not be in it yet.
func (t *nameTable) add(given []givenEntry, i int32) {
	t.reserve(given, t.n+1)
	t.put(given[i].name, i)
	t.n++
}

// reserve makes room for n names without growing again.
func (t *nameTable) reserve(given []givenEntry, n int) {
	if 4*n <= 3*len(t.slots) {
		return
	}
	size := 16
	for 4*n > 3*size {
		size *= 2
	}
	old := t.slots
	t.slots = make([]int32, size)
	for _, v := range old {
		if v != 0 {
			t.put(given[v-1].name, v-1)
		}
	}
}

// put stores i under name in a free slot.
func (t *nameTable) put(name string, i int32) {
	mask := uint64(len(t.slots) - 1)
	h := maphash.String(t.seed, name) & mask
	for t.slots[h] != 0 {
		h = (h + 1) & mask
	}
	t.slots[h] = i + 1
}
