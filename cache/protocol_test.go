package cache

import (
	"path/filepath"
	"testing"
	"time"
)

// TestProtocolRemembered: the revision a server spoke is stored in its entry, by a
// listing (Update: a change of it alone rewrites the file but is no change of the tools)
// or by SetProtocol (which keeps the rest of the entry and leaves servers without an
// entry alone), and read back.
func TestProtocolRemembered(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	e := sampleEntry("a")
	if _, err := Update(t.Context(), path, map[string]*Server{"a": e}, nil, time.Now); err != nil {
		t.Fatal(err)
	}
	withProto := sampleEntry("a")
	withProto.Protocol, withProto.ProtocolKey = "2025-11-25", "k1"
	changed, err := Update(t.Context(), path, map[string]*Server{"a": withProto}, nil, time.Now)
	if err != nil || len(changed) != 0 {
		t.Fatalf("update: changed %v, %v; want no change of the tools", changed, err)
	}
	before, err := Read(path)
	if err != nil || before.Servers["a"].Protocol != "2025-11-25" || before.Servers["a"].ProtocolKey != "k1" {
		t.Fatalf("read after update: %+v, %v", before.Servers["a"], err)
	}
	if err := SetProtocol(t.Context(), path, "", "a", "2026-07-28", "k2"); err != nil {
		t.Fatal(err)
	}
	if err := SetProtocol(t.Context(), path, "", "missing", "2026-07-28", "k2"); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	got := f.Servers["a"]
	if got.Protocol != "2026-07-28" || got.ProtocolKey != "k2" || !SameTools(got, before.Servers["a"]) || !got.UpdatedAt.Equal(before.Servers["a"].UpdatedAt) {
		t.Errorf("after SetProtocol: %+v", got)
	}
	if f.Servers["missing"] != nil {
		t.Errorf("SetProtocol made an entry for a server without one")
	}
}
