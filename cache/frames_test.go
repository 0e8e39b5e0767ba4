package cache

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFramesRoundTripAndStaleness(t *testing.T) {
	dir := t.TempDir()
	cachePath := filepath.Join(dir, FileName)
	if err := os.WriteFile(cachePath, []byte(`{"version":1,"servers":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	stamp, err := StampOf(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	path := FramesPath(cachePath)
	if filepath.Base(path) != "mcp-tools-cache.startup" {
		t.Fatalf("frames path %s", path)
	}
	in := map[string]*FrameServer{
		"a b\tc": {Fingerprint: "f1", Tools: []FrameTool{{Name: "t\"1", Payload: []byte(`"description":"x\ty","schema":{}`)}, {Name: "two", Payload: []byte(`"p":2`)}}},
		"empty":  {Fingerprint: "f2"},
	}
	if err := WriteFrames(path, stamp, in); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v %v", st.Mode(), err)
	}
	out, err := ReadFrames(path, stamp)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out["empty"].Fingerprint != "f2" || len(out["empty"].Tools) != 0 {
		t.Fatalf("read back %+v", out)
	}
	for i, tl := range in["a b\tc"].Tools {
		got := out["a b\tc"].Tools[i]
		if got.Name != tl.Name || string(got.Payload) != string(tl.Payload) {
			t.Fatalf("tool %d: %+v vs %+v", i, got, tl)
		}
	}
	// Another version of the cache file makes the startup file stale.
	other := stamp
	other.ModTime++
	if _, err := ReadFrames(path, other); !errors.Is(err, ErrFramesStale) {
		t.Fatalf("stale stamp: %v", err)
	}
	if _, err := ReadFrames(filepath.Join(dir, "missing.startup"), stamp); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	if err := WriteFrames(path, stamp, map[string]*FrameServer{"x": {Fingerprint: "f", Tools: []FrameTool{{Name: "n", Payload: []byte("a\nb")}}}}); err == nil {
		t.Fatal("a payload with a newline was written")
	}
}

func TestFramesDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.startup")
	stamp := Stamp{Size: 10, ModTime: 20}
	head := framesMagic + " 10 20\n"
	cases := map[string]string{
		"empty":          "",
		"no header end":  framesMagic,
		"other format":   "something else\n",
		"bad server":     head + "X\t\"a\"\tf\t1\n",
		"bad name quote": head + "S\ta\tf\t0\n",
		"bad count":      head + "S\t\"a\"\tf\t-1\n",
		"truncated":      head + "S\t\"a\"\tf\t2\n\"t\"\t{}\n",
		"bad tool line":  head + "S\t\"a\"\tf\t1\nno-tab\n",
		"bad tool quote": head + "S\t\"a\"\tf\t1\nt\t{}\n",
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadFrames(path, stamp); err == nil || strings.Contains(err.Error(), "\n") {
				t.Fatalf("damaged file accepted or odd error: %v", err)
			}
		})
	}
}
