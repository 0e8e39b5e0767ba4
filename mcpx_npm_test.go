package main

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestNPMEverythingRootFromCwd: in the terminal the project directory given with --cwd
// (not the directory the command runs in) is the client's root, as the real everything
// server reports it.
func TestNPMEverythingRootFromCwd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.write(map[string]any{"everything": map[string]any{"command": filepath.Join(testutil.NPMBin(t), "mcp-server-everything"), "args": []string{"stdio"}, "connectTimeout": 60}}, nil)
	project := t.TempDir()
	if out, code := e.run("refresh", "--cwd", project); code != 0 {
		t.Fatalf("refresh: %s", out)
	}
	out, code := e.run("call", "--cwd", project, "everything", "get-roots-list")
	want := (&url.URL{Scheme: "file", Path: project}).String()
	if code != 0 || !strings.Contains(out, "Current MCP Roots (1 total)") || !strings.Contains(out, "URI: "+want) {
		t.Fatalf("get-roots-list with --cwd %s (exit %d):\n%s", project, code, out)
	}
}
