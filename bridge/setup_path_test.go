package bridge

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
)

// gbrCheckout makes a directory that looks like a Build Remote Agent checkout.
func gbrCheckout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "gbr-mcp.js"), []byte("// stand-in\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// `/mcp setup add gbr --path DIR` writes node with the checkout's absolute script path and
// says to pin v0.6.0 and keep mailbox keys out of mcp.json; a missing or relative path is
// refused and nothing is written.
func TestCommandSetupGBRPath(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	he := e.startHost(nil)
	global := config.GlobalPath(e.home)
	checkout := gbrCheckout(t)

	for _, c := range []struct{ line, want string }{
		{"setup add gbr", `template "gbr" needs --path DIR`},
		{"setup add gbr --path", "--path requires a directory"},
		{"setup add gbr --path= --force", "--path requires a directory"},
		{"setup add gbr --path gbr-checkout", `--path "gbr-checkout" is relative`},
		{"setup add gbr --path " + filepath.Join(checkout, "missing"), "no such file or directory"},
		{"setup add gbr --path " + t.TempDir(), "has no bin/gbr-mcp.js"},
		{"setup add grep --path " + checkout, `template "grep" takes no --path`},
	} {
		has(t, c.line, he.fail(c.line).Error, c.want)
		if _, err := os.Stat(global); !os.IsNotExist(err) {
			t.Fatalf("%s: a refused add wrote %s (stat: %v)", c.line, global, err)
		}
	}

	for _, form := range []string{"setup add gbr --path " + checkout, "setup add gbr --name gbr2 --path=" + checkout} {
		has(t, form, he.ok(form), "from template \"gbr\" in "+global, "release v0.6.0", "Never put mailbox keys in mcp.json", "Run /reload-ext")
	}
	c := config.Load(config.Options{ZotHome: e.home, ProjectDir: e.project, LookupEnv: e.lookup})
	for _, name := range []string{"gbr", "gbr2"} {
		s, ok := c.Server(name)
		if !ok || !s.Usable() {
			t.Fatalf("%s not loaded usable: %+v", name, s)
		}
		if s.Command != "node" || len(s.Args) != 1 || s.Args[0] != filepath.Join(checkout, "bin", "gbr-mcp.js") {
			t.Errorf("%s runs %s %v, want node %s/bin/gbr-mcp.js", name, s.Command, s.Args, checkout)
		}
	}
	has(t, "setup templates", he.ok("setup templates"), "gbr", "v0.6.0", "--path DIR")
}
