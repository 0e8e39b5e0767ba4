package bridge

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestStableNameAcrossRefresh: the bridge-level form of TestNamerKeepsNames: a refresh that
// lists a/"x y" next to the cached a/x-y leaves mcp__a__x_y pointing at a/x-y.
func TestStableNameAcrossRefresh(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"a": e.server("-no-default-tools", "-raw-tool", `x y={"type":"object"}`, "-raw-tool", `x-y={"type":"object"}`)}, nil)
	b := e.bridge(extension.GenNew)
	// Seed the cache with the server as it was before it added "x y".
	entry := &cache.Server{Fingerprint: b.servers["a"].Config().Fingerprint(), Tools: []cache.Tool{{Name: "x-y"}}}
	if _, err := cache.Update(ctxGuard(t), b.opts.CachePath, map[string]*cache.Server{"a": entry}, nil, b.opts.Clock.Now); err != nil {
		t.Fatal(err)
	}
	b.loadCatalog(nil)
	if en, ok := b.catalog().Lookup("mcp__a__x_y"); !ok || en.Tool.Name != "x-y" {
		t.Fatalf("before the refresh: %+v", en)
	}
	if _, errs := b.Refresh(ctxGuard(t), []string{"a"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	en, ok := b.catalog().Lookup("mcp__a__x_y")
	if !ok || en.Tool.Name != "x-y" {
		t.Fatalf("mcp__a__x_y moved to %+v", en)
	}
	if _, ok := b.catalog().LookupRef("a", "x y"); !ok {
		t.Fatal("the new tool is not in the catalog")
	}
}

// TestConcurrentMergesKeepEveryServer: merges from concurrent refreshes each add their own
// server; none may be lost. Before, the catalog was loaded, rebuilt and swapped without a
// lock, and the last swap dropped what the others had merged.
func TestConcurrentMergesKeepEveryServer(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	const servers = 8
	cfg := map[string]any{}
	for i := range servers {
		cfg[fmt.Sprintf("s%d", i)] = e.server()
	}
	e.write(cfg, nil)
	for round := range 20 {
		b := e.bridge(extension.GenNew)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range servers {
			name := fmt.Sprintf("s%d", i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				b.mergeLive(map[string]*cache.Server{name: {Tools: []cache.Tool{{Name: "t" + name}}}})
			}()
		}
		close(start)
		wg.Wait()
		names, _ := b.catalog().Servers()
		if len(names) != servers {
			t.Fatalf("round %d: merged %d servers, the catalog holds %s", round, servers, strings.Join(names, ", "))
		}
	}
}
