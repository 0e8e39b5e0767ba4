package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestBodiesBesideTheCache: a bridge keeps its catalog's packed tool bodies in a file it
// made in the cache's directory and removed at once (open, so listed under /proc as
// deleted), and a tool's description reads back from it.
func TestBodiesBesideTheCache(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"alpha": e.server("-name", "alpha")}, nil)
	b := e.bridge(extension.GenNew)
	if _, errs := b.Refresh(ctxGuard(t), []string{"alpha"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	dir := filepath.Dir(b.opts.CachePath)
	prefix := filepath.Join(dir, ".mcp-bridge-tools-")
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, prefix) && strings.HasSuffix(target, " (deleted)") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no removed file of tool bodies open in %s", dir)
	}
	if names, _ := filepath.Glob(prefix + "*"); len(names) != 0 {
		t.Fatalf("the file of tool bodies is left in the directory: %v", names)
	}
	e2, ok := b.catalog().Lookup("mcp__alpha__echo")
	if !ok {
		t.Fatal("mcp__alpha__echo is not in the catalog")
	}
	if tool := e2.CacheTool(); tool.Description == "" || len(tool.InputSchema) == 0 {
		t.Fatalf("mcp__alpha__echo reads back as %+v", tool)
	}
}
