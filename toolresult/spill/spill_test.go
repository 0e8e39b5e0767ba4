package spill

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// TestSaveIsPrivateAndWhole: the file holds every block in order, is readable only by the
// user, sits in a private directory under ZOT_HOME, and a loose directory is made private.
func TestSaveIsPrivateAndWhole(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	d := New(home, clock.NewFake())
	path, err := d.Save([]string{"first block", "second\nblock"})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != filepath.Join(home, DirName) || !strings.HasSuffix(path, ".txt") {
		t.Fatalf("saved to %s, want a .txt file in %s", path, filepath.Join(home, DirName))
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "first block\nsecond\nblock" {
		t.Fatalf("file holds %q, %v", data, err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, d.Path(): 0o700} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", p, st.Mode().Perm(), err, want)
		}
	}
}

// TestPrune: a save keeps at most Keep files, the newest, drops files older than MaxAge
// on the injected clock, and leaves files it did not write alone.
func TestPrune(t *testing.T) {
	home := t.TempDir()
	c := clock.NewFake()
	d := New(home, c)
	old, err := d.Save([]string{"old"})
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(d.Path(), "notes.txt")
	if err := os.WriteFile(other, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.Advance(MaxAge + time.Minute)
	var saved []string
	for i := range Keep + 7 {
		p, err := d.Save([]string{"result", string(rune('a' + i%26))})
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, filepath.Base(p))
		if i == 0 {
			if _, err := os.Stat(old); !os.IsNotExist(err) {
				t.Fatalf("a file older than %v was kept (%v)", MaxAge, err)
			}
		}
		c.Advance(time.Second)
	}
	entries, err := os.ReadDir(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Contains(names, "notes.txt") {
		t.Error("pruning removed a file it did not write")
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == "notes.txt" })
	if want := saved[len(saved)-Keep:]; !slices.Equal(names, want) {
		t.Fatalf("kept %d files %v, want the %d newest %v", len(names), names, Keep, want)
	}
}
