package cache

import (
	"errors"
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

// TestSetProtocolCarriesTheStartupFile: remembering a revision rewrites the cache but
// changes nothing the startup file's payloads are made from, so a startup file made from
// the version it replaced follows it to the new version (the next start builds its frames
// from it instead of decoding the cache), without its sent section (keyed by the cache
// version). A startup file made from another version stays stale, and none is made where
// there was none.
func TestSetProtocolCarriesTheStartupFile(t *testing.T) {
	payloads := map[string]*FrameServer{"a": {Fingerprint: "f", Instructions: "use it", Tools: []FrameTool{{Name: "t", Payload: []byte(`"description":"d"`), Pin: "ab12"}}}}
	tests := []struct {
		name    string
		startup string // "current": made from the version replaced; "other": from another; "": none
		carried bool
	}{
		{"made from the version replaced", "current", true},
		{"made from another version", "other", false},
		{"none", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if _, err := Update(t.Context(), path, map[string]*Server{"a": sampleEntry("a")}, nil, time.Now); err != nil {
				t.Fatal(err)
			}
			stamp, err := StampOf(path)
			if err != nil {
				t.Fatal(err)
			}
			framesPath := FramesPath(path)
			if tt.startup == "other" {
				stamp.ModTime++
			}
			if tt.startup != "" {
				if err := WriteStartup(framesPath, stamp, &Sent{Key: "k1", Meta: "m", Frames: []byte("frames\n")}, payloads); err != nil {
					t.Fatal(err)
				}
			}
			if err := SetProtocol(t.Context(), path, "", "a", "2026-07-28", "k2"); err != nil {
				t.Fatal(err)
			}
			now, err := StampOf(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadFrames(framesPath, now)
			if !tt.carried {
				if err == nil {
					t.Fatalf("startup file usable for the new cache version: %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("startup file after SetProtocol: %v", err)
			}
			a := got["a"]
			if len(got) != 1 || a == nil || a.Fingerprint != "f" || a.Instructions != "use it" || len(a.Tools) != 1 ||
				a.Tools[0].Name != "t" || string(a.Tools[0].Payload) != `"description":"d"` || a.Tools[0].Pin != "ab12" {
				t.Fatalf("payloads after SetProtocol: %+v", got)
			}
			if _, err := ReadSent(framesPath, now); !errors.Is(err, ErrNoSent) {
				t.Fatalf("sent section after SetProtocol: %v; want ErrNoSent", err)
			}
		})
	}
}
