package cache

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestRefreshDueKept: an entry's RefreshDue (its server's ttlMs) is written and read
// back, and a listing equal in everything but a later RefreshDue is stored, so that a
// server listed again within its ttl is not due at the next start. Before, the file had
// no such field.
func TestRefreshDueKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	now := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	entry := func(due time.Time) map[string]*Server {
		return map[string]*Server{"s": {Fingerprint: "f", RefreshDue: due, Tools: []Tool{{Name: "t", InputSchema: []byte(`{"type":"object"}`)}}}}
	}
	for i, due := range []time.Time{now.Add(time.Minute), now.Add(2 * time.Minute), {}} {
		if _, err := Update(context.Background(), path, entry(due), nil, clock); err != nil {
			t.Fatal(err)
		}
		f, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Servers["s"].RefreshDue; !got.Equal(due) {
			t.Errorf("update %d: refreshDue %v, want %v", i, got, due)
		}
	}
}
