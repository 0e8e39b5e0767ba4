package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReplaceFileThroughLink: a config file that is a symbolic link (a dotfiles
// repository's file) stays a link; the target gets the new content and keeps its mode.
// Before, the link was replaced by a regular 0600 file and the dotfile silently stopped
// being the config.
func TestReplaceFileThroughLink(t *testing.T) {
	for _, tc := range []struct {
		name string
		link func(t *testing.T, dir, target string) string // makes the link, returns its path
	}{
		{"absolute link", func(t *testing.T, dir, target string) string {
			return symlink(t, target, filepath.Join(dir, "home", "mcp.json"))
		}},
		{"relative link", func(t *testing.T, dir, target string) string {
			return symlink(t, filepath.Join("..", "dotfiles", "zot", "mcp.json"), filepath.Join(dir, "home", "mcp.json"))
		}},
		{"chain of links", func(t *testing.T, dir, target string) string {
			mid := symlink(t, target, filepath.Join(dir, "mid", "mcp.json"))
			return symlink(t, mid, filepath.Join(dir, "home", "mcp.json"))
		}},
		{"link in a linked directory", func(t *testing.T, dir, target string) string {
			// home/cfg is a link to real/cfg; home/cfg/mcp.json -> ../../dotfiles/zot/mcp.json
			// is resolved from real/cfg, where it points at the target.
			if err := os.MkdirAll(filepath.Join(dir, "real", "cfg"), 0o700); err != nil {
				t.Fatal(err)
			}
			symlink(t, filepath.Join(dir, "real", "cfg"), filepath.Join(dir, "home", "cfg"))
			return symlink(t, filepath.Join("..", "..", "dotfiles", "zot", "mcp.json"), filepath.Join(dir, "home", "cfg", "mcp.json"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "dotfiles", "zot", "mcp.json")
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := tc.link(t, dir, target)
			if err := ReplaceFile(link, []byte("new")); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the link was replaced: %v, %v", fi.Mode(), err)
			}
			if got, _ := os.ReadFile(target); string(got) != "new" {
				t.Errorf("target holds %q", got)
			}
			if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o644 {
				t.Errorf("target mode %o, want 644 as it was", fi.Mode().Perm())
			}
			if ents, _ := os.ReadDir(filepath.Dir(target)); len(ents) != 1 {
				t.Errorf("left %d files beside the target", len(ents))
			}
		})
	}
}

// TestReplaceFileKinds: a dangling link creates its target (0600); a link to a
// directory is refused; a regular file is replaced as WriteFileAtomic does (0600).
func TestReplaceFileKinds(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dots", "mcp.json")
	link := symlink(t, target, filepath.Join(dir, "a", "mcp.json"))
	if err := ReplaceFile(link, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("dangling link's target: %v, %v", fi, err)
	}
	link = symlink(t, dir, filepath.Join(dir, "b", "mcp.json"))
	if err := ReplaceFile(link, []byte("x")); err == nil {
		t.Error("a link to a directory was written through")
	}
	plain := filepath.Join(dir, "plain.json")
	if err := os.WriteFile(plain, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceFile(plain, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(plain); fi.Mode().Perm() != 0o600 {
		t.Errorf("regular file mode %o, want 600", fi.Mode().Perm())
	}
	loop := filepath.Join(dir, "loop")
	symlink(t, loop, loop)
	if err := ReplaceFile(loop, []byte("x")); err == nil {
		t.Error("a link to itself was written")
	}
}

// symlink makes the link at path (creating its directory) pointing at dest.
func symlink(t *testing.T, dest, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dest, path); err != nil {
		t.Fatal(err)
	}
	return path
}
