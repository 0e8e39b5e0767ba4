package cache

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestUpdateReportsChangedServers checks that Update names the servers whose tools
// changed, compared with the file as it read it under its lock.
func TestUpdateReportsChangedServers(t *testing.T) {
	renamed := sampleEntry("b")
	renamed.ServerName = "other name"
	steps := []struct {
		name string
		put  map[string]*Server
		drop []string
		want []string
	}{
		{"two new servers", map[string]*Server{"b": sampleEntry("b"), "a": sampleEntry("a")}, nil, []string{"a", "b"}},
		{"same again", map[string]*Server{"a": sampleEntry("a")}, nil, nil},
		{"only the server name differs", map[string]*Server{"b": renamed}, nil, nil},
		{"one changed, one not", map[string]*Server{"a": sampleEntry("a2"), "b": renamed}, nil, []string{"a"}},
		{"dropped", nil, []string{"b", "missing"}, []string{"b"}},
		{"put and dropped", map[string]*Server{"c": sampleEntry("c")}, []string{"c"}, []string{"c"}},
	}
	path := filepath.Join(t.TempDir(), FileName)
	for _, st := range steps {
		got, err := Update(t.Context(), path, st.put, st.drop, time.Now)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if !slices.Equal(got, st.want) {
			t.Fatalf("%s: changed = %v, want %v", st.name, got, st.want)
		}
	}
}

// TestUpdatePrevGivesTheEntriesAsRead: UpdatePrev returns what each changed server had
// in the file before the update, and nothing for a server that was not there.
func TestUpdatePrevGivesTheEntriesAsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if _, err := Update(t.Context(), path, map[string]*Server{"a": sampleEntry("a"), "b": sampleEntry("b")}, nil, time.Now); err != nil {
		t.Fatal(err)
	}
	changed, prev, err := UpdatePrev(t.Context(), path, "", map[string]*Server{"a": sampleEntry("a2"), "b": sampleEntry("b"), "c": sampleEntry("c"), "d": sampleEntry("d")},
		[]string{"d"}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(changed, []string{"a", "c", "d"}) {
		t.Fatalf("changed = %v", changed)
	}
	if len(prev) != 1 || prev["a"] == nil || prev["a"].Fingerprint != "fp-a" {
		t.Fatalf("prev = %+v, want only a as it was", prev)
	}
}

// TestUpdateStampsWithGivenClock checks that an entry without UpdatedAt is stamped
// by the caller's clock, not the wall clock.
func TestUpdateStampsWithGivenClock(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	at := time.Date(2031, 7, 8, 9, 10, 11, 0, time.FixedZone("X", 3600))
	e := sampleEntry("1")
	e.UpdatedAt = time.Time{}
	if _, err := Update(t.Context(), path, map[string]*Server{"one": e}, nil, func() time.Time { return at }); err != nil {
		t.Fatal(err)
	}
	f := mustRead(t, path)
	if got := f.Servers["one"].UpdatedAt; !got.Equal(at) || got.Location() != time.UTC {
		t.Fatalf("UpdatedAt = %v, want %v in UTC", got, at)
	}
}
