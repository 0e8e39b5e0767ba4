package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
)

// TestCLIAddTogether: `mcp-bridge add` processes started together all land in the file.
// Before, two adds at once lost entries while both printed "Added" and exited 0.
func TestCLIAddTogether(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	const n = 16
	var wg sync.WaitGroup
	results := make([]cliResult, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = e.run("add", fmt.Sprintf("s%02d", i), "--", "true")
		}()
	}
	wg.Wait()
	for i, r := range results {
		expectCode(t, r, 0, fmt.Sprintf("add s%02d", i))
	}
	got := readServers(t, e.globalPath())
	for i := range n {
		if _, ok := got[fmt.Sprintf("s%02d", i)]; !ok {
			t.Errorf("s%02d was added (exit 0) but is not in the file", i)
		}
	}
}

// TestCLIConfigFileChecks: add refuses a name that looks like a configured server's and
// one of mixed scripts; add writes through a symlinked mcp.json; doctor refuses a
// world-writable mcp.json with the file and the fix, and warns about a world-writable
// ZOT_HOME and tool cache.
func TestCLIConfigFileChecks(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.projectPath(), map[string]any{"github": map[string]any{"command": "true"}})
	for _, tc := range []struct {
		name string
		code int
		want string
	}{
		{"GitHub", 1, `server name "GitHub" looks like the server "github"`},
		{"s\u0435arch", 2, "mixes Latin and Cyrillic letters"},
		{"../../evil", 2, "has the character '.'"},
	} {
		r := e.run("add", tc.name, "--", "true")
		expectCode(t, r, tc.code, "add "+tc.name)
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("add %s: stderr lacks %q:\n%s", tc.name, tc.want, r.stderr)
		}
	}
	if _, err := os.Stat(e.globalPath()); !os.IsNotExist(err) {
		t.Errorf("a refused add wrote the global file (%v)", err)
	}

	// A dotfiles link stays a link.
	dots := filepath.Join(t.TempDir(), "dotfiles", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(dots), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dots, []byte(`{"mcpServers": {}}`), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dots, e.globalPath()); err != nil {
		t.Fatal(err)
	}
	expectCode(t, e.run("add", "mine", "--", "true"), 0, "add through a link")
	if fi, err := os.Lstat(e.globalPath()); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("mcp.json is no longer a link: %v %v", fi.Mode(), err)
	}
	if fi, _ := os.Stat(dots); fi.Mode().Perm() != 0o640 {
		t.Errorf("the link's target is now mode %o, want 640", fi.Mode().Perm())
	}
	if _, ok := readServers(t, dots)["mine"]; !ok {
		t.Error("the link's target did not get the server")
	}

	// Files other users can write.
	cachePath := cache.DefaultPath(e.home)
	if err := os.WriteFile(cachePath, []byte(`{"version": 0}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]os.FileMode{dots: 0o666, e.home: 0o777, cachePath: 0o666} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	r := e.run("doctor")
	expectCode(t, r, 1, "doctor")
	out := r.all()
	for _, want := range []string{
		e.globalPath() + " — ERROR: not read: it is writable by every user (mode 0666)",
		"fix it: chmod go-w " + e.globalPath(),
		"warning: " + e.home + ": writable by every user (mode 0777)",
		"fix: chmod go-w " + e.home,
		"warning: " + cachePath + ": writable by every user (mode 0666); it is the tool cache",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"mine"`) || regexpLine(r.stdout, `^\s+mine\s`) {
		t.Errorf("doctor used the server of the refused file:\n%s", out)
	}
	r = e.run("add", "other", "--", "true")
	expectCode(t, r, 1, "add to a world-writable file")
	if !strings.Contains(r.stderr, "chmod go-w "+e.globalPath()) {
		t.Errorf("add to a world-writable file does not give the fix:\n%s", r.stderr)
	}
}

// TestCLIImportRenames: import renames the names the rule refuses and says so.
func TestCLIImportRenames(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.globalPath(), map[string]any{"search": map[string]any{"command": "true"}})
	from := filepath.Join(t.TempDir(), "claude.json")
	if err := os.WriteFile(from, []byte(`{"mcpServers": {"../../evil": {"command": "a"}, "s\u0435arch": {"command": "b"}, "help": {"command": "c"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("import", "claude", "--from", from)
	expectCode(t, r, 0, "import")
	for _, want := range []string{
		"  + evil (renamed, see the note below)",
		`note: server "evil": renamed from "../../evil"`,
		`note: server "search-2": renamed from "s` + "\u0435" + `arch": server name "s` + "\u0435" + `arch" mixes Latin and Cyrillic`,
		`note: server "help-server": renamed from "help"`,
		"Imported 3 of 3",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("import output lacks %q:\n%s", want, r.stdout)
		}
	}
	c := config.Load(config.Options{ZotHome: e.home, LookupEnv: func(string) (string, bool) { return "", false }})
	var names []string
	for _, s := range c.Servers {
		if !s.Usable() {
			t.Errorf("imported %q does not load: %s", s.Name, s.Err)
		}
		names = append(names, s.Name)
	}
	if want := []string{"evil", "help-server", "search", "search-2"}; !slices.Equal(names, want) {
		t.Errorf("servers %v, want %v", names, want)
	}
}
