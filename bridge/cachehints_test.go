package bridge

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/trust"
)

// TestCacheHintsTTL: a server's ttlMs decides when its cached listing is due again, but
// never sooner than minRefreshAfter (a ttlMs of 0, mcp-go's default, would wake the server
// at every start): a start within it lists nothing, a start after it offers the cached
// tools and lists the server again in the background; a server without the hint (legacy)
// is never due by time. Before, no entry was ever due by time.
func TestCacheHintsTTL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ttl  string
		due  time.Duration
	}{
		{"longer than the floor", "7200000", 2 * time.Hour},
		{"shorter than the floor", "60000", minRefreshAfter},
		{"zero", "0", minRefreshAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			// none is a legacy server (mcp-go's modern one sends ttlMs 0 on every list).
			e.write(map[string]any{"ttl": e.server("-list-hints", tc.ttl+",public"), "none": e.server("-discover", "legacy")}, nil)
			b := e.bridge(extension.GenNew)
			if _, errs := b.Refresh(ctxGuard(t), []string{"ttl", "none"}); len(errs) > 0 {
				t.Fatalf("refresh: %v", errs)
			}
			file, err := cache.Read(b.opts.CachePath)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := file.Servers["ttl"].RefreshDue, e.clock.Now().Add(tc.due); !got.Equal(want) {
				t.Errorf("ttl's refresh is due at %v, want %v", got, want)
			}
			if due := file.Servers["none"].RefreshDue; !due.IsZero() {
				t.Errorf("a server without ttlMs is due at %v", due)
			}
			e.clock.Advance(tc.due - time.Second)
			if b := e.bridge(extension.GenNew); len(b.stale) != 0 {
				t.Errorf("a start within the ttl refreshes %v", b.stale)
			}
			e.clock.Advance(time.Second)
			b = e.bridge(extension.GenNew)
			if !slices.Equal(b.stale, []string{"ttl"}) {
				t.Errorf("a start after the ttl refreshes %v, want ttl only", b.stale)
			}
			offered := false
			for _, en := range b.catalog().Entries {
				offered = offered || en.Server == "ttl"
			}
			if !offered {
				t.Error("the due server's cached tools are not offered meanwhile")
			}
		})
	}
}

// TestPrivateListingOfAProjectServer: a project server's listing marked cacheScope
// "private" is offered in this session but never written to the tool cache, which every
// project's sessions read (an entry written before is dropped); a global server's private
// listing is cached, as the user's own file holds it for that same configuration.
func TestPrivateListingOfAProjectServer(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"g": e.server("-list-hints", "0,private")}, nil)
	e.writeProject(map[string]any{"p": e.server("-list-hints", "0,private")})
	ctx := ctxGuard(t)
	b := e.bridge(extension.GenNew)
	fp := trust.Fingerprint(mustServer(t, b, "p").Config())
	if err := trust.Approve(context.Background(), trust.DefaultPath(e.home), e.project, map[string]string{"p": fp}, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	b = e.bridge(extension.GenNew)
	// An entry another project's session wrote for the same configuration.
	if _, err := cache.Update(ctx, b.opts.CachePath, map[string]*cache.Entry{"p": {Fingerprint: mustServer(t, b, "p").Config().Fingerprint(),
		Tools: []cache.Tool{{Name: "elsewhere"}}}}, nil, e.clock.Now); err != nil {
		t.Fatal(err)
	}
	if _, errs := b.Refresh(ctx, []string{"g", "p"}); len(errs) > 0 {
		t.Fatalf("refresh: %v", errs)
	}
	file, err := cache.Read(b.opts.CachePath)
	if err != nil {
		t.Fatal(err)
	}
	if e := file.Servers["p"]; e != nil {
		t.Errorf("the project server's private listing is in the shared cache: %d tools", len(e.Tools))
	}
	if file.Servers["g"] == nil || len(file.Servers["g"].Tools) == 0 {
		t.Error("the global server's private listing is not cached")
	}
	found := false
	for _, en := range b.catalog().Entries {
		if en.Server == "p" {
			found = true
			if en.Tool.Name == "elsewhere" {
				t.Error("the listing another project cached is offered")
			}
		}
	}
	if !found {
		t.Error("the project server's private listing is not offered in this session")
	}
}
