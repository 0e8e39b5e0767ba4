package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestRefreshChangedComesFromCacheUpdate checks that Refresh reports as changed what
// the cache update changed: a first listing changes the cache, the same listing again
// does not, and when the cache cannot be written nothing is reported changed (only the
// error), although the live catalog still gets the tools.
func TestRefreshChangedComesFromCacheUpdate(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"s": e.server()}, nil)
	b := e.bridge(extension.GenNew)
	if changed, errs := b.Refresh(ctxGuard(t), []string{"s"}); len(errs) > 0 || len(changed) != 1 || changed[0] != "s" {
		t.Fatalf("first refresh: changed %v, errors %v", changed, errs)
	}
	if changed, errs := b.Refresh(ctxGuard(t), []string{"s"}); len(errs) > 0 || len(changed) != 0 {
		t.Fatalf("second refresh: changed %v, errors %v", changed, errs)
	}

	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	broken := e.bridgeWith(func(o *Options) { o.CachePath = filepath.Join(blocker, "cache.json") })
	changed, errs := broken.Refresh(ctxGuard(t), []string{"s"})
	if len(changed) != 0 || len(errs) != 1 || !strings.Contains(errs[0], "tool cache") {
		t.Fatalf("refresh with an unwritable cache: changed %v, errors %v", changed, errs)
	}
	if _, ok := broken.catalog().Lookup("mcp__s__echo"); !ok {
		t.Fatal("the live catalog lacks the listed tools after the cache write failed")
	}
}
