package bridge

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
)

// TestSearchTablesBeforeCatalog: after a start from the startup file, the search tables
// are built before the cache is decoded for the catalog (search.Prepare), not by the
// index among the decoded cache's garbage, where their small objects each kept a page of
// it resident in the idle bridge.
func TestSearchTablesBeforeCatalog(t *testing.T) {
	t.Parallel()
	e, cachePath := primedEnv(t)
	waitFile(t, cache.FramesPath(cachePath))
	var mu sync.Mutex
	var stages []string
	finished := make(chan struct{})
	_, _, logs := startSessionWith(t, e, func(b *Bridge) {
		b.opts.StageHook = func(stage string) {
			mu.Lock()
			defer mu.Unlock()
			stages = append(stages, stage)
			if stage == "finish" {
				close(finished)
			}
		}
		prepare := b.opts.PrepareSearch
		b.opts.PrepareSearch = func() {
			prepare()
			b.opts.StageHook("prepared")
		}
	})
	if !strings.Contains(logs.String(), "registering from the startup file") {
		t.Fatalf("did not start from the startup file: %s", logs.String())
	}
	select {
	case <-finished:
	case <-ctxGuard(t).Done():
		t.Fatal("the cache was never decoded after ready")
	}
	mu.Lock()
	defer mu.Unlock()
	if i, j := slices.Index(stages, "prepared"), slices.Index(stages, "finish"); i < 0 || i > j {
		t.Fatalf("stages %v: want the search tables built (prepared) before the cache is decoded (finish)", stages)
	}
}
