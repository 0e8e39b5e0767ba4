package cache

import (
	"errors"
	"fmt"
	"hash/crc32"
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

// framesFile is a startup file for stamp with body after a correct header, so a test can
// damage the body without tripping the checksum.
func framesFile(stamp Stamp, body string) string {
	return fmt.Sprintf("%s %d %d %08x\n", framesMagic, stamp.Size, stamp.ModTime, crc32.Checksum([]byte(body), crcTable)) + body
}

// TestFramesDamaged: every damaged startup file is refused with a one-line error and never
// panics. "huge count" made ReadFrames panic with makeslice before counts were checked
// against the file's size, which disabled the bridge at every start.
func TestFramesDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.startup")
	stamp := Stamp{Size: 10, ModTime: 20}
	good := framesFile(stamp, "S\t\"a\"\tf\t1\n\"t\"\t\"p\":1\n")
	cases := map[string]string{
		"empty":            "",
		"no header end":    framesMagic,
		"other format":     "something else\n",
		"bad server":       framesFile(stamp, "X\t\"a\"\tf\t1\n"),
		"bad name quote":   framesFile(stamp, "S\ta\tf\t0\n"),
		"bad count":        framesFile(stamp, "S\t\"a\"\tf\t-1\n"),
		"huge count":       framesFile(stamp, "S\t\"a\"\tf\t99999999999999\n\"t\"\t\"p\":1\n"),
		"count over file":  framesFile(stamp, "S\t\"a\"\tf\t3\n\"t\"\t\"p\":1\n"),
		"truncated":        framesFile(stamp, "S\t\"a\"\tf\t2\n\"t\"\t\"p\":{}\n"),
		"bad tool line":    framesFile(stamp, "S\t\"a\"\tf\t1\nno-tab\n"),
		"bad tool quote":   framesFile(stamp, "S\t\"a\"\tf\t1\nt\t{}\n"),
		"bad payload":      framesFile(stamp, "S\t\"a\"\tf\t1\n\"t\"\t\n"),
		"payload comma":    framesFile(stamp, "S\t\"a\"\tf\t1\n\"t\"\t\"p\":1,\n"),
		"server twice":     framesFile(stamp, "S\t\"a\"\tf\t0\nS\t\"a\"\tf\t0\n"),
		"checksum":         strings.Replace(good, "\"p\":1", "\"p\":2", 1),
		"bad checksum hex": framesMagic + " 10 20 zz\n",
		"short checksum":   framesMagic + " 10 20 1\n",
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFrames(path, stamp)
			if err == nil || strings.Contains(err.Error(), "\n") || errors.Is(err, ErrFramesStale) {
				t.Fatalf("damaged file accepted, called stale, or odd error: %v", err)
			}
		})
	}
	if err := os.WriteFile(path, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFrames(path, stamp); err != nil {
		t.Fatalf("the undamaged file of the table was refused: %v", err)
	}
	// A file written by an older version of the format is stale (rebuilt quietly), not damaged.
	if err := os.WriteFile(path, []byte("mcp-bridge-startup 1 10 20\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFrames(path, stamp); !errors.Is(err, ErrFramesStale) {
		t.Fatalf("old format: %v", err)
	}
}
