package search

import (
	"reflect"
	"testing"
)

// TestDocSet: names borne by one doc and by several read back what was added, in order.
func TestDocSet(t *testing.T) {
	t.Parallel()
	s := newDocSet(0)
	adds := []struct {
		name string
		doc  int32
	}{{"a", 0}, {"b", 1}, {"a", 2}, {"c", 3}, {"a", 4}, {"b", 5}}
	for _, a := range adds {
		s.add(a.name, a.doc)
	}
	for name, want := range map[string][]int32{"a": {0, 2, 4}, "b": {1, 5}, "c": {3}, "d": nil} {
		if got := s.get(name); !reflect.DeepEqual(got, want) {
			t.Errorf("get(%q) = %v, want %v", name, got, want)
		}
	}
	if n := len(s.lists()); n != 2 {
		t.Errorf("%d lists of several docs, want 2", n)
	}
}
