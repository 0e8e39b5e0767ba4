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
		"a b\tc": {Fingerprint: "f1", Instructions: "Use\tit\nwell \"always\"", Tools: []FrameTool{{Name: "t\"1", Payload: []byte(`"description":"x\ty","schema":{}`)}, {Name: "two", Payload: []byte(`"p":2`), Pin: "0a1b2c"}}},
		"empty":  {Fingerprint: "f2"},
	}
	if err := WriteStartup(path, stamp, nil, in); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v %v", st.Mode(), err)
	}
	out, err := ReadFrames(path, stamp)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out["empty"].Fingerprint != "f2" || len(out["empty"].Tools) != 0 || out["empty"].Instructions != "" ||
		out["a b\tc"].Instructions != in["a b\tc"].Instructions {
		t.Fatalf("read back %+v", out)
	}
	for i, tl := range in["a b\tc"].Tools {
		got := out["a b\tc"].Tools[i]
		if got.Name != tl.Name || string(got.Payload) != string(tl.Payload) || got.Pin != tl.Pin {
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
	if err := WriteStartup(path, stamp, nil, map[string]*FrameServer{"x": {Fingerprint: "f", Tools: []FrameTool{{Name: "n", Payload: []byte("a\nb")}}}}); err == nil {
		t.Fatal("a payload with a newline was written")
	}
	if err := WriteStartup(path, stamp, nil, map[string]*FrameServer{"x": {Fingerprint: "f", Tools: []FrameTool{{Name: "n", Payload: []byte(`"p":1`), Pin: "a\tb"}}}}); err == nil {
		t.Fatal("a pin with a tab was written")
	}
}

// framesFile is a startup file for stamp with body after a correct header, so a test can
// damage the body without tripping the checksum.
func framesFile(stamp Stamp, body string) string {
	return fmt.Sprintf("%s %d %d\nX\t-\t\"\"\t0\t00000000\nP\t%d\t%08x\n", framesMagic, stamp.Size, stamp.ModTime, len(body), crc32.Checksum([]byte(body), crcTable)) + body
}

// TestFramesDamaged: every damaged startup file is refused with a one-line error and never
// panics. "huge count" made ReadFrames panic with makeslice before counts were checked
// against the file's size, which disabled the bridge at every start.
func TestFramesDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.startup")
	stamp := Stamp{Size: 10, ModTime: 20}
	good := framesFile(stamp, "S\t\"a\"\tf\t1\n\"t\"\t\t\"p\":1\n")
	cases := map[string]string{
		"empty":            "",
		"no header end":    framesMagic,
		"other format":     "something else\n",
		"bad server":       framesFile(stamp, "X\t\"a\"\tf\t1\n"),
		"bad name quote":   framesFile(stamp, "S\ta\tf\t0\n"),
		"bad count":        framesFile(stamp, "S\t\"a\"\tf\t-1\n"),
		"huge count":       framesFile(stamp, "S\t\"a\"\tf\t99999999999999\n\"t\"\t\t\"p\":1\n"),
		"count over file":  framesFile(stamp, "S\t\"a\"\tf\t3\n\"t\"\t\t\"p\":1\n"),
		"truncated":        framesFile(stamp, "S\t\"a\"\tf\t2\n\"t\"\t\t\"p\":{}\n"),
		"bad tool line":    framesFile(stamp, "S\t\"a\"\tf\t1\nno-tab\n"),
		"bad tool quote":   framesFile(stamp, "S\t\"a\"\tf\t1\nt\t{}\n"),
		"bad payload":      framesFile(stamp, "S\t\"a\"\tf\t1\n\"t\"\tpin\t\n"),
		"no pin":           framesFile(stamp, "S\t\"a\"\tf\t1\n\"t\"\t\"p\":1\n"),
		"payload comma":    framesFile(stamp, "S\t\"a\"\tf\t1\n\"t\"\t\t\"p\":1,\n"),
		"server twice":     framesFile(stamp, "S\t\"a\"\tf\t0\nS\t\"a\"\tf\t0\n"),
		"bad instructions": framesFile(stamp, "S\t\"a\"\tf\t0\tunquoted\n"),
		"extra field":      framesFile(stamp, "S\t\"a\"\tf\t0\t\"i\"\tmore\n"),
		"checksum":         strings.Replace(good, "\"p\":1", "\"p\":2", 1),
		"bad header":       framesMagic + " 10 20 zz\n",
		"no sent header":   framesMagic + " 10 20\n",
		"bad sent header":  framesMagic + " 10 20\nX\tk\n",
		"sent over file":   framesMagic + " 10 20\nX\tk\t\"\"\t999\t00000000\n",
		"bad checksum hex": strings.Replace(good, "\nP\t", "\nP\tzz\t", 1),
		"short checksum":   framesMagic + " 10 20\nX\t-\t\"\"\t0\t00000000\nP\t0\t1\n",
		"bad length":       strings.Replace(good, "\nP\t", "\nP\t9", 1),
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

// TestSentSection: the sent section comes back byte for byte beside the payloads, each
// section is read on its own, a damaged section is refused as damaged (not stale), and a
// file without one says so.
func TestSentSection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.startup")
	stamp := Stamp{Size: 10, ModTime: 20}
	servers := map[string]*FrameServer{"a": {Fingerprint: "f", Tools: []FrameTool{{Name: "t", Payload: []byte(`"p":1`)}}}}
	frames := []byte("{\"type\":\"register_tool\",\"name\":\"x\"}\n" + strings.Repeat("y", 40<<10) + "\n")
	sent := &Sent{Key: "abc123", Meta: "{\"stale\":[\"b\\tc\"]}\n", Frames: frames}
	if err := WriteStartup(path, stamp, sent, servers); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSent(path, stamp)
	if err != nil || got.Key != sent.Key || got.Meta != sent.Meta || string(got.Frames) != string(frames) {
		t.Fatalf("sent section read back as %+v, %v", got, err)
	}
	back, err := ReadFrames(path, stamp)
	if err != nil || string(back["a"].Tools[0].Payload) != `"p":1` {
		t.Fatalf("payloads beside a sent section: %+v, %v", back, err)
	}
	if _, err := ReadSent(path, Stamp{Size: 10, ModTime: 21}); !errors.Is(err, ErrFramesStale) {
		t.Fatalf("stale stamp: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := []byte(strings.Replace(string(data), "yyyy", "yyyz", 1))
	if err := os.WriteFile(path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSent(path, stamp); err == nil || errors.Is(err, ErrFramesStale) || errors.Is(err, ErrNoSent) {
		t.Fatalf("damaged sent section: %v", err)
	}
	if _, err := ReadFrames(path, stamp); err != nil {
		t.Fatalf("payloads behind a damaged sent section: %v", err)
	}
	if err := WriteStartup(path, stamp, nil, servers); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSent(path, stamp); !errors.Is(err, ErrNoSent) {
		t.Fatalf("file without a sent section: %v", err)
	}
	for _, key := range []string{"", "a b", "a\tb", "-"} {
		if err := WriteStartup(path, stamp, &Sent{Key: key}, servers); err == nil {
			t.Errorf("key %q written", key)
		}
	}
}

// TestMapFramesReadsAsReadFrames: the mapped payload section gives the payloads
// ReadFrames gives, and the same errors for a stale or damaged file (with nothing left
// mapped).
func TestMapFramesReadsAsReadFrames(t *testing.T) {
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
	in := map[string]*FrameServer{"s": {Fingerprint: "f", Tools: []FrameTool{{Name: "a", Payload: []byte(`"description":"x"`), Pin: "p1"}, {Name: "b", Payload: []byte(`"p":2`)}}}}
	if err := WriteStartup(path, stamp, &Sent{Key: "k", Frames: []byte("sent\n")}, in); err != nil {
		t.Fatal(err)
	}
	want, err := ReadFrames(path, stamp)
	if err != nil {
		t.Fatal(err)
	}
	got, release, err := MapFrames(path, stamp)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got["s"].Fingerprint, len(got["s"].Tools)) != fmt.Sprint(want["s"].Fingerprint, len(want["s"].Tools)) {
		t.Fatalf("mapped %+v, read %+v", got["s"], want["s"])
	}
	for i, tl := range want["s"].Tools {
		if g := got["s"].Tools[i]; g.Name != tl.Name || string(g.Payload) != string(tl.Payload) || g.Pin != tl.Pin {
			t.Fatalf("tool %d: mapped %+v, read %+v", i, g, tl)
		}
	}
	release()

	other := stamp
	other.ModTime++
	if _, release, err := MapFrames(path, other); !errors.Is(err, ErrFramesStale) || release != nil {
		t.Fatalf("stale: %v (release %v)", err, release != nil)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-3] ^= 1 // inside the last payload: the checksum no longer matches
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, readErr := ReadFrames(path, stamp)
	if _, release, err := MapFrames(path, stamp); err == nil || readErr == nil || err.Error() != readErr.Error() || release != nil {
		t.Fatalf("damaged: mapped %v, read %v", err, readErr)
	}
}
