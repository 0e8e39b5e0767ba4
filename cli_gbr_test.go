package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// `mcp-bridge setup add gbr --path DIR` fills the absolute script path into the global
// config and prints the template's pin and key warnings; a missing or relative --path exits
// 1 with the reason and writes nothing.
func TestCLISetupGBR(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	checkout := t.TempDir()
	if err := os.MkdirAll(filepath.Join(checkout, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, "bin", "gbr-mcp.js"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"setup", "add", "gbr"}, `template "gbr" needs --path DIR`},
		{[]string{"setup", "add", "gbr", "--path", "build-remote-agent"}, `--path "build-remote-agent" is relative`},
		{[]string{"setup", "add", "gbr", "--path", filepath.Join(checkout, "nope")}, "no such file or directory"},
	} {
		r := e.run(c.args...)
		expectCode(t, r, 1, strings.Join(c.args, " "))
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: stderr lacks %q:\n%s", c.args, c.want, r.stderr)
		}
		if _, err := os.Stat(e.globalPath()); !os.IsNotExist(err) {
			t.Fatalf("%v: a refused add wrote %s (stat: %v)", c.args, e.globalPath(), err)
		}
	}

	r := e.run("setup", "add", "gbr", "--path", checkout)
	expectCode(t, r, 0, "setup add gbr --path DIR")
	for _, want := range []string{`Added MCP server "gbr"`, "release v0.6.0", "Never put mailbox keys in mcp.json"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("setup add gbr output lacks %q:\n%s", want, r.stdout)
		}
	}
	checkMode(t, e.globalPath())
	gbr := readServers(t, e.globalPath())["gbr"]
	if gbr.Command != "node" || !slices.Equal(gbr.Args, []string{filepath.Join(checkout, "bin", "gbr-mcp.js")}) {
		t.Errorf("gbr entry = %+v, want node %s/bin/gbr-mcp.js", gbr, checkout)
	}
}
